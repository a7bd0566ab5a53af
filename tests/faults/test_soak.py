"""The soak under faults (bench/soak.py), short: five tables (of 4, 6 and 8) played by real
websocket players for four minutes while one fault of each kind comes in turn (a
Daphne killed, the worker killed, beat killed, Redis restarted, PostgreSQL restarted, every
database session ended). It must end with nothing lost: every acknowledged decision in the
log once, no event nobody made, every game replayed and every deal verified, no game stuck,
every seat's view back after each fault, and no error outside a fault's recovery time.

The soak brings its own PostgreSQL cluster and Redis (it restarts them), so it needs
PostgreSQL's server programs and redis-server; it runs in .ci/run's half with the real
services, not in the newcomer's.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from bench.soak import _pg_bin

pytestmark = [pytest.mark.postgres]


def test_a_short_soak_under_every_kind_of_fault_loses_nothing(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("runs with the real services (DATABASE_URL=postgres://...), as .ci/run does")
    if _pg_bin("initdb") is None or shutil.which("redis-server") is None:
        pytest.skip("needs PostgreSQL's server programs (initdb, pg_ctl) and redis-server")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CELERY_", "PYTEST_")) and k not in ("DATABASE_URL",)
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--tables", "3", "--tables-6", "1",
         "--tables-8", "1", "--minutes", "4", "--fault-every", "15", "--warmup", "10",
         "--quiet", "30", "--daphnes", "2"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=540,
    )  # fmt: skip
    out = done.stdout + done.stderr[-3000:]
    assert done.returncode == 0, out
    assert "result: nothing lost" in out, out
    faults = re.search(r"(\d+) faults \((.*)\)", out)
    assert faults is not None, out
    injected = dict(re.findall(r"([a-z]+) (\d+)", faults.group(2)))
    kinds = ("daphne", "worker", "beat", "redis", "postgres", "sessions")
    assert all(int(injected.get(kind, 0)) >= 1 for kind in kinds), out
    checked = re.search(r"acknowledged decisions checked: (\d+); lost 0, doubled 0", out)
    assert checked is not None and int(checked.group(1)) > 100, out
    views = re.search(r"views: \d+ seat checks after (\d+) recoveries, 0 not back", out)
    assert views is not None and int(views.group(1)) == int(faults.group(1)), out
