"""`make run`'s embedded site (one process: Daphne, a Celery worker and beat in threads)
becomes ready by itself: its own beat sends the heartbeat task, its own worker runs it, and
its /metrics counts it, with nothing to set up."""

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tests.games.management.test_runsite import ROOT, embedded_env  # noqa: F401 (fixture)


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_the_embedded_site_is_ready_once_its_own_worker_and_beat_have_beaten(embedded_env):  # noqa: F811
    env = {**embedded_env, "HEARTBEAT_SECONDS": "1"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = site.stdout.readline().strip().rsplit(" ", 1)[1].rstrip("/")
        assert get(address + "/healthz") == (200, "ok\n")
        deadline = time.monotonic() + 90
        while (answer := get(address + "/readyz"))[0] != 200:
            assert time.monotonic() < deadline, f"never ready: {answer}"
            time.sleep(0.2)
        assert json.loads(answer[1]) == {
            "ready": True,
            "checks": {"database": "ok", "channel_layer": "ok", "worker": "ok", "beat": "ok"},
        }

        status, text = get(address + "/metrics")
        assert status == 200
        assert (
            'wct_celery_task_seconds_count{state="SUCCESS",task="config.celery.heartbeat"}' in text
        ), text[-3000:]
    finally:
        site.terminate()
        site.wait(timeout=30)
