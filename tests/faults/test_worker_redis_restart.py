"""A Celery worker that holds a countdown it has not acknowledged lives through a Redis
restart, reconnects and goes on taking tasks.

Every running real-time clock is such a countdown (`fire_clock`, sent with an eta), so a
worker almost always holds one. Celery 5.7.0 closes the lost broker connection before it
reconnects; closing hands the unacknowledged messages back through a connection that is
already gone, kombu's Redis transport raises AttributeError, and the worker exits
("Unrecoverable error"). The soak under faults (bench/soak.py) found it; pyproject.toml keeps
Celery below 5.7 for it. The worker, Redis and PostgreSQL are real.
"""

import time

import pytest
import redis

from config.celery import app as celery_app
from games.tasks import fire_clock
from tests.faults.support import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def send(server, countdown=None):
    """A real task (the countdown of a game that does not exist: it looks and finds none)
    on the test's queue, through a connection to the test's own Redis."""
    with celery_app.connection_for_write(server.url) as conn:
        fire_clock.apply_async((0,), countdown=countdown, connection=conn)


def test_a_worker_holding_a_countdown_lives_through_a_redis_restart(own_redis):
    server, stack = own_redis
    worker = stack.worker(pool="prefork")
    send(server, countdown=600)  # reserved by the worker, unacknowledged
    broker = redis.Redis.from_url(server.url)
    wait_until(
        lambda: broker.llen(stack.queue) == 0 and broker.hlen("unacked") == 1,
        30,
        "the worker to take the countdown",
        lambda: stack.log("worker")[-3000:],
    )

    server.kill()
    time.sleep(1.0)
    server.start()
    wait_until(
        lambda: stack.log("worker").count("Connected to redis") >= 2 or worker.poll() is not None,
        60,
        "the worker to reconnect",
        lambda: stack.log("worker")[-3000:],
    )
    assert worker.poll() is None, stack.log("worker")[-3000:]
    assert "Unrecoverable error" not in stack.log("worker"), stack.log("worker")[-3000:]

    # It takes tasks again: one sent to the new Redis is taken, run and acknowledged (the
    # site's tasks are acknowledged after they ran), so the broker holds no more than the
    # countdown it gave back.
    broker = redis.Redis.from_url(server.url)
    holding = broker.hlen("unacked")
    send(server)
    wait_until(
        lambda: broker.llen(stack.queue) == 0 and broker.hlen("unacked") <= holding,
        60,
        "a task sent after the restart to run",
        lambda: f"{broker.hgetall('unacked')} {stack.log('worker')[-3000:]}",
    )
    time.sleep(0.5)
    assert broker.hlen("unacked") <= holding
    assert worker.poll() is None
