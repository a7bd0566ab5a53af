"""Reviews through the real broker: a Celery worker started as a subprocess works a
requested review out slice by slice on PostgreSQL and Redis and tells the player's site
sockets of each, and a worker that consumes both queues takes every bot move and clock
before any review slice (kombu's "priority" queue order, config/celery.py).

Needs DATABASE_URL=postgres://... and REDIS_URL (.ci/run sets both)."""

import os
import subprocess
import sys
import time
import uuid

import pytest
from asgiref.sync import async_to_sync
from celery import signals
from celery.contrib.testing.worker import start_worker
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from config.celery import app as celery_app
from games.models import GameReview
from games.routing import websocket_urlpatterns
from tests.conftest import make_user
from tests.games.review.conftest import finished_game
from tests.games.tasks.test_realtime_clock import _database_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queues(settings):
    """(the site's queue, the reviews' queue) of this test alone, so that no other worker
    sharing the Redis takes its tasks: the reviews' sends name theirs (settings), the
    others are routed to the site's as a worker started with CELERY_QUEUE would be."""
    own = f"reviewtest-{uuid.uuid4().hex[:8]}"
    pair = (own, f"{own}-reviews")
    settings.CELERY_REVIEW_QUEUE = pair[1]
    amqp = celery_app.amqp
    saved = celery_app.conf.task_routes
    celery_app.conf.task_routes = {"*": {"queue": pair[0]}}
    amqp.flush_routes()
    amqp.__dict__.pop("router", None)
    yield pair
    with celery_app.connection_for_write() as connection:
        for name in pair:
            connection.default_channel.queue_purge(name)
    celery_app.conf.task_routes = saved
    amqp.flush_routes()
    amqp.__dict__.pop("router", None)
    # A worker started on these queues selected them in the app's own queue set, which
    # outlives the worker: left so, the next in-process worker of the run would consume
    # only these and never the site's queue. Built again from the settings when next read.
    amqp.__dict__.pop("queues", None)


@pytest.fixture
def needs_the_real_services():
    if not settings.REDIS_URL or "postgres" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("needs DATABASE_URL=postgres://... and REDIS_URL (.ci/run sets both)")


@pytest.fixture
def worker_process(needs_the_real_services, queues, tmp_path):
    """`celery -A config worker` as the site starts it (no -Q: both queues, from
    CELERY_TASK_QUEUES), with the tests' tiny reviews."""
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_QUEUE": queues[0],
        "REVIEW_ROLLOUTS": "2",
        "REVIEW_SLICE_MS": "200",
        "LOG_LEVEL": "INFO",
    }
    node = f"reviewtest-{uuid.uuid4().hex[:8]}@localhost"
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-n", node]
        + ["-l", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=settings.BASE_DIR,
    )
    try:
        ready = time.monotonic() + 90
        while not celery_app.control.ping(destination=[node], timeout=0.5):
            assert time.monotonic() < ready, "the worker did not start"
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()
        yield tmp_path / "worker.log"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_a_requested_review_is_worked_out_by_a_real_worker(worker_process):
    """Ana asks with her site socket open: the worker's slices reach the socket through
    Redis, each with its count, up to the whole review on the row."""
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = finished_game(people)
    client = Client()
    client.force_login(people[0])
    url = reverse("history:review_request", args=[game.pk])

    async def scenario():
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/me/")
        socket.scope["user"] = people[0]
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from(timeout=10))["type"] == "waiting"
        answer = await database_sync_to_async(client.post)(url)
        assert answer.status_code == 302
        told = []
        while not told or told[-1]["status"] != "done":
            try:
                message = await socket.receive_json_from(timeout=120)
            except TimeoutError:
                pytest.fail(worker_process.read_text()[-3000:])
            if message["type"] == "review":
                told.append(message)
        await socket.disconnect()
        return told

    told = async_to_sync(scenario)()
    row = GameReview.objects.get(game=game, seat=0)
    assert row.status == "done"
    assert row.done == row.total == len(row.data["decisions"]) > 0
    assert sum(row.data["summary"]["counts"].values()) == row.total
    # Each slice told its progress, in order, up to the whole.
    assert [m["done"] for m in told] == sorted(m["done"] for m in told)
    assert told[-1] == {
        "type": "review",
        "game": game.pk,
        "seat": 0,
        "done": row.total,
        "total": row.total,
        "status": "done",
    }


def ran_in_order(queues, sends, transport_options):
    """Sends `sends` [(task name, args, queue)] with no worker running, then starts one on both
    queues (the site's first) and returns the names of the tasks in the order it ran them."""
    order = []

    def record(sender=None, **kwargs):
        order.append(sender.name)

    for name, args, queue in sends:
        celery_app.send_task(name, args, queue=queue)
    saved = celery_app.conf.broker_transport_options
    celery_app.conf.broker_transport_options = transport_options
    signals.task_prerun.connect(record, weak=False)
    try:
        with start_worker(
            celery_app,
            pool="solo",
            perform_ping_check=False,
            shutdown_timeout=30,
            queues=list(queues),
        ):
            deadline = time.monotonic() + 60
            while len(order) < len(sends):
                assert time.monotonic() < deadline, order
                time.sleep(0.05)
    finally:
        signals.task_prerun.disconnect(record)
        celery_app.conf.broker_transport_options = saved
    return order


def test_a_worker_takes_the_site_s_tasks_before_any_review_slice(needs_the_real_services, queues):
    """Four review slices wait, then three tasks of the site's queue arrive (a bot's move,
    a clock, an email: here the email task, which finds nothing to send): the worker takes
    the three first. Without the priority order (kombu's round robin) it would take the
    reviews' queue in turns with them, which the second run shows."""
    # No such review: each slice is "stale" at once.
    slices = [("games.tasks.review_slice", (0, 0), queues[1])] * 4
    site = [("games.tasks.deliver_emails", (0,), queues[0])] * 3
    options = celery_app.conf.broker_transport_options
    assert options["queue_order_strategy"] == "priority"
    order = ran_in_order(queues, slices + site, options)
    assert order == ["games.tasks.deliver_emails"] * 3 + ["games.tasks.review_slice"] * 4
    round_robin = {k: v for k, v in options.items() if k != "queue_order_strategy"}
    order = ran_in_order(queues, slices + site, round_robin)
    assert order[:3] != ["games.tasks.deliver_emails"] * 3, order
