"""channels-redis's group_send for many groups at once, and the site sockets' receiving: the
one place that uses its internals (`_group_key`, `_map_channel_keys_to_connection`, the
groups' sorted sets, a process's Redis key for its "specific" channels and the message's
`__asgi_channel__`).

A push to a table sends a different message to each seat's group. channels-redis's own
`group_send` costs four round trips per group; here every group's members are read by one
script call, then expired messages are dropped and each member's own message added by
another: two round trips in all (docs/load.md). Each group still gets only its own
message; a Redis key (one per Daphne process) that serves several groups gets one message
per group; a member socket that this same process holds gets its message from
games.push.local instead. Several Redis hosts (sharding), or hosts given without an
address (Sentinel), keep channels-redis's own sends. The tests of this module run it beside
channels-redis's own `group_send` on a real Redis, so an upgrade that changes those
internals fails there first.

Both calls are synchronous, on a redis-py client of this module's own: a push is made in
the thread that committed the move, and handing each call to an event loop and waiting
there for its answer cost more than the call itself (docs/load.md).

Receiving (`open_channel`): channels-redis gives each socket a receive loop of its own on
the process's one Redis key, and every message read that way costs four Redis commands (a
clean-up script, the pop, and a backup copy made and removed, so that a socket's cancelled
read loses nobody's message) and a lock and two tasks per socket. The site's sockets
(games.consumers.CheckedSocket) instead take channel names under a key of their event
loop's own, which one reader per loop pops (one command a message) and hands to each
socket's inbox (games.push.local). The reader is never cancelled while a socket of its loop
is open, so the backup copy has nothing to protect; it stops with the loop's last socket
(at the end of its current wait: redis-py's blocking read does not always end when its task
is cancelled), when what is still on its key has no socket left anyway.
"""

import asyncio
import itertools
import logging
import os
import threading
import time
import uuid
from typing import Any

import redis
import redis.asyncio as aioredis

from games.push import changes, local

try:
    from channels_redis.core import RedisChannelLayer
except ImportError:  # pragma: no cover - the embedded site has no Redis
    RedisChannelLayer = ()

log = logging.getLogger(__name__)


def batched(layer):
    """Whether `layer` is a channels-redis layer on one Redis host given by its address (the
    batched path)."""
    return (
        isinstance(layer, RedisChannelLayer)
        and layer.ring_size == 1
        and "address" in layer.hosts[0]
    )


_MEMBERS_LUA = """
local found = {}
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, ARGV[1])
    found[i] = redis.call('ZRANGE', KEYS[i], 0, -1)
end
return found
"""

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


# A push's memory (SharedMemory) kept only if no push of a later event was kept first. The
# value is "<event number>|<the push as JSON>", so that the number is read without the rest.
_REMEMBER_LUA = """
local old = redis.call('GET', KEYS[1])
if old then
    local seq = tonumber(string.match(old, '^(%d+)|'))
    if seq and seq >= tonumber(ARGV[1]) then
        return 0
    end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'EX', ARGV[3])
return 1
"""


def _connect(client_class, layer):
    """A client of `client_class` (redis-py's, or its asyncio one) for the layer's host, with
    the host's options (socket_timeout...) as channels-redis would use them."""
    host = layer.hosts[0]
    options = {name: value for name, value in host.items() if name != "address"}
    return client_class.from_url(host["address"], **options)


_clients: dict[
    tuple[int, str], tuple[Any, Any, Any, Any]
] = {}  # (pid, the host's settings) -> (client, members, batch and remember scripts)
_clients_lock = threading.Lock()


def _client(layer):
    """This process's redis-py client of the layer's host, with the scripts registered:
    one per process and host (made again after a fork), its pool shared by the threads that
    push."""
    host = layer.hosts[0]
    key = (os.getpid(), tuple(sorted((name, repr(value)) for name, value in host.items())))
    found = _clients.get(key)
    if found is None:
        with _clients_lock:
            found = _clients.get(key)
            if found is None:
                client = _connect(redis.Redis, layer)
                found = _clients[key] = (
                    client,
                    client.register_script(_MEMBERS_LUA),
                    client.register_script(_BATCH_LUA),
                    client.register_script(_REMEMBER_LUA),
                )
    return found


def group_members(layer, groups):
    """{group: [channel]} as channels-redis's group_send reads them (expired members
    dropped first), in one script call: a push reads a table's seat groups and its people's
    site-socket groups, and a pipeline of two commands per group cost the client more to
    pack and parse than the one call."""
    if not groups:
        return {}
    client, members_script, _, _ = _client(layer)
    replies = members_script(
        keys=[layer._group_key(group) for group in groups],
        args=[int(time.time()) - layer.group_expiry],
        client=client,
    )
    return {
        group: [m.decode("utf8") for m in found]
        for group, found in zip(groups, replies, strict=True)
    }


def group_send_batch(layer, pushes, members=None):
    """Sends each (group, message) of `pushes` to its group's members. `members`: {group:
    [channel]} already read (games.push.listening); read here otherwise."""
    now = int(time.time())
    if members is None:
        members = group_members(layer, [group for group, _ in pushes])
    keys, messages, capacities = [], [], []
    for group, message in pushes:
        # The sockets this process holds get theirs without a trip through Redis.
        channels = local.hand_over(members.get(group, []), message)
        _connections, by_key, capacity = layer._map_channel_keys_to_connection(channels, message)
        for key, payload in by_key.items():
            keys.append(key)
            messages.append(payload)
            capacities.append(capacity[key])
    if not keys:
        return
    client, _, batch_script, _ = _client(layer)
    over = batch_script(
        keys=keys,
        args=[*messages, *capacities, time.time(), layer.expiry, now - int(layer.expiry)],
        client=client,
    )
    if over:
        log.info("%s of %s pushes over capacity", over, len(keys))


class SharedMemory:
    """The pushes of every process of the site, in the layer's Redis (games.push.changes):
    one key per game, under the site's cache prefix (CACHE_KEY_PREFIX, which every process
    of one site shares and no other site or test run does), kept a day after the game's last
    push (a turn-by-turn game's next push may come a day or more later: it is sent whole)."""

    KEPT = 24 * 3600

    def __init__(self, layer, prefix):
        self.layer = layer
        self.prefix = f"{prefix}:pushed:"

    def previous(self, game_id, seq):
        client = _client(self.layer)[0]
        found = client.get(f"{self.prefix}{game_id}")
        if found is None:
            return None
        number, _, text = found.partition(b"|")
        if int(number) >= seq:
            return None
        return changes.Pushed.loads(int(number), text)

    def remember(self, game_id, pushed):
        client, _, _, remember_script = _client(self.layer)
        remember_script(
            keys=[f"{self.prefix}{game_id}"],
            args=[pushed.seq, pushed.dumps(), self.KEPT],
            client=client,
        )


# --- receiving --------------------------------------------------------------------------------

# How long one pop waits on an idle key before it asks again: well under the host's
# socket_timeout (config/settings.py), so that a quiet process reads no time-out, and the
# longest a reader outlives the last socket of its loop.
READ_WAIT = 2
_readers: dict[
    tuple[Any, Any], "_Reader"
] = {}  # (event loop, layer) -> _Reader of that loop's sockets
_numbers = itertools.count(1)
_process = uuid.uuid4().hex[:12]
# What a socket is told when its reader lost Redis (games.consumers.CheckedSocket.layer_lost).
LOST = {"type": "layer.lost"}


class _Reader:
    """Pops the messages of one event loop's sockets off their Redis key and hands each to
    the inboxes of the channels it names."""

    def __init__(self, layer, key):
        self.layer, self.key = layer, key
        # channels-redis keys a channel "specific.<name>!<id>" by "specific.<name>!": a name
        # per process and loop, so that no other process or loop reads these messages.
        self.prefix = f"specific.site{_process}x{next(_numbers)}!"
        self.redis_key = layer.prefix + self.prefix
        self.channels = set()
        self.stopped = False
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def run(self):
        client = _connect(aioredis.Redis, self.layer)
        try:
            while not self.stopped:
                try:
                    found = await client.bzpopmin(self.redis_key, timeout=READ_WAIT)
                except redis.RedisError as exc:
                    self.lost(exc)
                    return
                if found is None:
                    continue
                try:
                    self.deliver(found[1])
                except Exception:  # one message that cannot be read must not deafen the rest
                    log.exception("could not read a message for the sockets of %s", self.prefix)
        finally:
            await client.aclose()

    def deliver(self, payload):
        message = self.layer.deserialize(payload)
        channels = message.pop("__asgi_channel__", ())
        local.deliver_here([channels] if isinstance(channels, str) else channels, message)

    def lost(self, exc):
        """Redis cannot be read (restarting, unreachable): a restarted Redis has lost the
        sockets' group memberships too, so every socket of this reader is told to close, and
        its page reconnects, joins its groups again and fetches what it missed; the sockets
        that connect meanwhile get a reader of their own."""
        log.warning(
            "could not read the sockets' pushes from Redis, closing %s sockets: %s",
            len(self.channels),
            exc,
        )
        self.stopped = True
        if _readers.get(self.key) is self:
            del _readers[self.key]
        local.deliver_here(list(self.channels), LOST)


def open_channel(layer):
    """A channel name for a socket of the running event loop, whose messages reach its
    inbox (games.push.local.open_inbox, to be opened with it) through the loop's reader."""
    key = (asyncio.get_running_loop(), layer)
    reader = _readers.get(key)
    if reader is None:
        reader = _readers[key] = _Reader(layer, key)
    channel = reader.prefix + uuid.uuid4().hex
    reader.channels.add(channel)
    return channel


def close_channel(layer, channel):
    """The socket on `channel` has closed: its loop's reader stops with the last one, and
    a socket opened after that has a reader (and a Redis key) of its own."""
    key = (asyncio.get_running_loop(), layer)
    reader = _readers.get(key)
    if reader is None or channel not in reader.channels:
        return
    reader.channels.discard(channel)
    if not reader.channels:
        del _readers[key]
        reader.stopped = True
