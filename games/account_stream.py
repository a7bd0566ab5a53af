"""The account's events over a websocket: /api/bot/events/stream[?since=<id>], each event a
JSON text message `{"id", "type", "at", "game", ...}`, the same events as the NDJSON answer
of GET /api/bot/events (games.api.routes.events), read from the same table
(games.actions.account_events; docs/bot-accounts.md, "The account's events").

Access is a bot token in the handshake's `Authorization: Bearer` header, as the game
stream's (games.bot_stream). The stream holds one of the account's API_STREAMS_PER_BOT
slots, shared with its game streams. It reads the events after `since` (without it: from
its newest event on), then again each time a push to the account's group says one was
committed, and every RECHECK_SECONDS in any case, so a lost push delays an event by at most
that; it sends only events newer than the last it sent. It closes when the token is revoked
(a push to the token's group, at once) or the account may no longer play (its user group,
and every re-check). A refused handshake is accepted and closed with its code, after a
`{"type": "closing", "code", "reason"}` frame saying why in words: 4401 no valid token, 4400
a bad `since`, 4429 too many streams, 4503 the channel layer out of reach. The stream takes
no messages: one sent is answered `{"type": "error", "message"}`.
"""

import asyncio
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from accounts import bot_tokens
from accounts.models import ApiToken
from games import push
from games.actions import account_events, seat_door

log = logging.getLogger(__name__)

# Why it closes: the Bot API streams' codes and their words (games.actions.seat_door).
CLOSE_BAD_REQUEST = seat_door.CLOSE_BAD_REQUEST
CLOSE_BAD_TOKEN = seat_door.CLOSE_BAD_TOKEN
CLOSE_TOO_MANY = seat_door.CLOSE_TOO_MANY
CLOSE_SERVER_ERROR = seat_door.CLOSE_SERVER_ERROR
MAX_SINCE = 2**63 - 1
# Read again this soon while an event waits for an earlier one that may still commit.
HELD_RETRY = 0.25


def since_of(scope):
    """The `since` of the query string: None when absent, False when it is no event id."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("since")
    if not values:
        return None
    raw = values[-1]
    if not raw.isdigit() or len(raw) > 19 or int(raw) > MAX_SINCE:
        return False
    return int(raw)


def opening(raw):
    """(user, token id) for a token that may follow its account's events, else None."""
    found = bot_tokens.authenticate(raw) if raw else None
    if found is None or found[1].scope != ApiToken.Scope.PLAY:
        return None
    user, token = found
    return user, token.pk


class AccountStreamConsumer(AsyncJsonWebsocketConsumer):
    user_id = None
    token_id = None
    cursor = 0  # the id of the last event sent
    groups_joined = ()
    registered = False
    closing = False
    watcher = None
    lock = None  # one read at a time, so events go out in order and once
    again = None  # a re-read scheduled while an event is held back

    async def connect(self):
        since = since_of(self.scope)
        found = await database_sync_to_async(opening)(bot_tokens.bearer(self.scope))
        await self.accept()
        if found is None:
            await self.close_for(CLOSE_BAD_TOKEN)
            return
        if since is False:
            await self.close_for(CLOSE_BAD_REQUEST)
            return
        user, self.token_id = found
        self.user_id = user.pk
        if not await database_sync_to_async(bot_tokens.stream_opened)(
            self.user_id, self.channel_name
        ):
            await self.close_for(CLOSE_TOO_MANY)
            return
        self.registered = True
        groups = (
            account_events.group(self.user_id),
            bot_tokens.token_group(self.token_id),
            push.user_group(self.user_id),
        )
        who = f"event stream of account {self.user_id}"
        if not await push.join(self.channel_layer, self.channel_name, groups, who):
            await self.close_for(CLOSE_SERVER_ERROR)
            return
        self.groups_joined = groups
        self.lock = asyncio.Lock()
        await database_sync_to_async(account_events.prune)(None, self.user_id)
        if since is None:
            since = await database_sync_to_async(account_events.newest)(self.user_id)
        self.cursor = since
        self.watcher = asyncio.ensure_future(self.watch())
        await self.catch_up()

    async def close_for(self, code):
        """Closes the stream with `code`, saying why first (a `closing` frame); nothing
        goes out after it."""
        if self.closing:
            return
        self.closing = True
        log.info("account event stream closed (%s)", code)
        frame = seat_door.closing_frame(code)
        await self.send_json(frame)
        await self.close(code=code, reason=frame["reason"])

    async def disconnect(self, code):
        for task in (self.watcher, self.again):
            if task is not None:
                task.cancel()
        await push.leave(self.channel_layer, self.channel_name, self.groups_joined)
        if self.registered:
            await database_sync_to_async(bot_tokens.stream_closed)(self.user_id, self.channel_name)

    async def catch_up(self):
        """Sends the settled events after the last one sent, in order."""
        async with self.lock:
            while not self.closing:
                rows, held = await database_sync_to_async(account_events.read)(
                    self.user_id, self.cursor
                )
                for row in rows:
                    self.cursor = row.pk
                    await self.send_json(account_events.as_message(row))
                if held and (self.again is None or self.again.done()):
                    self.again = asyncio.ensure_future(self.later())
                if len(rows) < account_events.READ_BATCH:
                    return

    async def later(self):
        await asyncio.sleep(HELD_RETRY)
        await self.catch_up()

    async def check(self):
        """Closes the stream if its token no longer lets it follow; True if it did."""
        if await database_sync_to_async(account_events.may_follow)(self.token_id):
            return False
        await self.close_for(CLOSE_BAD_TOKEN)
        return True

    async def watch(self):
        """Every RECHECK_SECONDS: the token's right, the stream's slot, and a read that
        catches up on a push it may have missed."""
        try:
            while True:
                await asyncio.sleep(bot_tokens.stream_recheck_seconds())
                if await self.check():
                    return
                if not await database_sync_to_async(bot_tokens.stream_alive)(
                    self.user_id, self.channel_name
                ):
                    await self.close_for(CLOSE_TOO_MANY)
                    return
                await self.catch_up()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("account event stream of %s stopped checking", self.user_id)
            await self.close_for(CLOSE_SERVER_ERROR)

    async def dispatch(self, message):
        kind = message["type"]
        if self.closing:
            return
        if kind == "account.event":
            await self.catch_up()
            return
        if kind == "token.revoked":
            await self.close_for(CLOSE_BAD_TOKEN)
            return
        if kind in ("access.changed", "session.ended"):
            await self.check()
            return
        if kind.startswith("websocket."):
            await super().dispatch(message)
        # Anything else sent to the account's user group is for its other sockets.

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        await self.send_json(
            {"type": "error", "message": "This stream takes no messages: it only sends events."}
        )
