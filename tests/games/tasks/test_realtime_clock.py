"""A real-time time-out fires on its own: a real Celery worker and a real beat, started
here as subprocesses (`celery -A config worker` / `beat`), against Redis and PostgreSQL.

Nothing in this process runs a task: the game is created here, its bots are played
by the worker, and seat 0 (a person who never moves) must time out by itself.
"""

import os
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection, transaction

from config.celery import app as celery_app
from games import store
from games.actions import clock
from games.models import Game, GameEvent, GameSnapshot
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _database_url():
    db = connection.settings_dict
    auth = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"])
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


# The fixtures are registered under names of their own (tests/games/api/test_example_bot.py
# imports them, and a test taking `own_queue` must not shadow an imported name).
@pytest.fixture(name="own_queue")
def own_queue_fixture():
    """Tasks of this test go to a queue of their own (CELERY_QUEUE in the subprocesses),
    so that no other worker sharing the Redis (another test run) takes them."""
    queue = f"clocktest-{uuid.uuid4().hex[:8]}"
    amqp = celery_app.amqp
    saved = celery_app.conf.task_routes
    celery_app.conf.task_routes = {"games.tasks.*": {"queue": queue}}
    amqp.flush_routes()
    amqp.__dict__.pop("router", None)
    yield queue
    celery_app.conf.task_routes = saved
    amqp.flush_routes()
    amqp.__dict__.pop("router", None)


@pytest.fixture(name="worker_and_beat")
def worker_and_beat_fixture(tmp_path, own_queue):
    if not settings.REDIS_URL:
        pytest.skip(
            "needs REDIS_URL (a real broker shared with the worker and beat "
            "subprocesses); .ci/run sets it"
        )
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs DATABASE_URL=postgres://... (the subprocesses must see this "
            "test's committed rows); .ci/run sets it"
        )
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "LOG_LEVEL": "INFO",
        "CELERY_QUEUE": own_queue,
    }
    node = f"clocktest-{uuid.uuid4().hex[:8]}@localhost"
    python = sys.executable
    logs = {name: open(tmp_path / f"{name}.log", "w") for name in ("worker", "beat")}
    procs = [
        subprocess.Popen(
            [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-P",
                "solo",
                "-n",
                node,
                "-l",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            env=env,
            stdout=logs["worker"],
            stderr=subprocess.STDOUT,
            cwd=settings.BASE_DIR,
        ),
        subprocess.Popen(
            [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "-l",
                "INFO",
                "--schedule",
                str(tmp_path / "celerybeat-schedule"),
            ],
            env=env,
            stdout=logs["beat"],
            stderr=subprocess.STDOUT,
            cwd=settings.BASE_DIR,
        ),
    ]
    try:
        ready = time.monotonic() + 90
        while not celery_app.control.ping(destination=[node], timeout=0.5):
            assert time.monotonic() < ready, "the worker did not start"
            assert all(p.poll() is None for p in procs), (tmp_path / "worker.log").read_text()
        yield tmp_path
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for log in logs.values():
            log.close()


def _wait_for_time_out(game, seat, until):
    while time.monotonic() < until:
        event = GameEvent.objects.filter(game=game, seat=seat, actor="timeout").first()
        if event is not None:
            return event
        time.sleep(0.05)
    return None


def _the_time_out_fires_on_its_own(logs, slack):
    host = make_user("host")
    game = make_started_game(
        [host], players=4, pace=Game.Pace.REALTIME, move_seconds=15, bots=["easy"]
    )
    game.refresh_from_db()
    due = game.deadline_at
    assert due is not None and "0" in game.clocks

    event = _wait_for_time_out(game, 0, time.monotonic() + 15 + 30)

    assert event is not None, (logs / "worker.log").read_text()[-4000:]
    assert (event.kind, event.idempotency_key) == ("pass", "timeout-0-1")
    late = event.created_at - due
    assert timedelta(0) <= late <= slack, late
    # The bots moved too, through the same worker.
    assert set(GameEvent.objects.filter(game=game, actor="bot").values_list("seat", flat=True)) == {
        1,
        2,
        3,
    }
    # The bots may still be playing: read the events and the snapshot under the game's lock,
    # so that no move lands between the two reads.
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        assert store.replay(game).to_dict() == GameSnapshot.objects.get(game=game).state


def test_a_real_time_time_out_fires_within_a_second_of_its_due_time(worker_and_beat):
    _the_time_out_fires_on_its_own(worker_and_beat, slack=timedelta(seconds=1))


def test_the_beat_sweep_alone_fires_a_time_out_whose_countdown_was_lost(
    worker_and_beat, monkeypatch
):
    monkeypatch.setattr(clock, "_schedule_countdown", lambda *args: None)
    # One beat period (1 s) plus the sweep's own work.
    _the_time_out_fires_on_its_own(worker_and_beat, slack=timedelta(seconds=2))
