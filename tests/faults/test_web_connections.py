"""PostgreSQL ends the site's sessions (a restart, `pg_terminate_backend`, a proxy's
time-out): a web process's pool then holds only dead connections, and the next requests and
moves must not fail on them. The pool checks each connection as it hands it out
(settings: DATABASE_HEALTH_CHECKS) and opens another in place of a dead one. Without the
check each pooled connection failed one request with "terminating connection due to
administrator command"."""

import psycopg
import pytest
from django.db import connection

from games.models import Game
from tests.conftest import PASSWORD, make_started_game, make_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _pooled_sessions(count):
    """Puts `count` open sessions into this process's pool, as a busy web process has."""
    held = []
    for _ in range(count):
        held.append(connection.pool.getconn())
    for conn in held:
        connection.pool.putconn(conn)


def test_requests_after_the_server_ended_every_pooled_session_do_not_fail(client, require_postgres):
    if getattr(connection, "pool", None) is None:
        pytest.skip("needs the psycopg pool (DATABASE_POOL_SIZE > 0)")
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = make_started_game(people, pace=Game.Pace.TURN_BASED, turn_hours=24)
    assert client.login(username="ana", password=PASSWORD)
    connection.close()  # this test's connection goes back to the pool too
    _pooled_sessions(3)
    # Ended from a session of its own, outside the pool.
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as own:
        ended = own.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND backend_type = 'client backend'"
        ).fetchall()
    assert len(ended) >= 3
    # Each request takes a connection from the pool and hands it back: as many as the pool
    # held, and every one answers.
    for _ in range(4):
        assert client.get(f"/games/{game.pk}/").status_code == 200
