"""The channel layer: group names and sending to the sockets of a table or a user.

Nothing here renders or reads the database: callers (games.effects) hand over the
messages. With one Redis host a push's sends are two synchronous script calls from the
caller's thread (games.push.redis_batch).
"""

import asyncio
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import redis
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from games.push import changes, redis_batch

log = logging.getLogger(__name__)


def layer():
    """The channel layer, or None when the site runs without one."""
    return get_channel_layer()


def seat_group(game_id, seat):
    return f"game-{game_id}-seat-{seat}"


def program_group(game_id, seat):
    """The Bot API streams of a bot account's seat (games.bot_stream): pushed the seat's
    state, never a page's HTML."""
    return f"game-{game_id}-program-{seat}"


def public_group(game_id):
    return f"game-{game_id}-public"


def user_group(user_id):
    """Every socket of one user, so that logging out can close them all."""
    return f"user-{user_id}"


def waiting_group(user_id):
    """Every site socket of one user (games.consumers.SiteConsumer): told after each event
    of a game they sit at, to read again which games wait on them."""
    return f"waiting-{user_id}"


async def join(layer, channel_name, groups, who):
    """Puts a socket's channel in its groups; False, with a warning, when the layer's Redis
    cannot be reached (down, or cut off from this host): the socket is then closed as a
    server error, which its page answers by reconnecting, instead of the handshake ending
    in an exception. `who` names the socket in the warning."""
    try:
        for group in groups:
            await layer.group_add(group, channel_name)
    except (OSError, redis.RedisError) as exc:
        log.warning("%s closed as it opened: the channel layer is out of reach (%s)", who, exc)
        return False
    return True


async def leave(layer, channel_name, groups):
    """Takes a closing socket's channel out of its groups; with Redis out of reach, leaves
    them: a Redis that restarted has lost the groups anyway, and one cut off from this host
    drops the channel when the group's membership expires (channels-redis's group_expiry).
    A push meanwhile renders for the group as if someone listened, and nobody reads it."""
    try:
        for group in groups:
            await layer.group_discard(group, channel_name)
    except (OSError, redis.RedisError) as exc:
        log.info("a closing socket left its groups to expire: %s", exc)


def in_process(layer):
    """Whether every socket of the site is in this process (the in-memory layer of the
    embedded site), so that this process makes every push its sockets get."""
    return isinstance(layer, InMemoryChannelLayer)


def memory(layer):
    """Where the site's pushes remember what they sent, so that the next one sends only
    what changed (games.push.changes): this process's memory when it makes every push its
    sockets get; with PUSH_CUT_WITH_REDIS, the layer's Redis when it is one host; otherwise
    None, and every push carries the whole table."""
    if in_process(layer):
        return changes.HERE
    if settings.PUSH_CUT_WITH_REDIS and redis_batch.batched(layer):
        return redis_batch.SharedMemory(layer, settings.CACHES["default"].get("KEY_PREFIX", ""))
    return None


def listening(layer, groups, members):
    """The groups (of `groups`) with a socket in them, or None when the layer cannot tell
    cheaply (several Redis hosts). With one Redis host the members read here are kept in
    `members` for the send, which then need not read them again: still two round trips."""
    if isinstance(layer, InMemoryChannelLayer):
        return {group for group in groups if layer.groups.get(group)}
    if redis_batch.batched(layer):
        members.update(redis_batch.group_members(layer, groups))
        return {group for group, channels in members.items() if channels}
    return None


async def _send_all(layer, pushes):
    await asyncio.gather(*(layer.group_send(group, message) for group, message in pushes))


# channels-redis's own sends (several Redis hosts) go through one long-lived event loop per
# process, so that its connections are reused instead of opened again for every push.
_sender = None  # (pid, loop): made again after a fork (Celery)
_sender_lock = threading.Lock()


def _sender_loop():
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="notify-sender", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]


def _run(coroutine_function, *args):
    """Runs an async send from synchronous code. Synchronous code called on a thread whose
    event loop is running (a test driving a browser through Playwright's synchronous API,
    which runs one) may not use async_to_sync there: the send then runs on a thread of its
    own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return async_to_sync(coroutine_function)(*args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(async_to_sync(coroutine_function), *args).result(timeout=10)


def deliver(layer, pushes, members=None):
    """Sends all pushes and returns once Redis has them: with one Redis host in one batch
    from this thread (`members`, when given, are the groups' members `listening` read),
    otherwise through the sending loop."""
    if isinstance(layer, InMemoryChannelLayer):
        # Its queues belong to the loop of whoever listens (tests): send from there.
        _run(_send_all, layer, pushes)
        return
    if redis_batch.batched(layer):
        redis_batch.group_send_batch(layer, pushes, members)
        return
    asyncio.run_coroutine_threadsafe(_send_all(layer, pushes), _sender_loop()).result(timeout=10)


def send(group, message):
    """One message to one group, from synchronous code; False if it could not be sent."""
    channel_layer = layer()
    if channel_layer is None:
        return False
    _run(channel_layer.group_send, group, message)
    return True
