"""channels-redis's group_send for many groups at once: the one place that uses its
internals (`_group_key`, `_map_channel_keys_to_connection`, the groups' sorted sets).

A push to a table sends a different message to each seat's group. channels-redis's own
`group_send` costs four round trips per group; here every group's members are read by one
script call, then expired messages are dropped and each member's own message added by
another: two round trips in all (docs/load.md). Each group still gets only its own
message; a Redis key (one per Daphne process) that serves several groups gets one message
per group; a member socket that this same process holds gets its message from
games.push.local instead. Several Redis hosts (sharding) keep channels-redis's own sends. The tests of
this module run it beside channels-redis's own `group_send` on a real Redis, so an upgrade
that changes those internals fails there first.
"""

import logging
import time

from games.push import local

try:
    from channels_redis.core import RedisChannelLayer
except ImportError:  # pragma: no cover - the embedded site has no Redis
    RedisChannelLayer = ()

log = logging.getLogger(__name__)


def batched(layer):
    """Whether `layer` is a channels-redis layer on one Redis host (the batched path)."""
    return isinstance(layer, RedisChannelLayer) and layer.ring_size == 1


_MEMBERS_LUA = """
local found = {}
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, ARGV[1])
    found[i] = redis.call('ZRANGE', KEYS[i], 0, -1)
end
return found
"""
_members_script = None


async def group_members(layer, groups):
    """{group: [channel]} as channels-redis's group_send reads them (expired members
    dropped first), in one script call: a push reads a table's seat groups and its people's
    site-socket groups, and a pipeline of two commands per group cost the client more to
    pack and parse than the one call."""
    global _members_script
    if not groups:
        return {}
    connection = layer.connection(0)
    if _members_script is None:
        _members_script = connection.register_script(_MEMBERS_LUA)
    replies = await _members_script(
        keys=[layer._group_key(group) for group in groups],
        args=[int(time.time()) - layer.group_expiry], client=connection)
    return {group: [m.decode("utf8") for m in found] for group, found in zip(groups, replies)}


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


async def group_send_batch(layer, pushes, members=None):
    """`members`: {group: [channel]} already read (`_listening`); read here otherwise."""
    global _batch_script
    connection = layer.connection(0)
    now = int(time.time())
    if members is None:
        members = await group_members(layer, [group for group, _ in pushes])
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
    if _batch_script is None:
        _batch_script = connection.register_script(_BATCH_LUA)
    over = await _batch_script(
        keys=keys, args=[*messages, *capacities, time.time(), layer.expiry, now - int(layer.expiry)],
        client=connection,
    )
    if over:
        log.info("%s of %s pushes over capacity", over, len(keys))


