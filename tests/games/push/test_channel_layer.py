"""The site's channel layer (config/channel_layer.py) against a real Redis: when many sockets
of one process close at once, every `group_discard` is done, none fails for want of a Redis
connection (channels-redis's own pools raise MaxConnectionsError past 100 at once)."""

import asyncio
import uuid

import pytest
from django.conf import settings

from config.channel_layer import ChannelLayer

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (a real Redis)")


def _layer(**config):
    # A prefix of its own: nothing else on the shared Redis can see or disturb these keys.
    return ChannelLayer(
        hosts=[settings.REDIS_URL], prefix=f"test-{uuid.uuid4().hex[:10]}", **config
    )


def test_six_hundred_sockets_closing_at_once_leave_their_groups():
    async def scenario():
        layer = _layer(max_connections=20)
        channels = [await layer.new_channel() for _ in range(300)]
        # Each socket is in its seat's group and its user's group, as GameConsumer joins.
        await asyncio.gather(
            *(layer.group_add(f"seat-{i % 40}", c) for i, c in enumerate(channels))
        )
        await asyncio.gather(*(layer.group_add(f"user-{i}", c) for i, c in enumerate(channels)))
        connection = layer.connection(0)
        pool = connection.connection_pool
        results = await asyncio.gather(
            *(layer.group_discard(f"seat-{i % 40}", c) for i, c in enumerate(channels)),
            *(layer.group_discard(f"user-{i}", c) for i, c in enumerate(channels)),
            return_exceptions=True,
        )
        left = [await connection.zcard(layer._group_key(f"seat-{g}")) for g in range(40)]
        opened = len(pool._available_connections) + len(pool._in_use_connections)
        await layer.flush()
        return results, left, opened

    results, left, opened = asyncio.run(scenario())
    assert [r for r in results if r is not None] == []
    assert left == [0] * 40
    assert opened <= 20  # they waited for one of the pool's connections


def test_the_pool_size_and_wait_come_from_the_settings():
    layer = _layer(max_connections=7, pool_timeout=3)
    pool = layer.create_pool(0)
    assert (pool.max_connections, pool.timeout) == (7, 3)
    site = settings.CHANNEL_LAYERS["default"]
    assert site["BACKEND"] == "config.channel_layer.ChannelLayer"
    assert site["CONFIG"]["max_connections"] == 100
