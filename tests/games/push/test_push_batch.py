"""A move's pushes go to Redis in one batch (games.push.redis_batch.group_send_batch, docs/load.md):
each seat's group must still receive exactly its own rendering, and nothing else."""

import asyncio
import uuid

import pytest
from django.conf import settings

from config.channel_layer import ChannelLayer as RedisChannelLayer  # the site's layer
from games.push import redis_batch

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (a real Redis)")


def _layer():
    # A prefix of its own: nothing else on the shared Redis can see or disturb these keys.
    return RedisChannelLayer(
        hosts=[settings.REDIS_URL], prefix=f"test-{uuid.uuid4().hex[:10]}", capacity=2
    )


async def _receive(layer, channel):
    return await asyncio.wait_for(layer.receive(channel), timeout=2)


async def _nothing_for(layer, channel):
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), timeout=0.3)


def test_each_group_gets_only_its_own_message():
    async def scenario():
        layer = _layer()
        # Three sockets of one process share one Redis key; a fourth is another process's.
        seat0 = await layer.new_channel()
        seat1 = await layer.new_channel()
        seat1_tab = await layer.new_channel()
        other = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=layer.prefix)
        seat2 = await other.new_channel()
        for group, channel in [
            ("g-seat-0", seat0),
            ("g-seat-1", seat1),
            ("g-seat-1", seat1_tab),
            ("g-seat-2", seat2),
        ]:
            await layer.group_add(group, channel)
        pushes = [
            (f"g-seat-{n}", {"type": "game.fragments", "seq": 7, "html": f"seat {n}"})
            for n in range(4)
        ]  # seat 3's group has nobody: nothing to send there
        redis_batch.group_send_batch(layer, pushes)
        got = {
            "seat0": await _receive(layer, seat0),
            "seat1": await _receive(layer, seat1),
            "seat1_tab": await _receive(layer, seat1_tab),
            "seat2": await _receive(other, seat2),
        }
        assert {name: m["html"] for name, m in got.items()} == {
            "seat0": "seat 0",
            "seat1": "seat 1",
            "seat1_tab": "seat 1",
            "seat2": "seat 2",
        }
        for channel, owner in [(seat0, layer), (seat1, layer), (seat1_tab, layer), (seat2, other)]:
            await _nothing_for(owner, channel)
        # Capacity still holds per channel: 2 waiting, the third push to seat 0 is dropped
        # as channels-redis's own group_send would drop it.
        for seq in (8, 9, 10):
            redis_batch.group_send_batch(
                layer, [("g-seat-0", {"type": "game.fragments", "seq": seq, "html": ""})]
            )
        assert [(await _receive(layer, seat0))["seq"] for _ in range(2)] == [8, 9]
        await _nothing_for(layer, seat0)
        await layer.flush()
        await other.close_pools()
        await layer.close_pools()

    asyncio.run(scenario())
