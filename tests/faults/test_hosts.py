"""Several hosts (bench/hosts.py, Linux network namespaces on this machine): PostgreSQL and
Redis on one, two web hosts each with a Daphne and a worker (beat on the first), nginx on
another, the players on this machine's own namespace. Played by the soak's websocket players
(bench/soak.py --hosts) while the first web host is cut off entirely (every process on it
killed and its link taken down, then brought back) and the second is cut off from Redis for
30 s: the first host's sockets reconnect through nginx to the second host and resync, and
at the end nothing is lost or done twice, every view came back, and no error fell outside a
fault's window (docs/deploy.md, "Several hosts").
"""

import os
import re
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from bench.hosts import available

pytestmark = [pytest.mark.postgres]


def test_a_web_host_cut_off_and_another_cut_from_redis_lose_nothing():
    if connection.vendor != "postgresql":
        pytest.skip("runs with the real services (DATABASE_URL=postgres://...), as .ci/run does")
    why = available()
    if why:
        pytest.skip(why)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_", "PYTEST_"))
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--hosts", "--faults", "host,redis-cut",
         "--tables", "4", "--tables-6", "1", "--tables-8", "1", "--minutes", "3",
         "--fault-every", "20", "--warmup", "15", "--quiet", "30"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=540,
    )  # fmt: skip
    out = done.stdout + done.stderr[-3000:]
    print(out)  # the soak's report, for whoever reads the test's output
    assert done.returncode == 0, out
    assert "result: nothing lost" in out, out
    faults = re.search(r"(\d+) faults \((.*)\)", out)
    assert faults is not None and "host 1" in faults.group(2), out
    assert "redis-cut 1" in faults.group(2), out
    checked = re.search(r"acknowledged decisions checked: (\d+); lost 0, doubled 0", out)
    assert checked is not None and int(checked.group(1)) > 50, out
    assert re.search(r"views: \d+ seat checks after 2 recoveries, 0 not back", out), out
    # The players whose tables hash to the cut-off host reconnected: sockets closed in its
    # window, and the views came back on the other host.
    assert re.search(r"host\s+at\s+[\d.]+ s: .*socket closed \d+", out), out
