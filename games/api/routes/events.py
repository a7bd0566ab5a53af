"""The account's events over HTTP: `GET /api/bot/events?since=<id>`, one JSON object a line
(application/x-ndjson), for as long as the client keeps the connection and its token stays
valid (docs/bot-accounts.md, "The account's events"). The same events as the websocket
/api/bot/events/stream (games.account_stream), read from the same table
(games.actions.account_events).

The answer is a stream under the site's ASGI server (Daphne): the events after `since` first,
then each new one as it is committed, woken by a push to the account's group and read from
the table (a lost push is caught up at the next heartbeat); a blank line every
HEARTBEAT_SECONDS keeps proxies from closing a quiet connection. It counts once against the
rate limit (its request) and holds one of the account's API_STREAMS_PER_BOT streams while
open. It ends when the token is revoked or the account may no longer play.

A server that cannot hold a response open (WSGI: a thread each) answers what there is and
ends, as `follow=false` does anywhere.
"""

import asyncio
import json
import logging
import uuid

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from ninja import Query, Router
from ninja.errors import HttpError

from accounts import bot_tokens
from games import push
from games.actions import account_events
from games.api.schemas import REFUSALS

router = Router()
log = logging.getLogger(__name__)

MAX_EVENT_ID = 2**63 - 1
TOO_MANY = (
    "This bot account has {n} streams open already (game streams and event streams count "
    "together): close one first."
)
NDJSON = "application/x-ndjson"
# Read again this soon while an event waits for an earlier one that may still commit.
HELD_RETRY = 0.25


def heartbeat_seconds():
    return getattr(settings, "ACCOUNT_EVENTS_HEARTBEAT_SECONDS", 15)


@router.get(
    "/events",
    response={200: None, **REFUSALS},
    summary="The account's events (NDJSON stream)",
    description=(
        'One JSON object a line (`application/x-ndjson`): `{"id", "type", "at", '
        '"game", ...}`, types `invitation`, `invitation_closed`, `seated`, `game_started`, '
        "`your_turn`, `game_finished`, `stand_in_started`, `stand_in_ended`, `timed_out`, "
        "`seat_handed_over` (see /bots/docs/stream/). The events after `since` first, then "
        "each new one; a blank line every 15 seconds while nothing happens. Without `since` "
        "it starts after the newest event. With `follow=false` it answers the events after "
        "`since` and ends."
    ),
    openapi_extra={"responses": {200: {"content": {NDJSON: {"schema": {"type": "string"}}}}}},
)
def events(
    request,
    since: int | None = Query(
        None, ge=0, le=MAX_EVENT_ID, description="The id of the last event you handled."
    ),
    follow: bool = Query(True, description="Keep the answer open for new events."),
):
    user, token = request.auth, request.bot_token
    start = account_events.newest(user.pk) if since is None else since
    if not follow or not isinstance(request, ASGIRequest):
        return StreamingHttpResponse(_now(user.pk, start), content_type=NDJSON)
    slot = f"events-{uuid.uuid4().hex}"
    if not bot_tokens.stream_opened(user.pk, slot):
        raise HttpError(429, TOO_MANY.format(n=settings.API_STREAMS_PER_BOT))
    account_events.prune(user_id=user.pk)
    response = StreamingHttpResponse(_follow(user.pk, token.pk, start, slot), content_type=NDJSON)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front passes each line on at once
    return response


def _line(row):
    return json.dumps(account_events.as_message(row), separators=(",", ":")) + "\n"


def _now(user_id, since):
    """The settled events after `since`, then the end."""
    while True:
        rows, _held = account_events.read(user_id, since)
        for row in rows:
            since = row.pk
            yield _line(row)
        if len(rows) < account_events.READ_BATCH:
            return


class _Pushes:
    """The account's pushes on a channel of the stream's own. One receive is left running
    across waits: cancelling a channel layer's blocking read midway can lose the
    cancellation (redis/redis-py#2028)."""

    def __init__(self, user_id, token_id):
        self.layer = get_channel_layer()
        self.channel = None
        self.receiving = None
        self.groups = (
            account_events.group(user_id),
            bot_tokens.token_group(token_id),
            push.user_group(user_id),
        )
        self.who = f"event stream of account {user_id}"

    async def join(self):
        if self.layer is None:
            return
        channel = await self.layer.new_channel()
        if await push.join(self.layer, channel, self.groups, self.who):
            self.channel = channel

    async def next(self, timeout):
        """The next push's type, or None after `timeout` seconds (at most a second
        without a channel layer: the stream then polls)."""
        if self.channel is None:
            await asyncio.sleep(min(timeout, 1))
            return None
        if self.receiving is None:
            self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self.receiving}, timeout=timeout)
        if not done:
            return None
        message, self.receiving = self.receiving.result(), None
        return message.get("type")

    async def leave(self):
        if self.receiving is not None:
            self.receiving.cancel()
        if self.channel is not None:
            await push.leave(self.layer, self.channel, self.groups)


async def _follow(user_id, token_id, since, slot):
    """The events after `since`, then each new one, until the token may no longer follow
    or the client goes (Django cancels the iteration when the connection closes)."""
    pushes = _Pushes(user_id, token_id)
    await pushes.join()
    loop = asyncio.get_running_loop()
    try:
        sent_at = checked_at = loop.time()
        while True:
            rows, held = await database_sync_to_async(account_events.read)(user_id, since)
            for row in rows:
                since = row.pk
                yield _line(row)
            if rows:
                sent_at = loop.time()
            if len(rows) == account_events.READ_BATCH:
                continue
            # A push wakes the read; without one, the next check (or, while an event is held
            # back for an earlier one that may still commit, a moment).
            beat = heartbeat_seconds()
            kind = await pushes.next(
                HELD_RETRY if held else max(0.1, beat - (loop.time() - checked_at))
            )
            if kind == "token.revoked":
                return
            due = loop.time() - checked_at >= beat
            if (kind in ("access.changed", "session.ended") or due) and not await _may_go_on(
                user_id, token_id, slot, due
            ):
                return
            if due:
                checked_at = loop.time()
                if loop.time() - sent_at >= beat:
                    sent_at = loop.time()
                    yield "\n"
    finally:
        await pushes.leave()
        await database_sync_to_async(bot_tokens.stream_closed)(user_id, slot)


async def _may_go_on(user_id, token_id, slot, refresh):
    """The token may still follow (and, with `refresh`, the stream keeps its slot)."""
    if not await database_sync_to_async(account_events.may_follow)(token_id):
        return False
    return not refresh or await database_sync_to_async(bot_tokens.stream_alive)(user_id, slot)
