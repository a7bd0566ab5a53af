"""The Bot API's stream: a websocket at /api/bot/games/<id>/stream that tells a bot account's
program what its seat sees each time the game moves, so that it need not poll
(docs/bot-accounts.md).

It is the game socket (games.consumers.GameConsumer) for a program: it listens to its seat's
program group (games.push.program_group), and only to it, so it hears exactly when that
seat's page would. What it is pushed and sends is never a page's HTML but the seat's state,
games.presenters.bot_view.seat_state: the same JSON as GET /api/bot/games/<id>, which holds
the engine's view(seat) and legal actions and nothing else, made by the push from the state
the write has just committed (games.effects.seat_pushes).

Access is a bot token in the handshake's `Authorization: Bearer` header, checked like the
HTTP API's (accounts.bot_tokens.authenticate), and who may listen is the one rule of
games.actions.access; its decisions go through the seat door (games.actions.seat_door),
as the table socket's do. A state it reads itself (on connecting, and every
RECHECK_SECONDS) is read in the same statement as the check that the bot still holds the
seat, and a pushed state made for another holder is dropped, so a stream let in earlier
never reads a seat that changed hands. It is also checked again,
so that an open stream closes once its right to listen ends: at once when the token is
revoked (a push to the token's group), when the account's access changes (its user group:
a ban, a moderator taking the seat), when the lobby changes who holds its seat (the seat's
group), after a decision the write door refused because the seat is no longer the bot's,
and every RECHECK_SECONDS in any case. A refused handshake is accepted and then
closed with its code, so that a program sees why (an unaccepted one reaches it as a bare
HTTP 403); every close is preceded by a `closing` frame with the code and the reason in
words (CLOSE_REASONS).
"""

import asyncio
import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import transaction

from accounts import bot_tokens
from games import act_frames, push
from games.actions import access, decisions, presence, seat_door
from games.models import Game
from games.presenters.bot_view import seat_state
from games.push.coalesce import Coalesced

log = logging.getLogger(__name__)

# Why a stream closes: the seat door's codes (games.actions.seat_door).
CLOSE_BAD_TOKEN = seat_door.CLOSE_BAD_TOKEN
CLOSE_NO_SEAT = seat_door.CLOSE_NO_SEAT
CLOSE_SEAT_LOST = seat_door.CLOSE_SEAT_LOST
CLOSE_TOO_MANY = seat_door.CLOSE_TOO_MANY
CLOSE_SERVER_ERROR = seat_door.CLOSE_SERVER_ERROR
MAX_MESSAGE = 16 * 1024  # as the game socket: a decision is a few hundred characters

CLOSE_REASONS = seat_door.CLOSE_REASONS


def stream_access(raw, game_id, seat=None):
    """(reader, token id, None) while a stream with token `raw` may listen at `game_id` (for
    `seat`, once it has one), else (None, None, the close code). Reads the token, the
    account and the seat as they are now; who may listen is games.actions.access's rule for
    a program."""
    found = bot_tokens.authenticate(raw) if raw else None
    if found is None:
        return None, None, CLOSE_BAD_TOKEN
    user, token = found
    reader = access.program_at(user, game_id)
    if reader is None:
        return None, None, CLOSE_NO_SEAT if seat is None else CLOSE_SEAT_LOST
    if seat is not None and reader.seat != seat:
        return None, None, CLOSE_SEAT_LOST
    return reader, token.pk, None


def read_state(game_id, seat, user_id):
    """The seat's state now, or None if `user_id` no longer holds the seat: the game row,
    its snapshot and the check of the seat's holder in one statement, so that the state,
    its `seq` and the right to read it agree."""
    with transaction.atomic():
        game = access.seat_with_game(user_id, game_id, seat)
        return None if game is None else seat_state(game, seat)


class BotStreamConsumer(AsyncJsonWebsocketConsumer):
    reader = None  # games.actions.access.Reader, as the rows stood when the stream connected
    user = None
    token_id = None
    seat = None
    game_id = None
    sent_seq = -1  # the seq of the last state sent: only newer ones go out
    present = False  # told games.actions.presence that the seat has a socket
    refresh = None  # reads and sends the seat's state again (push.coalesce)
    watcher = None
    groups_joined = ()
    closing = False  # closed for a lost right to listen: nothing more goes out
    registered = False  # counted among the account's open streams

    async def connect(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.raw = bot_tokens.bearer(self.scope)
        reader, token_id, code = await database_sync_to_async(stream_access)(self.raw, self.game_id)
        await self.accept()
        if code is not None:
            log.info(
                "bot stream of game %s refused (%s)",
                self.game_id,
                code,
                extra={"game": self.game_id},
            )
            await self.close_for(code)
            return
        self.reader, self.token_id = reader, token_id
        self.user, self.seat = user, seat = reader.user, reader.seat
        # Open streams are counted per account (accounts.bot_tokens), across its tokens.
        if not await database_sync_to_async(bot_tokens.stream_opened)(user.pk, self.channel_name):
            await self.close_for(CLOSE_TOO_MANY)
            return
        self.registered = True
        self.refresh = Coalesced(self.send_state, f"game {self.game_id} for its bot stream")
        groups = (
            push.program_group(self.game_id, seat),
            bot_tokens.token_group(token_id),
            push.user_group(user.pk),
        )
        who = f"bot stream of game {self.game_id} seat {seat}"
        if not await push.join(self.channel_layer, self.channel_name, groups, who):
            await self.close_for(CLOSE_SERVER_ERROR)
            return
        self.groups_joined = groups
        self.watcher = asyncio.ensure_future(self.watch())
        await self.send_state()

    async def disconnect(self, code):
        if self.watcher is not None:
            self.watcher.cancel()
        if self.refresh is not None:
            self.refresh.cancel()
        await push.leave(self.channel_layer, self.channel_name, self.groups_joined)
        if self.present:
            await database_sync_to_async(presence.seat_disconnected)(self.game_id, self.seat)
        if self.registered:
            await database_sync_to_async(bot_tokens.stream_closed)(self.user.pk, self.channel_name)

    async def check_access(self):
        """Closes the stream if its token or seat no longer lets it listen; True if it did."""
        *_, code = await database_sync_to_async(stream_access)(self.raw, self.game_id, self.seat)
        if code is None:
            return False
        await self.close_for(code)
        return True

    async def close_for(self, code):
        """Closes the stream with `code`, saying why first (a `closing` frame, which old
        programs pass over as a message of a type they do not know); nothing goes out
        after it."""
        if self.closing:
            return
        self.closing = True
        frame = seat_door.closing_frame(code)
        await self.send_json(frame)
        await self.close(code=code, reason=frame["reason"])

    async def watch(self):
        """Checks access every RECHECK_SECONDS, and catches up on a push it may have missed
        (a Redis restart): the state goes out only if its seq is newer."""
        try:
            while True:
                await asyncio.sleep(bot_tokens.stream_recheck_seconds())
                if await self.check_access():
                    return
                if not await database_sync_to_async(bot_tokens.stream_alive)(
                    self.user.pk, self.channel_name
                ):
                    await self.close_for(CLOSE_TOO_MANY)
                    return
                self.refresh()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot stream of game %s seat %s stopped checking", self.game_id, self.seat)
            await self.close_for(CLOSE_BAD_TOKEN)

    async def dispatch(self, message):
        kind = message["type"]
        if self.closing:
            return
        if kind == "game.state":
            # The game moved: the seat's state, made for whoever holds the seat now. One
            # made for another holder goes nowhere, and the stream checks its access.
            if message.get("holder") != self.user.pk:
                await self.check_access()
                return
            await self.send_newer(message["state"])
            return
        if kind == "token.revoked":
            await self.close_for(CLOSE_BAD_TOKEN)
            return
        if kind in ("access.changed", "session.ended"):
            await self.check_access()
            return
        if kind.startswith("chat."):
            return  # the table's chat is for people; a stream carries no chat
        await super().dispatch(message)

    async def send_state(self):
        """Reads the seat's state (with the check that the seat is still the bot's) and
        sends it if it is newer than the last one sent."""
        if self.closing:
            return
        state = await database_sync_to_async(read_state)(self.game_id, self.seat, self.user.pk)
        if state is None:
            await self.close_for(CLOSE_SEAT_LOST)
            return
        await self.send_newer(state)

    async def send_newer(self, state):
        if self.closing or state["seq"] <= self.sent_seq:
            return
        self.sent_seq = state["seq"]
        if state["status"] == Game.Status.ACTIVE and not self.present:
            # A program's stream counts as the seat's presence, as a person's page does: a
            # stream that drops in real time has the seat held, then played by a stand-in.
            self.present = True
            await database_sync_to_async(presence.seat_connected)(self.game_id, self.seat)
        await self.send_json({"type": "state", **state})

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if text_data is None or len(text_data) > MAX_MESSAGE:
            await self.error("This stream only understands short text messages.")
            return
        try:
            content = await self.decode_json(text_data)
        except (ValueError, RecursionError):
            await self.error("That message is not JSON.")
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs):
        """`{"type": "act", "action": ..., "key": ..., "seq": n?}`: a decision, as POST
        /api/bot/games/<id>/decisions, `seq` included; answered `ok` with its seq and
        `replayed`, or `error`."""
        if not isinstance(content, dict) or content.get("type") != "act":
            await self.error("The stream understands only act messages.")
            return
        # Each act frame counts against the account's requests as an HTTP request does.
        wait = await database_sync_to_async(bot_tokens.charge)(self.user.pk)
        if wait:
            await self.error(
                f"Too many requests for this bot account: try again in {wait} seconds.",
                key=content.get("key"),
            )
            return
        refused = await act_frames.act(self, self.reader, content)
        if isinstance(refused, decisions.DecisionNotSaved):
            # The server's failure: the program sends the same key again, at no cost.
            await database_sync_to_async(bot_tokens.refund)(self.user.pk)

    async def error(self, message, key=None):
        await self.send_json(seat_door.error_frame(message, key))
