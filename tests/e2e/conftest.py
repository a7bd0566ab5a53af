"""A real Daphne process for browser tests: pytest-django's live_server cannot serve websockets.

The server runs `config.asgi` against the test database (transactional tests,
so what it writes is visible here) and plays bots inline (Celery eager), so a
whole game runs in one process with the in-memory channel layer, or on Redis
when REDIS_URL is set.
"""

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from tests.browser_support import PATIENCE_MS, chromium_browser, require_chromium  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def _database_url():
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def daphne_url(transactional_db):
    require_chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    # Every browser sign-up comes from 127.0.0.1 and the limiter counts in Redis, which
    # outlives a run: its limit is tested elsewhere (tests/accounts), not here.
    # A cache space of its own: test databases reuse table and user ids from run to run,
    # and a cached outcome or a log-in counter of an earlier run must not answer for them.
    env = dict(
        os.environ,
        DATABASE_URL=_database_url(),
        CELERY_TASK_ALWAYS_EAGER="true",
        DEBUG="true",
        PYTHONUNBUFFERED="1",
        SIGNUP_RATE_LIMIT="10000",
        CACHE_KEY_PREFIX=f"e2e-{uuid.uuid4().hex[:12]}",
    )
    log = open(ARTIFACTS / "daphne.log", "ab")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "config.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    # Importing the site takes seconds on a busy machine: the port answering is the sign.
    deadline = time.monotonic() + 90
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("Daphne did not start; see test-artifacts/daphne.log")
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    # The flush after a transactional test waits for the server's connections to end.
    connection.close()


def new_page(browser, **context_options):
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    return page


def logged_in_page(browser, base_url, user):
    """A page in a context of its own, logged in as `user` through a session cookie."""
    client = Client()
    client.force_login(user)
    page = new_page(browser, viewport={"width": 1100, "height": 850})
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return page
