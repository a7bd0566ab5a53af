"""The Bot API's tokens: issued to bot accounts, checked on every request, revoked at once.

A token is `wct_` followed by 32 random bytes (secrets.token_urlsafe). Only its SHA-256
digest is stored: a slow password hash (PBKDF2, Argon2) is there to make guessing a
person's low-entropy password expensive, but 256 random bits cannot be guessed however fast
the hash, and a fast one lets every API request look its token up by an indexed column.
"""

import hashlib
import secrets
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import ratelimit
from .models import ApiToken, User

PREFIX = "wct_"
# last_used_at is a hint for the owner's list, not an audit log: one write a minute at most,
# so that a bot's every request is not also a write.
LAST_USED_EVERY = timedelta(minutes=1)
MAX_RAW_LENGTH = 200  # far beyond a real token: anything longer is not looked up


class TokenRefused(Exception):
    """A token that could not be issued; `str(exc)` is fit to show the owner."""


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
            raise TokenRefused("This account has sat at a table, so it cannot become a bot "
                               "account. Sign up a new account for your bot.")
        user.is_bot = True
        user.save(update_fields=["is_bot"])
    return user


def live_tokens(user):
    return user.api_tokens.filter(revoked_at__isnull=True)


def issue(user, name):
    """(ApiToken, raw token) for bot account `user`; the raw token exists only in the
    return value. Raises TokenRefused for a person's account or past API_TOKENS_PER_BOT."""
    name = (name or "").strip()[:60]
    if not name:
        raise TokenRefused("Give the token a name, so that you can tell it from the others.")
    with transaction.atomic():
        # The account's row lock serialises two creations racing past the limit.
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_bot:
            raise TokenRefused("Only a bot account has API tokens.")
        if live_tokens(user).count() >= settings.API_TOKENS_PER_BOT:
            raise TokenRefused(f"A bot account has at most {settings.API_TOKENS_PER_BOT} "
                               "tokens: revoke one first.")
        raw = PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(user=user, name=name, digest=digest(raw),
                                        prefix=raw[:12])
    return token, raw


def authenticate(raw, now=None):
    """(user, token) for a raw token that may play now, else None: the token exists and is
    not revoked, its account is an active bot account, neither banned nor suspended."""
    if not isinstance(raw, str) or not raw.startswith(PREFIX) or len(raw) > MAX_RAW_LENGTH:
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(digest=digest(raw), revoked_at__isnull=True).first())
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
        revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    if updated:
        transaction.on_commit(lambda: _tell_streams(token.pk))
    return token


def _tell_streams(token_id):
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(token_group(token_id), {"type": "token.revoked"})


def over_rate_limit(token):
    """Counts one request of `token`; seconds to wait if it went over API_RATE_LIMIT in the
    running window, else 0."""
    scope = "api-token"
    if ratelimit.hit(scope, token.pk, settings.API_RATE_WINDOW) > settings.API_RATE_LIMIT:
        return max(1, ratelimit.retry_after(scope, token.pk))
    return 0
