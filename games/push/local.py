"""The sockets this process holds, so that a push made here reaches them without Redis.

With several server processes a table's seats are spread over them, but the seat that moved
is always held by the process that applied the move, and on average a quarter of the others
too (four processes). channels-redis would send those messages to Redis and read them back
into the same process; here they go straight into the socket's inbox, a queue that its
consumer reads beside the channel layer (games.consumers.CheckedSocket). Sockets of other
processes, and every other kind of message, still go through the channel layer.

An inbox belongs to the event loop of its socket; a push is made in a worker thread and
sent from the sending loop (games.push), so it is handed over with call_soon_threadsafe.
"""

import asyncio

_inboxes = {}  # channel name -> (event loop, queue) of a socket open in this process


class Inbox(asyncio.Queue):
    """A socket's queue of pushes, bounded as its channel-layer channel is: when it is full
    the oldest waiting push is dropped (the newest is the one worth keeping: a page that
    missed a push it needed resyncs, games.push.changes)."""

    def put_nowait(self, item):
        if self.full():
            self.get_nowait()
        super().put_nowait(item)


def open_inbox(channel, capacity):
    """The inbox of the socket on `channel`; call from the socket's event loop."""
    inbox = Inbox(maxsize=capacity)
    _inboxes[channel] = (asyncio.get_running_loop(), inbox)
    return inbox


def close_inbox(channel):
    _inboxes.pop(channel, None)


def deliver_here(channels, message):
    """Puts `message` into the inbox of each of `channels`, from the event loop those
    sockets run on (the Redis reader of games.push.redis_batch); a channel whose socket has
    closed gets nothing."""
    for channel in channels:
        found = _inboxes.get(channel)
        if found is not None:
            found[1].put_nowait(dict(message))


def hand_over(channels, message):
    """Puts `message` into the inbox of each of `channels` held here; returns the others,
    for the channel layer. Each socket gets its own copy of the message's dict, as it would
    from Redis."""
    if not _inboxes:
        return channels
    elsewhere = []
    for channel in channels:
        found = _inboxes.get(channel)
        if found is None:
            elsewhere.append(channel)
            continue
        loop, inbox = found
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, dict(message))
        except RuntimeError:  # its loop has closed (the process is stopping)
            close_inbox(channel)
    return elsewhere
