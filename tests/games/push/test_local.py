"""A push to a socket this same process holds skips Redis (games.push.local): it reaches the
socket through its inbox, a socket of another process still gets its own through Redis, and
an inbox lives exactly as long as its socket."""

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from config.channel_layer import ChannelLayer
from games.actions import seat_door
from games.push import local, redis_batch
from tests.conftest import make_started_game
from tests.games.views.test_consumers import communicator, connected, move, state_of

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (a real Redis)")


def _layer(**config):
    # A prefix of its own: nothing else on the shared Redis can see or disturb these keys.
    return ChannelLayer(
        hosts=[settings.REDIS_URL], prefix=f"test-{uuid.uuid4().hex[:10]}", **config
    )


def _channel_key(layer, channel):
    return layer.prefix + layer.non_local_name(channel)


def test_a_socket_held_here_gets_its_push_from_its_inbox_and_redis_carries_only_the_others():
    async def scenario():
        layer = _layer()
        here = await layer.new_channel()
        other = ChannelLayer(hosts=[settings.REDIS_URL], prefix=layer.prefix)  # another process
        there = await other.new_channel()
        for channel in (here, there):
            await layer.group_add("g-seat-1", channel)
        inbox = local.open_inbox(here, layer.capacity)
        try:
            message = {"type": "game.fragments", "seq": 4, "html": "seat 1"}
            redis_batch.group_send_batch(layer, [("g-seat-1", message)])
            got = await asyncio.wait_for(inbox.get(), timeout=2)
            connection = layer.connection(0)
            # Nobody reads this process's Redis key in this test: a message sent there would
            # still be waiting in it.
            waiting_here = await connection.zcard(_channel_key(layer, here))
            from_redis = await asyncio.wait_for(other.receive(there), timeout=2)
        finally:
            local.close_inbox(here)
        await layer.flush()
        await other.close_pools()
        await layer.close_pools()
        return got, message, waiting_here, from_redis

    got, message, waiting_here, from_redis = asyncio.run(scenario())
    assert got == message and got is not message  # a copy of its own, as from Redis
    assert waiting_here == 0
    assert from_redis["html"] == "seat 1"


def test_a_full_inbox_drops_its_oldest_push():
    async def scenario():
        inbox = local.open_inbox("specific.test!full", 2)
        try:
            for seq in (1, 2, 3):
                assert local.hand_over(["specific.test!full"], {"seq": seq}) == []
            await asyncio.sleep(0)  # the hand-overs run on this loop
            return [inbox.get_nowait()["seq"] for _ in range(inbox.qsize())]
        finally:
            local.close_inbox("specific.test!full")

    assert asyncio.run(scenario()) == [2, 3]


@pytest.mark.django_db(transaction=True)
def test_a_move_reaches_a_socket_of_this_process_through_its_inbox_after_the_movers_answer(four):
    game = make_started_game(four)
    card = None

    async def scenario():
        nonlocal card
        layer = get_channel_layer()
        assert redis_batch.batched(layer)
        mover, watcher = communicator(game, four[1]), communicator(game, four[2])
        await connected(mover)
        await connected(watcher)
        held = set(local._inboxes)
        state = await database_sync_to_async(state_of)(game)
        card = state.legal_actions(1)[0]["card"]
        await mover.send_json_to(
            {"type": "act", "action": {"type": "pass", "card": card}, "key": "pick-1"}
        )
        # The mover's push is made while its own message is being answered: the answer
        # still comes first, then the table (one message at a time through dispatch).
        first = await mover.receive_json_from(timeout=5)
        second = await mover.receive_json_from(timeout=5)
        pushed = await watcher.receive_json_from(timeout=5)
        await database_sync_to_async(move)(game, 3)
        later = await watcher.receive_json_from(timeout=5)
        await mover.disconnect()
        await watcher.disconnect()
        return held, first, second, pushed, later

    held, first, second, pushed, later = async_to_sync(scenario)()
    assert len(held) >= 2  # both sockets opened an inbox
    assert first == {"type": "ok", "seq": 2, "key": "pick-1", "replayed": False}
    assert (second["type"], second["seq"]) == ("fragments", 2)
    assert (pushed["type"], pushed["seq"], later["seq"]) == ("fragments", 2, 3)
    assert not held & set(local._inboxes)  # closed with their sockets


@pytest.mark.django_db(transaction=True)
def test_without_redis_a_socket_opens_no_inbox_and_still_gets_its_pushes(four, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    game = make_started_game(four)

    async def scenario():
        comm = communicator(game, four[1])
        await connected(comm)
        held = dict(local._inboxes)
        await database_sync_to_async(move)(game, 3)
        pushed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return held, pushed

    held, pushed = async_to_sync(scenario)()
    assert held == {}
    assert (pushed["type"], pushed["seq"]) == ("fragments", 2)


# --- the loop's Redis reader (games.push.redis_batch.open_channel) -----------------------------


async def _next(inbox):
    return await asyncio.wait_for(inbox.get(), timeout=3)


def test_a_message_through_redis_reaches_the_socket_by_its_loops_reader_in_one_pop():
    async def scenario():
        layer = _layer()
        channel = redis_batch.open_channel(layer)
        inbox = local.open_inbox(channel, layer.capacity)
        connection = layer.connection(0)
        try:
            await layer.group_add("g-seat-2", channel)
            # channels-redis's own sends: a group send (a list of channels in the message)
            # and a send to the one channel (its name alone).
            await layer.group_send("g-seat-2", {"type": "chat.message", "n": 1})
            by_group = await _next(inbox)
            await layer.send(channel, {"type": "access.changed", "n": 2})
            direct = await _next(inbox)
            key = _channel_key(layer, channel)
            left = await connection.zcard(key)
            backups = await connection.keys(layer.prefix + "*$inflight")
        finally:
            local.close_inbox(channel)
            redis_batch.close_channel(layer, channel)
        await layer.flush()
        return by_group, direct, left, backups

    by_group, direct, left, backups = asyncio.run(scenario())
    assert by_group == {"type": "chat.message", "n": 1}
    assert direct == {"type": "access.changed", "n": 2}
    assert left == 0  # taken off Redis
    assert backups == []  # and no backup copy was made of it, as channels-redis's receive does


def test_a_loops_sockets_share_one_reader_which_stops_with_the_last_of_them():
    async def scenario():
        layer = _layer()
        first = redis_batch.open_channel(layer)
        second = redis_batch.open_channel(layer)
        inboxes = [local.open_inbox(c, layer.capacity) for c in (first, second)]
        shared = layer.non_local_name(first) == layer.non_local_name(second)
        reader = redis_batch._readers[(asyncio.get_running_loop(), layer)]
        try:
            for channel in (first, second):
                await layer.group_add("g-table", channel)
            # The first socket closes: a push still reaches the second, and the first's
            # copy is dropped without harm.
            local.close_inbox(first)
            redis_batch.close_channel(layer, first)
            running_after_one = not reader.task.done()
            await layer.group_send("g-table", {"type": "game.fragments", "seq": 7})
            got = await _next(inboxes[1])
        finally:
            local.close_inbox(second)
            redis_batch.close_channel(layer, second)
        await asyncio.wait([reader.task], timeout=redis_batch.READ_WAIT + 2)
        stopped = (
            reader.task.done(),
            (asyncio.get_running_loop(), layer) not in redis_batch._readers,
        )
        await layer.flush()
        return shared, running_after_one, got, stopped

    shared, running_after_one, got, stopped = asyncio.run(scenario())
    assert shared  # one Redis key for the loop's sockets
    assert running_after_one
    assert got == {"type": "game.fragments", "seq": 7}
    assert stopped == (True, True)


def test_a_reader_that_cannot_reach_redis_tells_its_sockets_to_close_and_stops(caplog):
    async def scenario():
        layer = ChannelLayer(hosts=["redis://127.0.0.1:1/0"], prefix="test-unreachable")
        channel = redis_batch.open_channel(layer)
        inbox = local.open_inbox(channel, layer.capacity)
        key = (asyncio.get_running_loop(), layer)
        reader = redis_batch._readers[key]
        try:
            told = await _next(inbox)
            await asyncio.wait([reader.task], timeout=3)
            # The socket reconnecting meanwhile gets a reader of its own.
            again = redis_batch.open_channel(layer)
            fresh = redis_batch._readers[key]
        finally:
            local.close_inbox(channel)
            redis_batch.close_channel(layer, channel)
        redis_batch.close_channel(layer, again)
        await asyncio.wait([fresh.task], timeout=3)
        return told, reader.task.done(), fresh is not reader

    told, stopped, fresh = asyncio.run(scenario())
    assert told == {"type": "layer.lost"}
    assert stopped and fresh
    assert "could not read the sockets' pushes from Redis, closing 1 sockets" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_a_game_socket_told_that_redis_was_lost_closes_so_that_its_page_reconnects(four):
    game = make_started_game(four)

    async def scenario():
        before = set(local._inboxes)
        comm = communicator(game, four[1])
        await connected(comm)
        (channel,) = set(local._inboxes) - before
        local.deliver_here([channel], redis_batch.LOST)
        closed = await comm.receive_output(timeout=5)
        await comm.wait(timeout=5)
        return closed

    closed = async_to_sync(scenario)()
    assert closed == {"type": "websocket.close", "code": seat_door.CLOSE_SERVER_ERROR}


def test_a_message_the_reader_cannot_read_is_logged_and_the_next_one_still_arrives(caplog):
    async def scenario():
        layer = _layer()
        channel = redis_batch.open_channel(layer)
        inbox = local.open_inbox(channel, layer.capacity)
        try:
            await layer.group_add("g-seat-3", channel)
            connection = layer.connection(0)
            await connection.zadd(_channel_key(layer, channel), {b"not msgpack at all": 1})
            await layer.group_send("g-seat-3", {"type": "game.fragments", "seq": 9})
            got = await _next(inbox)
        finally:
            local.close_inbox(channel)
            redis_batch.close_channel(layer, channel)
        await layer.flush()
        return got

    assert asyncio.run(scenario()) == {"type": "game.fragments", "seq": 9}
    assert "could not read a message for the sockets of" in caplog.text
