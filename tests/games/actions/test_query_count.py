import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import store
from games.actions import decisions
from tests.conftest import make_started_game, play_until

pytestmark = pytest.mark.django_db

# PostgreSQL: SAVEPOINT + lock (game and snapshot) + idempotency look-up + one
# write (a statement whose CTEs insert the event and update the game and the
# snapshot, games.store.append) + RELEASE SAVEPOINT. Other backends take the ORM
# path, where the write is three statements (insert event, update game, update
# snapshot). (In a test the outer transaction turns atomic() into a savepoint;
# outside one these are BEGIN and COMMIT.)
QUERIES_PER_DECISION = 5 if connection.vendor == "postgresql" else 7


def next_decision(game):
    game.refresh_from_db()
    state = store.load_state(game)
    seat = game.waiting_on[0]
    return seat, state.auto_action(seat)


def test_a_decision_costs_the_same_queries_early_and_late_in_a_long_game(
    four, django_assert_num_queries
):
    game = make_started_game(four, target_score=5000)
    counts = {}
    for move in (3, 60, 400):
        play_until(game, move)
        seat, action = next_decision(game)
        with CaptureQueriesContext(connection) as queries:
            decisions.apply_decision(
                game.pk, seat, action, "person", idempotency_key=uuid.uuid4().hex
            )
        counts[move] = len(queries)

    assert counts[3] == counts[60] == counts[400] == QUERIES_PER_DECISION, counts
    seat, action = next_decision(game)
    with django_assert_num_queries(QUERIES_PER_DECISION):
        decisions.apply_decision(game.pk, seat, action, "person", idempotency_key="last")
