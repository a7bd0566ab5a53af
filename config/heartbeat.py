"""The heartbeats of the Celery worker and beat, which /readyz reads (config.health).

Beat sends the task `config.celery.heartbeat` every HEARTBEAT_SECONDS, and the worker that
runs it records the time: the worker's heartbeat, which says that a worker takes tasks off
the queue. Beat records its own as its scheduler ticks (config.celery.BeatScheduler), at
most once every HEARTBEAT_SECONDS. Both are kept in the cache: on Redis, shared by every
process; in the embedded site, the memory of its one process, whose worker and beat
threads write them and whose Daphne reads them.

Kept apart from config.health because config.celery imports it while the settings load.
"""

import time

from django.core.cache import cache

KINDS = ("worker", "beat")
_KEYS = {kind: f"health:heartbeat:{kind}" for kind in KINDS}
# A heartbeat a day old is as good as none; the key goes by itself.
_KEPT = 24 * 60 * 60


def record(kind, now=None):
    cache.set(_KEYS[kind], time.time() if now is None else now, timeout=_KEPT)


def ages(now=None):
    """{kind: seconds since its last heartbeat, or None if none is recorded}."""
    now = time.time() if now is None else now
    found = cache.get_many(list(_KEYS.values()))
    return {
        kind: None if _KEYS[kind] not in found else max(0.0, now - found[_KEYS[kind]])
        for kind in KINDS
    }
