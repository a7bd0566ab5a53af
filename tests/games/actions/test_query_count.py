import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

from games import store
from games.actions import decisions
from games.routing import websocket_urlpatterns
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


# A move sent over the table socket, its push to every page included: on PostgreSQL the
# lock, the holder and key look-up, and the write, which returns the seats and the last
# events the push shows (games.store.TableReads), all in the move's one transaction.
# Elsewhere the ORM path: the lock and two look-ups, three writes, and the push's two reads.
STATEMENTS_PER_SOCKET_MOVE = 3 if connection.vendor == "postgresql" else 9


@pytest.mark.django_db(transaction=True)
def test_a_socket_move_and_its_push_to_every_page_cost_three_statements(four, monkeypatch):
    game = make_started_game(four, spectators=True)
    sent = []
    execute = CursorWrapper.execute

    def counted(self, sql, params=None):
        sent.append(sql)
        return execute(self, sql, params)

    application = URLRouter(websocket_urlpatterns)

    async def scenario():
        pages = []
        for user in four:
            page = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
            page.scope["user"] = user
            assert (await page.connect())[0]
            assert (await page.receive_json_from(timeout=5))["type"] == "hello"
            pages.append(page)
        counts = []
        for n in range(4):
            seat, action = await database_sync_to_async(next_decision)(game)
            sent.clear()
            # Counted in every thread: the move's own and the push's after its commit.
            monkeypatch.setattr(CursorWrapper, "execute", counted)
            await pages[seat].send_json_to({"type": "act", "action": action, "key": f"k{n}"})
            for page in pages:
                while (await page.receive_json_from(timeout=5))["type"] != "fragments":
                    pass
            monkeypatch.setattr(CursorWrapper, "execute", execute)
            counts.append(len(sent))
        for page in pages:
            await page.disconnect()
        return counts

    assert async_to_sync(scenario)() == [STATEMENTS_PER_SOCKET_MOVE] * 4
