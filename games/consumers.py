"""The sockets: the game socket, one per open table page, and the site socket
(SiteConsumer, /ws/me/), one per open page of a logged-in user (at the end).

A socket joins exactly one game group: the group of the user's own seat, or
the public group when the table allows spectators. It never chooses a seat:
the seat comes from the session's user, and only a logged-in user may
listen (the table page asks for a log-in too). It receives its seat's
rendered fragments (games.effects) and may carry that seat's decisions,
which go through the seat door (games.act_frames, games.actions.seat_door) like a form
post; the write door
checks, under the game's lock, that the user still holds the seat.
It carries the table chat too (docs/chat.md): `chat` frames go to
games.actions.chat, and the chat lines pushed to its group are passed on
unless the person turned the chat off.

The user is read once, when the socket connects. So that an open socket
cannot outlive its right to listen, it checks again (`socket_access`)
whenever that may have changed: a push to the user's group (log-out,
password change, ban, suspension, a moderator taking the seat), a move the
write door refused because the seat is no longer the user's, and when the
session expires. It closes with one of the CLOSE_* codes, which the page
explains.
"""

import asyncio
import json
import logging
from importlib import import_module
from types import SimpleNamespace

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch
from django.conf import settings
from django.contrib import auth
from django.db import connection
from django.utils import timezone

from accounts import activity
from games import act_frames, push, signals
from games.actions import access, chat, presence, seat_door
from games.models import Game
from games.presenters import chat as chat_views
from games.presenters import mine
from games.push import local, redis_batch
from games.push.coalesce import Coalesced
from games.store import spectators

log = logging.getLogger(__name__)

# The longest message a page sends is a move: a few hundred characters.
MAX_MESSAGE = 16 * 1024
# Why a socket closes: the seat door's codes (games.actions.seat_door), which the page explains.
CLOSE_LOGGED_OUT = seat_door.CLOSE_LOGGED_OUT
CLOSE_FORBIDDEN = seat_door.CLOSE_FORBIDDEN
CLOSE_SEAT_LOST = seat_door.CLOSE_SEAT_LOST
CLOSE_RESTRICTED = seat_door.CLOSE_RESTRICTED
CLOSE_SERVER_ERROR = seat_door.CLOSE_SERVER_ERROR
# A session with no end in sight is still looked at again this often, in case its expiry
# was moved (a session is saved anew when it changes).
SESSION_RECHECK_SECONDS = 3600


def membership(user, game_id):
    """(group, reader) for this user at this game, or None if they may not listen: the
    seat's holder listens to its seat's group, a spectator to the public one
    (games.actions.access decides which)."""
    reader = access.person_at(user, game_id)
    if reader is None:
        return None
    if reader.seat is not None:
        return push.seat_group(game_id, reader.seat), reader
    return push.public_group(game_id), reader


def _session_store(session_key):
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key)


def account_access(user_id, session_key):
    """(user, None) while a socket of `user_id`, opened with the session `session_key`, may
    stay open as far as the account goes; otherwise (None, the code to close it with). Reads
    the account and the session as they are now."""
    user_model = auth.get_user_model()
    user = user_model.objects.filter(pk=user_id).first()
    if user is None or not user.is_active:
        return None, CLOSE_LOGGED_OUT
    if user.is_restricted:
        return None, CLOSE_RESTRICTED
    # Django's own check of a request's session: it is still there and unexpired, names
    # this user, and carries the hash of the user's current password.
    if (
        not session_key
        or auth.get_user(SimpleNamespace(session=_session_store(session_key))).pk != user.pk
    ):
        return None, CLOSE_LOGGED_OUT
    return user, None


def socket_access(user_id, session_key, game_id, seat):
    """None while a socket of `user_id`, opened with the session `session_key` and given
    `seat` (None: a spectator), may stay open; otherwise the code to close it with. Reads
    the account, the session and the seat as they are now."""
    user, code = account_access(user_id, session_key)
    if user is None:
        return code
    found = membership(user, game_id)
    if seat is not None and (found is None or found[1].seat != seat):
        return CLOSE_SEAT_LOST
    if found is None:
        return CLOSE_FORBIDDEN
    return None


def session_seconds_left(session_key):
    """Seconds until the session ends (0 if it has), or None when its store cannot say."""
    store = _session_store(session_key)
    model = getattr(store, "get_model_class", None)
    if model is None:
        return None
    expires = (
        model()
        .objects.filter(session_key=session_key)
        .values_list("expire_date", flat=True)
        .first()
    )
    return 0 if expires is None else max(0, (expires - timezone.now()).total_seconds())


def _last_seq(game_id):
    return Game.objects.filter(pk=game_id).values_list("last_seq", flat=True).first() or 0


# A handshake's database work in two trips to the sockets' one shared thread, not four: at a
# reconnect of every socket at once (Redis restarted) the trips of every handshake and every
# page's resync queue there (docs/load.md).
def _opening(user, game_id):
    """(group, reader, chat turned off) for this user at this game, or None (membership)."""
    found = membership(user, game_id)
    return None if found is None else (*found, chat_views.is_off(user.pk))


def _arrived(game_id, seat, user_id):
    """Counts the socket in (the seat's presence, or the spectators) and returns the game's
    last event number. Read once the socket is in its groups: an event committed before it
    is in the number (the page resyncs), one after it comes as a push; read before joining,
    an event committed in between came neither way."""
    if seat is not None:
        presence.seat_connected(game_id, seat)
    else:
        spectators.joined(game_id, user_id)
    return _last_seq(game_id)


def _chat(game_id, user, text, key):
    """A chat line, in a thread of its own for the reason _decide gives."""
    try:
        return chat.send(game_id, user, text, key)[0].pk
    finally:
        connection.close()


class CheckedSocket(AsyncJsonWebsocketConsumer):
    """What the sockets of a logged-in user share: they close when the right to listen
    ends. `access_code` (run in a thread) says whether it still holds; it is asked again
    when the session expires and on the `user-<id>` group's messages."""

    watcher = None
    closing = False  # closed by check_access: nothing more goes out, whatever is queued

    async def __call__(self, scope, receive, send):
        """Channels' own loop (AsyncConsumer.__call__) with the channel layer read through
        an inbox: a push made in this same process arrives there without a Redis round trip
        (games.push.local), and every other channel-layer message from the loop's one Redis
        reader (games.push.redis_batch.open_channel) instead of a receive loop of the
        socket's own (docs/load.md). Every message still goes through `dispatch`, one at a
        time."""
        layer = get_channel_layer(self.channel_layer_alias)
        if not redis_batch.batched(layer):
            await super().__call__(scope, receive, send)
            return
        self.scope, self.channel_layer, self.base_send = scope, layer, send
        # Its channel-layer messages come into the inbox too, from its loop's Redis reader.
        self.channel_name = redis_batch.open_channel(layer)
        inbox = local.open_inbox(self.channel_name, layer.capacity)
        try:
            await await_many_dispatch([receive, inbox.get], self.dispatch)
        except StopConsumer:
            pass
        finally:
            local.close_inbox(self.channel_name)
            redis_batch.close_channel(layer, self.channel_name)

    async def dispatch(self, message):
        """Channels' own dispatch without its trip to a thread, before every message, to
        close old database connections: these sockets reach the database only through
        database_sync_to_async, which closes them around each call itself, and the trip was
        paid by every push and every move."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def join(self, *groups):
        """Joins the socket's groups; False, with the socket closed as a server error (the
        page reconnects, as after `layer_lost`), when the layer's Redis is out of reach."""
        who = f"socket {self.scope['path']} of user {self.scope['user'].pk}"
        if await push.join(self.channel_layer, self.channel_name, groups, who):
            return True
        await self.accept()
        await self.close(code=CLOSE_SERVER_ERROR)
        return False

    def access_code(self):
        """None while the socket may stay open, else the code to close it with."""
        raise NotImplementedError

    @property
    def session_key(self):
        session = self.scope.get("session")
        return session.session_key if session is not None else None

    def watch(self):
        if self.session_key:
            self.watcher = asyncio.ensure_future(self.watch_session())

    def stop_watching(self):
        if self.watcher is not None:
            self.watcher.cancel()

    async def check_access(self):
        """Closes the socket if its user may no longer listen here; True if it did."""
        code = await database_sync_to_async(self.access_code)()
        if code is None:
            return False
        log.info(
            "socket %s of user %s closed (%s): it may no longer listen",
            self.scope["path"],
            self.scope["user"].pk,
            code,
            extra={"user": self.scope["user"].pk},
        )
        self.closing = True
        await self.close(code=code)
        return True

    async def watch_session(self):
        """Closes the socket when its session expires (a session may be extended meanwhile,
        so the end is read again each time)."""
        while True:
            left = await database_sync_to_async(session_seconds_left)(self.session_key)
            await asyncio.sleep(
                min(SESSION_RECHECK_SECONDS, left if left is not None else SESSION_RECHECK_SECONDS)
                + 1
            )
            if await self.check_access():
                return

    async def layer_lost(self, message):
        """This process lost Redis (games.push.redis_batch): the socket closes as a server
        error, which the page answers by reconnecting (static/js/table.js), so that it joins
        its groups again on the Redis that comes back and fetches what it missed."""
        await self.close(code=CLOSE_SERVER_ERROR)

    async def session_ended(self, message):
        await self.close(code=CLOSE_LOGGED_OUT)

    async def access_changed(self, message):
        await self.check_access()


class GameConsumer(CheckedSocket):
    group = None
    reader = None  # games.actions.access.Reader, as the rows stood when the socket connected
    seat = None
    game_id = None
    chat_off = False  # the person turned the chat off: chat pushes are dropped here

    async def connect(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        user = self.scope["user"]
        if not user.is_authenticated:
            log.info(
                "socket of game %s refused: not logged in",
                self.game_id,
                extra={"game": self.game_id},
            )
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        found = await database_sync_to_async(_opening)(user, self.game_id)
        if found is None:
            log.info(
                "socket of game %s refused to user %s",
                self.game_id,
                user.pk,
                extra={"game": self.game_id, "user": user.pk},
            )
            await self.close(code=CLOSE_FORBIDDEN)
            return
        group, self.reader, self.chat_off = found
        self.seat = self.reader.seat
        if not await self.join(group, push.user_group(user.pk)):
            return
        self.group = group
        await self.accept()
        last_seq = await database_sync_to_async(_arrived)(self.game_id, self.seat, user.pk)
        self.watch()
        # The page compares this with the number it shows and resyncs over HTTP if
        # anything happened between its rendering and this connection.
        await self.send_json({"type": "hello", "seq": last_seq, "seat": self.seat})

    async def disconnect(self, code):
        if self.group is None:
            return
        self.stop_watching()
        user = self.scope["user"]
        await push.leave(
            self.channel_layer, self.channel_name, (self.group, push.user_group(user.pk))
        )
        if self.seat is not None:
            await database_sync_to_async(presence.seat_disconnected)(self.game_id, self.seat)
        else:
            await database_sync_to_async(spectators.left)(self.game_id, user.pk)

    def access_code(self):
        return socket_access(self.scope["user"].pk, self.session_key, self.game_id, self.seat)

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
        except RecursionError:  # thousands of nested brackets: no move is shaped like that
            await self.error("That message is nested too deeply.")
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content, **kwargs):
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "sync":
            seq = await database_sync_to_async(_last_seq)(self.game_id)
            await self.send_json({"type": "hello", "seq": seq, "seat": self.seat})
            return
        if kind == "chat":
            await self.receive_chat(content)
            return
        if kind != "act":
            await self.error("That is not a message this table understands.")
            return
        await act_frames.act(self, self.reader, content)

    async def receive_chat(self, content):
        """`{"type": "chat", "text": ..., "key": ...}`: answered `chat_ok` with the line's id
        (the line itself comes as a push, like everyone else's), or `chat_error` with why."""
        key = content.get("key")
        try:
            message_id = await database_sync_to_async(_chat, thread_sensitive=False)(
                self.game_id, self.scope["user"], content.get("text"), key
            )
        except chat.ChatRefused as exc:
            await self.send_json(
                {
                    "type": "chat_error",
                    "message": str(exc),
                    "key": key if isinstance(key, str) else None,
                }
            )
            return
        await self.send_json({"type": "chat_ok", "id": message_id, "key": key})

    async def error(self, message):
        await self.send_json(seat_door.error_frame(message, None))

    async def game_fragments(self, message):
        if self.closing:
            return
        if self.seat is not None and message.get("holder") != self.scope["user"].pk:
            # Rendered for whoever holds the seat now, and that is no longer this socket's
            # user (the lobby moved them, a moderator took the seat): nothing of it goes out,
            # and the socket checks its access, which closes it.
            await self.check_access()
            return
        await self.send_json(
            {
                "type": "fragments",
                "seq": message["seq"],
                "html": message["html"],
                # What the page must already hold for the push to be whole (games.push.changes).
                "log_after": message.get("log_after", 0),
                "keep": message.get("keep") or {},
                "append": message.get("append") or {},
            }
        )

    async def chat_push(self, message):
        """A chat line or a hidden line for this socket's group (games.actions.chat chose the
        groups that may read it), or the person's own chat switch (their user group)."""
        if self.closing:
            return
        if message["type"] == "chat.setting":
            self.chat_off = message["off"]
            await self.send_json({"type": "chat_setting", "off": self.chat_off})
        elif self.chat_off:
            return
        elif message["type"] == "chat.message":
            await self.send_json(
                {
                    "type": "chat",
                    "id": message["id"],
                    "room": message["room"],
                    "author": message["author"],
                    "html": message["html"],
                }
            )
        else:
            await self.send_json({"type": "chat_hidden", "id": message["id"]})

    chat_message = chat_hidden = chat_setting = chat_push


class SiteConsumer(CheckedSocket):
    """The site socket (/ws/me/), opened by every page of a logged-in user
    (static/js/site.js): the games waiting on the user, kept live, and the page's heartbeat.

    It joins `waiting-<id>`, which games.effects tells after each event of a game the user
    sits at, and `user-<id>` (log-out, access changes), as the game socket does. On
    `waiting.changed` it reads the user's waiting games again (games.presenters.mine) and
    sends them only if they changed; it never sends anything but the user's own games.
    Connecting and every `{"type": "here"}` say the player is on the site
    (accounts.activity.seen), so no "your turn" email goes to someone who is here.
    """

    joined = False
    last = None  # the last message sent
    refresh = None  # reads and sends the waiting games again (push.coalesce)
    search = None  # the Find a game search this page holds, from its heartbeat

    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        if user.is_restricted:
            log.info("site socket refused to user %s: restricted", user.pk, extra={"user": user.pk})
            await self.close(code=CLOSE_RESTRICTED)
            return
        self.refresh = Coalesced(self.send_waiting, f"the waiting games of user {user.pk}")
        if not await self.join(push.waiting_group(user.pk), push.user_group(user.pk)):
            return
        self.joined = True
        await self.accept()
        await database_sync_to_async(activity.seen)(user.pk)
        self.watch()
        # What the page was rendered with may be old already: the page compares.
        await self.send_waiting()

    async def disconnect(self, code):
        if not self.joined:
            return
        self.stop_watching()
        self.refresh.cancel()
        user = self.scope["user"]
        await push.leave(
            self.channel_layer,
            self.channel_name,
            (push.waiting_group(user.pk), push.user_group(user.pk)),
        )
        if self.search is not None:
            await database_sync_to_async(signals.site_page_closed.send)(
                sender=SiteConsumer, user_id=user.pk, search=self.search
            )

    def access_code(self):
        return account_access(self.scope["user"].pk, self.session_key)[1]

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """The page sends only its heartbeat; anything else is ignored, never a server error."""
        if text_data is None or len(text_data) > 1024:
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):
            return
        if isinstance(content, dict) and content.get("type") == "here":
            await database_sync_to_async(activity.seen)(self.scope["user"].pk)
            await self.page_here(content)

    async def page_here(self, content):
        """A find page's heartbeat names its search (docs/matchmaking.md): the lobby keeps
        it alive through games.signals, and is told when this socket closes."""
        search = content.get("search")
        if not isinstance(search, int) or isinstance(search, bool):
            return
        self.search = search
        await database_sync_to_async(signals.site_page_here.send)(
            sender=SiteConsumer,
            user_id=self.scope["user"].pk,
            search=search,
            hidden=content.get("hidden") is True,
        )
        await self.send_found()

    async def send_found(self):
        """Sends the find page to its table once its search is found (the lobby answers
        games.signals.find_page_asks with the table's URL)."""
        answers = await database_sync_to_async(signals.find_page_asks.send)(
            sender=SiteConsumer, user_id=self.scope["user"].pk, search=self.search
        )
        url = next((url for _, url in answers if url), None)
        if url is not None:
            await self.send_json({"type": "found", "url": url, "search": self.search})

    async def waiting_changed(self, message):
        # Every event of every game of the user comes here: read at most once at a time.
        self.refresh()
        if self.search is not None:
            # The deal of the table Find a game seated this page's user at is one of them.
            await self.send_found()

    async def send_waiting(self):
        message = await database_sync_to_async(mine.socket_message)(self.scope["user"])
        if message != self.last:
            self.last = message
            await self.send_json(message)

    async def access_changed(self, message):
        # A moderator may have taken a seat: the games are read again if the socket stays.
        if not await self.check_access():
            self.refresh()

    async def review_progress(self, message):
        """How far the review of one of the user's finished games is (games.actions.review):
        counts and a status only, sent to the user's own site sockets; the replay's review
        box reads the rest over HTTP (static/js/site.js passes it on as a
        `review-progress` event on <body>)."""
        if self.closing:
            return
        await self.send_json(
            {
                "type": "review",
                **{key: message[key] for key in ("game", "seat", "done", "total", "status")},
            }
        )
