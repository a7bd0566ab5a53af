"""Pushes each open page of a game its own seat's new fragments after a commit.

`game_changed` runs after the transaction that recorded an event commits
(`transaction.on_commit`). It renders the table once per seat played by a
person (and once for spectators when the table allows them) from that seat's
`view()` and `events_for()` alone, and sends each rendering only to that
seat's group. A bot's seat gets nothing: nobody can listen there. Nor does a
group with no socket in it (a player without the page open, a table nobody
watches): the group members are read first, and only open groups rendered.

Speed (issue 5, docs/table.md): the writer hands over the game row and the
state it has just recorded, so a push reads only the seats and the last
LOG_LENGTH event rows (two queries); the parts that are the same for every
seat (card faces, the discard pile) are cached markup, and what differs per
seat still comes from that seat's `view()`/`events_for()` only. Sends go
through one long-lived event loop per process, so its Redis connections are
reused instead of opened again by `async_to_sync` for every push.
"""

import asyncio
import logging
import os
import threading
import time
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

try:
    from channels_redis.core import RedisChannelLayer
except ImportError:  # pragma: no cover - the embedded site has no Redis
    RedisChannelLayer = ()

log = logging.getLogger(__name__)


def seat_group(game_id, seat):
    return f"game-{game_id}-seat-{seat}"


def public_group(game_id):
    return f"game-{game_id}-public"


def user_group(user_id):
    """Every socket of one user, so that logging out can close them all."""
    return f"user-{user_id}"


def lobby_group():
    return "lobby"


def seat_pushes(game_id, *, game=None, state=None, listening=None):
    """[(group, message)] for the game's current state: one rendering per listening seat.

    The message's `seq` is the last event the rendering includes, so a page
    that sees a number it did not expect resyncs over HTTP. `game` and `state`
    (both or neither) are the row and state the writer has just committed;
    without them both are read again. `listening(groups)`, when given, says which
    of the groups have a socket in them (None: it cannot tell); only those are
    rendered, so a seat whose player has no page open costs nothing.
    """
    from games import services, store, views
    from games.models import Game

    if game is None or state is None:
        game = Game.objects.select_related("snapshot").get(pk=game_id)
        state = services.load_state(game)
    seats = store.table_seats(game_id)
    rows = store.recent_events(game_id, views.LOG_LENGTH)
    listeners = [(seat_group(game_id, s.number), s.number) for s in seats if s.user_id]
    if game.spectators and not game.private:
        listeners.append((public_group(game_id), None))
    if listening is not None:
        open_groups = listening([group for group, _ in listeners])
        if open_groups is not None:
            listeners = [(group, seat) for group, seat in listeners if group in open_groups]
    pushes = []
    for group, seat in listeners:
        context = views.table_context(game, seat, state=state, rows=rows, seats=seats)
        html = views.render_fragments(context)
        pushes.append((group, {"type": "game.fragments", "seq": game.last_seq, "html": html}))
    return pushes


def game_changed(game_id, players, seq, game=None, state=None):
    layer = get_channel_layer()
    if layer is None:
        return
    members = {}
    try:
        pushes = seat_pushes(game_id, game=game, state=state,
                             listening=lambda groups: _listening(layer, groups, members))
        if pushes:
            _deliver(layer, pushes, members or None)
    except Exception:
        # The event is committed; a page that missed this resyncs over HTTP.
        log.exception("could not notify game %s of event %s", game_id, seq)


def session_ended(sender, request, user, **kwargs):
    """Receiver of `user_logged_out`: an open socket keeps its user otherwise (channels#1324)."""
    layer = get_channel_layer()
    if layer is None or user is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user.pk), {"type": "session.ended"})
    except Exception:
        log.exception("could not close the sockets of user %s", user.pk)


def access_changed(user_id):
    """Tells the open sockets of `user_id` to check whether they may still listen
    (consumers.socket_access): the account, its sessions or its seats changed."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": "access.changed"})
    except Exception:
        log.exception("could not tell the sockets of user %s to check their access", user_id)


# Saving these fields can end a user's sessions (a new password) or right to play.
ACCESS_FIELDS = frozenset({"password", "is_active", "banned_at", "suspended_until"})


def account_saved(sender, instance, created, update_fields=None, **kwargs):
    """Receiver of the user model's post_save: a save that may have changed what the
    account's open sockets are allowed asks them to check, once the save is committed."""
    if created or (update_fields is not None and not ACCESS_FIELDS & set(update_fields)):
        return
    transaction.on_commit(partial(access_changed, instance.pk))


def _listening(layer, groups, members):
    """The groups (of `groups`) with a socket in them, or None when the layer cannot tell
    cheaply (several Redis hosts). With one Redis host the members read here are kept in
    `members` for the send, which then need not read them again: still two round trips."""
    if isinstance(layer, InMemoryChannelLayer):
        return {group for group in groups if layer.groups.get(group)}
    if isinstance(layer, RedisChannelLayer) and layer.ring_size == 1:
        members.update(asyncio.run_coroutine_threadsafe(
            _group_members(layer, groups), _sender_loop()).result(timeout=10))
        return {group for group, channels in members.items() if channels}
    return None


async def _group_members(layer, groups):
    """{group: [channel]} in one pipeline, as channels-redis's group_send reads them."""
    now = int(time.time())
    pipe = layer.connection(0).pipeline(transaction=False)
    for group in groups:
        key = layer._group_key(group)
        pipe.zremrangebyscore(key, min=0, max=now - layer.group_expiry)
        pipe.zrange(key, 0, -1)
    replies = await pipe.execute()
    return {group: [m.decode("utf8") for m in found]
            for group, found in zip(groups, replies[1::2])}


async def _send_all(layer, pushes, members=None):
    if isinstance(layer, RedisChannelLayer) and layer.ring_size == 1:
        await _group_send_batch(layer, pushes, members)
        return
    await asyncio.gather(*(layer.group_send(group, message) for group, message in pushes))


# channels-redis's group_send, for several groups at once in two round trips instead of four
# per group (docs/load.md): read every group's members in one pipeline, then drop expired
# messages and add each member's own message in one script call. Each group still gets only
# its own message; a Redis key (one per Daphne process) that serves several groups gets
# one message per group. Several Redis hosts (sharding) keep channels-redis's own sends.
_BATCH_LUA = """
local n = #KEYS
local current_time = ARGV[2 * n + 1]
local expiry = ARGV[2 * n + 2]
local stale = ARGV[2 * n + 3]
local over = 0
for i = 1, n do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, stale)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[n + i]) then
        redis.call('ZADD', KEYS[i], current_time, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over = over + 1
    end
end
return over
"""
_batch_script = None  # registered once; called with each loop's own connection (EVALSHA)


async def _group_send_batch(layer, pushes, members=None):
    """`members`: {group: [channel]} already read (`_listening`); read here otherwise."""
    global _batch_script
    connection = layer.connection(0)
    now = int(time.time())
    if members is None:
        members = await _group_members(layer, [group for group, _ in pushes])
    keys, messages, capacities = [], [], []
    for group, message in pushes:
        channels = members.get(group, [])
        _connections, by_key, capacity = layer._map_channel_keys_to_connection(channels, message)
        for key, payload in by_key.items():
            keys.append(key)
            messages.append(payload)
            capacities.append(capacity[key])
    if not keys:
        return
    if _batch_script is None:
        _batch_script = connection.register_script(_BATCH_LUA)
    over = await _batch_script(
        keys=keys, args=[*messages, *capacities, time.time(), layer.expiry, now - int(layer.expiry)],
        client=connection,
    )
    if over:
        log.info("%s of %s pushes over capacity", over, len(keys))


_sender = None  # (pid, loop): one sending loop per process, made again after a fork (Celery)
_sender_lock = threading.Lock()


def _sender_loop():
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="notify-sender", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]


def _deliver(layer, pushes, members=None):
    """Sends all pushes in one trip into an event loop and waits until Redis has them."""
    if isinstance(layer, InMemoryChannelLayer):
        # Its queues belong to the loop of whoever listens (tests): send from there.
        async_to_sync(_send_all)(layer, pushes)
        return
    asyncio.run_coroutine_threadsafe(
        _send_all(layer, pushes, members), _sender_loop()).result(timeout=10)
