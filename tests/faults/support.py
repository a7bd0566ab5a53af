"""Real processes for the fault tests: Celery workers and beat, Daphne servers, a Redis of
our own (port 6391, so that restarting it troubles nobody) and an SMTP server. Both
tests/faults/conftest.py and tests/e2e/faults/conftest.py (the fault tests that watch a page
in Chromium) take their fixtures from here.

Every process is a subprocess run against this test's PostgreSQL database (the tests are
transactional, so the processes see what the test commits and the test sees what they
commit). Faults are injected with SIGKILL, by restarting Redis, and at exact points: a
worker or Daphne started with a `Fault` runs through `tests.faults.run`, which wraps the
site's functions at that point (tests/faults/points.py) before the program starts.

These tests need PostgreSQL and Redis (DATABASE_URL, REDIS_URL) and, for the browser ones in
tests/e2e/faults/, Debian's Chromium; they skip only when one of those is absent. `.ci/run`
provides them all.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from config.celery import app as celery_app

ROOT = Path(settings.BASE_DIR)
# Our own Redis (never the shared one on 6379); one port per pytest-xdist worker, if any.
OWN_REDIS_PORT = 6391 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
# What a subprocess must not inherit from the test run.
_NOT_INHERITED = ("CELERY_TASK_ALWAYS_EAGER", "DJANGO_ALLOW_ASYNC_UNSAFE")


def database_url():
    db = connection.settings_dict
    auth = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"])
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, timeout, what, details=lambda: ""):
    """Polls `check()` until it returns something true; fails with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}\n{details()}")
        time.sleep(0.05)


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.3).close()
        return True
    except OSError:
        return False


def require_real_parts():
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs DATABASE_URL=postgres://... (the subprocesses share this test's "
            "database); .ci/run sets it"
        )
    if not settings.REDIS_URL:
        pytest.skip(
            "needs REDIS_URL (channel layer and broker shared by the subprocesses); .ci/run sets it"
        )


@dataclass(frozen=True)
class Fault:
    """A fault point armed once (tests/faults/points.py) for the processes started with it:
    the first of them to reach `point` ("<point>" or "<point>:<detail>") removes `arm` and
    is killed (`kill`) or loses its database connection (`disconnect`)."""

    point: str
    action: str
    arm: Path

    @property
    def fired(self):
        """What the process that fired wrote ("<pid> <point> <detail>"), or ""."""
        note = self.arm.with_name(self.arm.name + ".fired")
        return note.read_text() if note.exists() else ""


class Stack:
    """The processes of one test. Each has a log file (kept across restarts); all are
    stopped when the test ends."""

    def __init__(self, directory, queue, redis_url, secret_key):
        self.dir = directory
        self.queue = queue
        self.redis_url = redis_url
        self.procs = {}
        self._logs = {}
        self.env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
        self.env.update(
            DATABASE_URL=database_url(),
            REDIS_URL=redis_url,
            CELERY_BROKER_URL=redis_url,
            CELERY_QUEUE=queue,
            LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
        )
        # Production settings (DEBUG off: no debug helpers in the pages), over plain HTTP.
        # The same SECRET_KEY as this process, which signs the sessions it logs people in with.
        self.env.update(
            DEBUG="false",
            SECRET_KEY=secret_key,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            SECURE_SSL_REDIRECT="false",
            SESSION_COOKIE_SECURE="false",
            CSRF_COOKIE_SECURE="false",
            SECURE_HSTS_SECONDS="0",
        )

    def fault(self, point, action="kill", name="fault"):
        """A fault at `point`, armed until a process started with it fires it."""
        arm = self.dir / f"{name}.armed"
        arm.write_text("armed\n")
        return Fault(point, action, arm)

    # --- processes ----------------------------------------------------------------------

    def start(self, name, program, args, env=None, fault=None):
        """Starts `program` (celery, daphne) with `args`; through tests.faults.run when a
        `fault` is given."""
        path = self.dir / f"{name}.log"
        log = self._logs.get(name)
        if log is None or log.closed:
            log = self._logs[name] = open(path, "ab")
        log.write(f"\n----- start {program} {' '.join(args[:3])}\n".encode())
        log.flush()
        launcher = (
            ["-m"]
            if fault is None
            else ["-m", "tests.faults.run", fault.point, fault.action, str(fault.arm)]
        )
        proc = subprocess.Popen(
            [sys.executable, *launcher, program, *args],
            cwd=ROOT,
            env={**self.env, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.procs[name] = proc
        return proc

    def log(self, name):
        path = self.dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def worker(self, name="worker", pool="solo", env=None, fault=None):
        """A Celery worker on this test's queue; returns once it is ready to take tasks."""
        node = f"{name}-{uuid.uuid4().hex[:6]}@localhost"
        before = len(self.log(name))
        proc = self.start(
            name,
            "celery",
            [
                "-A",
                "config",
                "worker",
                "-P",
                pool,
                "-c",
                "1",
                "-n",
                node,
                "-l",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            env,
            fault,
        )
        wait_until(
            lambda: "ready." in self.log(name)[before:] or proc.poll() is not None,
            90,
            f"worker {name} to start",
            lambda: self.log(name)[-3000:],
        )
        assert proc.poll() is None, self.log(name)[-3000:]
        return proc

    def beat(self, env=None):
        return self.start(
            "beat",
            "celery",
            [
                "-A",
                "config",
                "beat",
                "-l",
                "INFO",
                "--schedule",
                str(self.dir / f"beat-{uuid.uuid4().hex[:6]}"),
            ],
            env,
        )

    def daphne(self, name="daphne", env=None, fault=None):
        """A Daphne serving config.asgi; returns its base URL once it accepts connections."""
        port = free_port()
        proc = self.start(
            name,
            "daphne",
            ["-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            env,
            fault,
        )
        wait_until(
            lambda: port_open(port) or proc.poll() is not None,
            30,
            f"{name} to listen",
            lambda: self.log(name)[-3000:],
        )
        assert proc.poll() is None, self.log(name)[-3000:]
        return f"http://127.0.0.1:{port}"

    def kill(self, name):
        """SIGKILL: no cleanup, no goodbye to the broker or the database."""
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def wait_dead(self, name, timeout=30):
        proc = self.procs[name]
        wait_until(
            lambda: proc.poll() is not None,
            timeout,
            f"{name} to die",
            lambda: self.log(name)[-3000:],
        )
        return proc.returncode

    def close(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for log in self._logs.values():
            log.close()


@contextmanager
def routed_to(queue, broker_url=None):
    """Tasks sent by this test process go to `queue` (and to `broker_url`, when given)."""
    conf = celery_app.conf
    saved = conf.task_routes, conf.broker_url
    conf.task_routes = {"games.tasks.*": {"queue": queue}}
    if broker_url:
        conf.broker_url = broker_url
    _reset_producer(celery_app)
    try:
        yield
    finally:
        conf.task_routes, conf.broker_url = saved
        _reset_producer(celery_app)


def _reset_producer(app):
    amqp = app.amqp
    amqp.flush_routes()
    amqp.__dict__.pop("router", None)
    # Forget the pools (kombu keeps one per broker URL; closing them would break the next
    # test that uses the same URL): the next send takes the pool of the current URL.
    app._pool = None
    amqp._producer_pool = None


@pytest.fixture
def secret_key(settings):
    """A production-grade key for the servers, and for the sessions this process makes."""
    settings.SECRET_KEY = f"fault-tests-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    return settings.SECRET_KEY


@pytest.fixture
def stack(tmp_path, transactional_db, secret_key):
    """Processes on the test run's Redis, on a Celery queue of this test's own."""
    require_real_parts()
    queue = f"faults-{uuid.uuid4().hex[:8]}"
    processes = Stack(tmp_path, queue, settings.REDIS_URL, secret_key)
    with routed_to(queue):
        try:
            yield processes
        finally:
            processes.close()
            # The flush after a transactional test waits for the servers' connections.
            connection.close()


class OwnRedis:
    """A redis-server of this test's own (port 6391), in memory only, that may be killed."""

    def __init__(self, directory):
        self.dir = directory
        self.port = OWN_REDIS_PORT
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = None
        self._log = open(directory / "redis.log", "ab")

    def start(self):
        if port_open(self.port):
            pytest.fail(
                f"something already listens on port {self.port}: a Redis left over "
                "from an earlier run? (this test restarts its own Redis there)"
            )
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        wait_until(
            lambda: port_open(self.port) or self.proc.poll() is not None,
            15,
            "redis-server to listen",
        )
        assert self.proc.poll() is None, (self.dir / "redis.log").read_text()

    def kill(self):
        """Dies at once (SIGKILL): every connection drops and every key is gone."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self._log.close()


@pytest.fixture
def own_redis(tmp_path, transactional_db, secret_key):
    """Processes on a Redis of our own (port 6391), which the test may kill and restart;
    tasks this test process sends go there too."""
    require_real_parts()
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server on the PATH to run a Redis that may be restarted")
    redis = OwnRedis(tmp_path)
    redis.start()
    queue = f"faults-{uuid.uuid4().hex[:8]}"
    processes = Stack(tmp_path, queue, redis.url, secret_key)
    try:
        with routed_to(queue, redis.url):
            yield redis, processes
    finally:
        processes.close()
        redis.stop()
        connection.close()


def session_cookie(user):
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value
