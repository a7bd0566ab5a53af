"""The Bot API's tokens: issued to bot accounts, checked on every request, revoked at once;
and the account's limits (docs/bot-api.md, "Limits").

A token is `wct_` followed by 32 random bytes (secrets.token_urlsafe). Only its SHA-256
digest is stored: a slow password hash (PBKDF2, Argon2) is there to make guessing a
person's low-entropy password expensive, but 256 random bits cannot be guessed however fast
the hash, and a fast one lets every API request look its token up by an indexed column.

The limits belong to the bot ACCOUNT, not to a token: tokens are free to mint and revoke,
so a limit per token is no limit. `charge` counts the account's HTTP requests and stream
`act` frames together; `issue` refuses past API_TOKENS_PER_DAY; `stream_opened`,
`stream_alive` and `stream_closed` keep at most API_STREAMS_PER_BOT streams open. All of it
is kept in the Django cache (Redis when REDIS_URL is set), so every process shares it.
These functions block on the cache: a consumer calls them through sync_to_async.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from . import ratelimit, text
from .models import ApiToken, User

PREFIX = "wct_"
# last_used_at is a hint for the owner's list, not an audit log: one write a minute at most,
# so that a bot's every request is not also a write.
LAST_USED_EVERY = timedelta(minutes=1)
MAX_RAW_LENGTH = 200  # far beyond a real token: anything longer is not looked up
RATE_SCOPE = "api-account"
DAY = timedelta(days=1)


class TokenRefused(Exception):
    """A token that could not be issued; `str(exc)` is fit to show the owner."""


class TooManyTokensToday(TokenRefused):
    """Past API_TOKENS_PER_DAY: the owner may try again once the day's window ends."""


def digest(raw):
    return hashlib.sha256(raw.encode()).hexdigest()


def token_group(token_id):
    """The channel-layer group of a token's open streams: told when the token is revoked."""
    return f"api-token-{token_id}"


def may_become_bot(user):
    """An account may become a bot account while it has never sat at a table, so that no
    game a person played turns into a bot's."""
    return not user.is_bot and not user.seats.exists()


def make_bot_account(user):
    """Turns `user` into a bot account, for good. Raises TokenRefused if it may not."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.is_bot:
            return user
        if not may_become_bot(user):
            raise TokenRefused(
                "This account has sat at a table, so it cannot become a bot "
                "account. Sign up a new account for your bot."
            )
        user.is_bot = True
        user.save(update_fields=["is_bot"])
    return user


def live_tokens(user):
    return user.api_tokens.filter(revoked_at__isnull=True)


def issue(user, name):
    """(ApiToken, raw token) for bot account `user`; the raw token exists only in the
    return value. Raises TokenRefused for a person's account, a name with hidden characters
    or past API_TOKENS_PER_BOT live tokens; TooManyTokensToday past API_TOKENS_PER_DAY
    tokens created in the last 24 hours, revoked ones included (else minting and revoking
    in a loop would be free)."""
    name = (name or "").strip()[:60]
    if not name:
        raise TokenRefused("Give the token a name, so that you can tell it from the others.")
    hidden = text.refusal(name, "A token name")
    if hidden:
        raise TokenRefused(hidden)
    with transaction.atomic():
        # The account's row lock serialises two creations racing past the limit.
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_bot:
            raise TokenRefused("Only a bot account has API tokens.")
        if live_tokens(user).count() >= settings.API_TOKENS_PER_BOT:
            raise TokenRefused(
                f"A bot account has at most {settings.API_TOKENS_PER_BOT} tokens: revoke one first."
            )
        # Counted from the rows, under the lock: exact whatever the cache forgot.
        now = timezone.now()
        today = list(
            user.api_tokens.filter(created_at__gt=now - DAY)
            .order_by("created_at")
            .values_list("created_at", flat=True)[: settings.API_TOKENS_PER_DAY]
        )
        if len(today) >= settings.API_TOKENS_PER_DAY:
            wait = (today[0] + DAY - now).total_seconds()
            raise TooManyTokensToday(
                f"A bot account may create at most {settings.API_TOKENS_PER_DAY} tokens in 24 "
                f"hours: you can create another in {ratelimit.in_words(wait)}."
            )
        raw = PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(user=user, name=name, digest=digest(raw), prefix=raw[:12])
    return token, raw


def bearer(scope):
    """The raw token of an ASGI handshake's `Authorization: Bearer <token>` header, or None:
    how the Bot API's streams are let in (games.bot_stream, games.account_stream)."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            scheme, _, raw = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and raw.strip():
                return raw.strip()
    return None


def stream_recheck_seconds():
    """How often an open stream checks its token (and its seat) again."""
    return getattr(settings, "BOT_STREAM_RECHECK_SECONDS", 10)


def authenticate(raw, now=None):
    """(user, token) for a raw token that may play now, else None: the token exists and is
    not revoked, its account is an active bot account, neither banned nor suspended."""
    if not isinstance(raw, str) or not raw.startswith(PREFIX) or len(raw) > MAX_RAW_LENGTH:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest(raw), revoked_at__isnull=True)
        .first()
    )
    if token is None:
        return None
    user = token.user
    if not (user.is_active and user.is_bot) or user.restriction(now) is not None:
        return None
    now = now or timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return user, token


def revoke(token):
    """Revokes `token` at once: every later request is refused, and after commit its open
    streams are told to close (they join token_group)."""
    updated = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    token.refresh_from_db(fields=["revoked_at"])
    if updated:
        transaction.on_commit(lambda: _tell_streams(token.pk))
    return token


def _tell_streams(token_id):
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(token_group(token_id), {"type": "token.revoked"})


@dataclass(frozen=True)
class Quota:
    """The account's requests as one request left them: what the `X-RateLimit-*` headers
    of a Bot API answer say (docs/bot-api.md, "Limits")."""

    limit: int  # requests per window
    remaining: int  # left in the running window (0 when refused)
    reset: int  # seconds until the running window ends
    wait: int  # 0: the request may go on; else refused, and the seconds to wait

    def headers(self):
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }

    def given_back(self):
        """The quota once one request was given back (`refund`)."""
        return Quota(self.limit, min(self.limit, self.remaining + 1), self.reset, self.wait)


def charge_quota(user_id):
    """`charge`, with the numbers of the account's window as this request left them."""
    limit = settings.API_RATE_LIMIT
    used = ratelimit.hit(RATE_SCOPE, user_id, settings.API_RATE_WINDOW)
    reset = ratelimit.retry_after(RATE_SCOPE, user_id)
    wait = max(1, reset) if used > limit else 0
    return Quota(limit=limit, remaining=max(0, limit - used), reset=reset, wait=wait)


def refund(user_id):
    """Gives back one request of bot account `user_id`: its decision was not saved because
    the server lost its database (a 503), which the program is told to send again, so the
    retry costs nothing. Every other refusal counts (docs/bot-api.md, "Limits")."""
    ratelimit.give_back(RATE_SCOPE, user_id)


def charge(user_id):
    """Counts one request of bot account `user_id`: an HTTP request of any of its tokens
    (games.api.auth) or an `act` frame of any of its streams (games.bot_stream). Returns 0
    when it may go on, else the seconds to wait (at least 1), and then it must be refused.

    At most API_RATE_LIMIT in a window of API_RATE_WINDOW seconds that starts at the
    account's first request after the previous window ended (accounts.ratelimit: one counter
    in the cache, shared by every process). A refused request is counted too, but a window
    never moves its end: a bot that keeps calling while refused waits no longer than one
    that stops, and is let in again as soon as the window is over."""
    return charge_quota(user_id).wait


# Open streams: API_STREAMS_PER_BOT slots per account, each a cache key holding the
# channel name of the stream in it. A slot is taken with add() (SET NX on Redis), so two
# streams opening at once in two processes cannot both take the last one, and it expires
# API_STREAM_TTL seconds after it was last refreshed: a process that died without calling
# stream_closed frees its streams' slots by itself.


def _slot_keys(user_id):
    return [f"bot-stream:{user_id}:{i}" for i in range(settings.API_STREAMS_PER_BOT)]


def _slot_of(user_id, channel_name):
    held = cache.get_many(_slot_keys(user_id))
    return next((key for key, name in held.items() if name == channel_name), None)


def _take_slot(user_id, channel_name):
    return any(
        cache.add(key, channel_name, timeout=settings.API_STREAM_TTL) for key in _slot_keys(user_id)
    )


def stream_opened(user_id, channel_name):
    """Registers an open stream of bot account `user_id` (its Channels `channel_name`).
    True if it may stay open; False, registering nothing, when the account already has
    API_STREAMS_PER_BOT streams open: the stream should then close. Registering the same
    channel twice takes one slot.

    The registration lapses API_STREAM_TTL seconds later unless `stream_alive` refreshes
    it, so a stream must call `stream_alive` more often than that (every re-check)."""
    key = _slot_of(user_id, channel_name)
    if key is not None:
        cache.touch(key, settings.API_STREAM_TTL)
        return True
    return _take_slot(user_id, channel_name)


def stream_alive(user_id, channel_name):
    """Refreshes an open stream's registration, for another API_STREAM_TTL seconds. If it
    had lapsed (a process stalled past the TTL), takes a free slot again. False when none
    is free: the account opened others meanwhile, and this stream should close."""
    key = _slot_of(user_id, channel_name)
    if key is not None and cache.touch(key, settings.API_STREAM_TTL):
        return True
    return _take_slot(user_id, channel_name)


def stream_closed(user_id, channel_name):
    """Unregisters a closed stream, freeing its slot at once (a stream that never calls it
    frees its slot when the registration lapses). The cache has no compare-and-delete: a
    slot that lapsed and was taken by another stream between the read and the delete
    would be freed too, which needs this stream to have missed its refreshes for a whole
    TTL first, and costs one stream too many until the next re-check."""
    key = _slot_of(user_id, channel_name)
    if key is not None:
        cache.delete(key)


def open_streams(user_id):
    """How many streams of `user_id` are registered now."""
    return len(cache.get_many(_slot_keys(user_id)))
