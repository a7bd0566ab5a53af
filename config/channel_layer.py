"""The Redis channel layer the site uses: channels-redis's, with Redis pools that wait.

channels-redis makes one redis-py pool per event loop, and redis-py's asyncio pool fails
with MaxConnectionsError once `max_connections` (100) commands are in flight instead of
waiting for a connection. When many sockets of one Daphne process close at once (a proxy
restart, a network blip, the load tool stopping: docs/load.md), every socket's two
`group_discard` calls run at once and most failed: the memberships stayed in Redis until
`group_expiry` (a day), and every later push was sent to sockets that were gone. Here each
loop's pool is redis-py's BlockingConnectionPool: past `max_connections`, a command waits
(up to `pool_timeout` seconds) for a connection to come back.
"""

import redis.asyncio as aioredis
from channels_redis.core import RedisChannelLayer


class ChannelLayer(RedisChannelLayer):
    def __init__(self, *args, max_connections=100, pool_timeout=20, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_connections = max_connections
        self.pool_timeout = pool_timeout

    def create_pool(self, index):
        host = dict(self.hosts[index])
        if "address" not in host:  # Sentinel or host/port entries: channels-redis's own pool
            return super().create_pool(index)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(
            address, max_connections=self.max_connections, timeout=self.pool_timeout, **host
        )
