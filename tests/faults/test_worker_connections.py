"""A prefork Celery worker keeps its PostgreSQL connections between tasks: a thousand tasks
open no new session. Celery's Django fixup used to close the process's connection pool
around every task, so each task paid a new PostgreSQL backend (config/celery.py,
`return_connections`; settings: CELERY_DB_REUSE_MAX). The worker is a real subprocess on
Redis and PostgreSQL; the sessions are counted by PostgreSQL itself."""

import time

import pytest
import redis
from django.conf import settings
from django.db import connection

from games.tasks import fire_clock
from tests.faults.support import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# A backend reports its counts when it ends, or within PostgreSQL's idle interval (10 s)
# once it is idle: a reading waits that long for every session so far to be counted.
STATS_SETTLE_SECONDS = 11


def sessions_so_far():
    """Sessions ever opened to the test database, as PostgreSQL counts them."""
    time.sleep(STATS_SETTLE_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def run_tasks(stack, count):
    """`count` real tasks that each read PostgreSQL (the countdown of a game that does not
    exist: it looks for it and finds none), then waits until the queue is empty."""
    for _ in range(count):
        fire_clock.delay(0)
    queue = redis.Redis.from_url(settings.REDIS_URL)
    wait_until(lambda: queue.llen(stack.queue) == 0, 120, f"{count} tasks to be taken")
    time.sleep(1)  # the last one taken finishes


def test_a_thousand_tasks_in_a_prefork_worker_open_no_new_postgresql_session(stack):
    stack.worker(pool="prefork")
    run_tasks(stack, 20)  # the pool process opens its connection
    before = sessions_so_far()
    run_tasks(stack, 1000)
    after = sessions_so_far()
    assert after - before == 0, f"{after - before} sessions opened by 1000 tasks"
    assert "Traceback" not in stack.log("worker"), stack.log("worker")[-3000:]


def test_a_pooled_connection_ended_by_the_server_costs_no_task(stack):
    """The server ends the worker's idle session (a restart, an administrator, a proxy's
    time-out): the next task must not fail on the dead connection the pool hands it."""
    stack.worker(pool="prefork")
    run_tasks(stack, 5)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND backend_type = 'client backend'"
        )
        assert cursor.fetchall(), "the worker held no session"
    # This process's own pool lost its idle sessions too: it starts afresh.
    connection.close()
    if getattr(connection, "pool", None) is not None:
        connection.close_pool()
    run_tasks(stack, 5)
    log = stack.log("worker")
    assert "OperationalError" not in log and "Traceback" not in log, log[-3000:]
