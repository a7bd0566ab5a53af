"""The game websocket: one per open table page.

A socket joins exactly one game group: the group of the user's own seat, or
the public group when the table allows spectators. It never chooses a seat:
the seat comes from the session's user. It receives its seat's rendered
fragments (games.notify) and may carry that seat's decisions, which go
through services.apply_decision like a form post.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import connection

from games import notify, services, spectators
from games.models import Game, GameEvent
from games.views import clean_action

try:  # issue 6 adds presence; the socket works the same without it
    from games import presence
except ImportError:  # pragma: no cover
    presence = None

# The longest message a page sends is a move: a few hundred characters.
MAX_MESSAGE = 16 * 1024
CLOSE_FORBIDDEN = 4403
CLOSE_LOGGED_OUT = 4401


def membership(user, game_id):
    """(group, seat, last_seq) for this user at this game, or None if they may not listen."""
    game = Game.objects.filter(pk=game_id).exclude(status=Game.Status.OPEN).first()
    if game is None:
        return None
    if user.is_authenticated:
        number = game.seats.filter(user=user).values_list("number", flat=True).first()
        if number is not None:
            return notify.seat_group(game_id, number), number, game.last_seq
    if game.spectators and not game.private:
        return notify.public_group(game_id), None, game.last_seq
    return None


def _last_seq(game_id):
    return Game.objects.filter(pk=game_id).values_list("last_seq", flat=True).first() or 0


def _decide(game_id, seat, action, user, key):
    """Runs in a thread of its own (thread_sensitive=False below), which then goes back to
    the executor: its connection goes back to the pool here, whatever wraps the call.
    channels closes it after the call too, except under its own test communicator, which
    turns that off; a socket test then kept one pooled connection per move thread until
    the pool (DATABASE_POOL_SIZE) ran dry and moves waited 20 s for a connection."""
    try:
        result = services.apply_decision(
            game_id, seat, action, GameEvent.Actor.PERSON, user=user,
            idempotency_key=f"u{user.pk}-{key}",
        )
        return result.event.seq
    finally:
        connection.close()


class GameConsumer(AsyncJsonWebsocketConsumer):
    group = None
    seat = None
    game_id = None

    async def connect(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        user = self.scope["user"]
        found = await database_sync_to_async(membership)(user, self.game_id)
        if found is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group, self.seat, last_seq = found
        await self.channel_layer.group_add(self.group, self.channel_name)
        if user.is_authenticated:
            await self.channel_layer.group_add(notify.user_group(user.pk), self.channel_name)
        await self.accept()
        if presence is not None and self.seat is not None:
            await database_sync_to_async(presence.seat_connected)(self.game_id, self.seat)
        if self.seat is None:
            await database_sync_to_async(spectators.joined)(self.game_id)
        # The page compares this with the number it shows and resyncs over HTTP if
        # anything happened between its rendering and this connection.
        await self.send_json({"type": "hello", "seq": last_seq, "seat": self.seat})

    async def disconnect(self, code):
        if self.group is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        user = self.scope["user"]
        if user.is_authenticated:
            await self.channel_layer.group_discard(notify.user_group(user.pk), self.channel_name)
        if presence is not None and self.seat is not None:
            await database_sync_to_async(presence.seat_disconnected)(self.game_id, self.seat)
        if self.seat is None:
            await database_sync_to_async(spectators.left)(self.game_id)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """Every frame gets an answer: one that is not a JSON message gets an error frame
        instead of ending the socket with a server error (docs/security.md)."""
        if text_data is None:
            await self.error("This table only understands text messages.")
            return
        if len(text_data) > MAX_MESSAGE:
            await self.error("That message is too long.")
            return
        try:
            content = await self.decode_json(text_data)
        except ValueError:
            await self.error("That message is not JSON.")
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "sync":
            seq = await database_sync_to_async(_last_seq)(self.game_id)
            await self.send_json({"type": "hello", "seq": seq, "seat": self.seat})
            return
        if kind != "act":
            await self.error("That is not a message this table understands.")
            return
        if self.seat is None:
            await self.error("Spectators cannot play.")
            return
        if "seat" in content and content["seat"] != self.seat:
            await self.error("You can only make moves for your own seat.")
            return
        action, key = content.get("action"), content.get("key")
        if not isinstance(key, str) or not 0 < len(key) <= 40 or not key.isprintable():
            await self.error("Every move needs its key (up to 40 characters).")
            return
        action = clean_action(action)
        if action is None:
            await self.error("That is not a move.", key=key)
            return
        try:
            # Not thread-sensitive: each move takes a thread (and a pooled connection) of its
            # own, so one process applies several at once instead of queueing every socket's
            # moves behind one thread (docs/load.md). apply_decision is one transaction.
            seq = await database_sync_to_async(_decide, thread_sensitive=False)(
                self.game_id, self.seat, action, self.scope["user"], key
            )
        except services.DecisionRefused as exc:
            await self.error(str(exc), key=key)
            return
        await self.send_json({"type": "ok", "seq": seq, "key": key})

    async def error(self, message, key=None):
        await self.send_json({"type": "error", "message": message, "key": key})

    async def dispatch(self, message):
        # A push is relayed as it came, with no database: it skips channels' thread trip to
        # close old connections before each message (four per move at a table of four).
        if message["type"] == "game.fragments":
            await self.game_fragments(message)
            return
        await super().dispatch(message)

    async def game_fragments(self, message):
        await self.send_json({"type": "fragments", "seq": message["seq"], "html": message["html"]})

    async def session_ended(self, message):
        await self.close(code=CLOSE_LOGGED_OUT)
