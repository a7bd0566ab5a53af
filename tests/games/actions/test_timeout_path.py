"""A time-out goes through the decision door like any decision: one load of the state, the
seat's count and stand-in written with the event, nothing read again afterwards."""

import re
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import store
from games.actions import timeouts
from games.models import Game
from tests.conftest import make_started_game
from tests.games.actions.test_query_count import QUERIES_PER_DECISION
from tests.games.clock_support import at, fresh, timeout_events, travel

pytestmark = pytest.mark.django_db

GAMES = Path(__file__).resolve().parents[3] / "games"


def start(users, **options):
    options.setdefault("pace", Game.Pace.REALTIME)
    options.setdefault("move_seconds", 30)
    with travel(at(0)):
        return make_started_game(users, **options)


def one_seat_due(game):
    """At 31 s only seat 0's clock has run out (the others' run to 61 s)."""
    game = fresh(game)
    clocks = dict(game.clocks)
    for key in clocks:
        if key != "0":
            clocks[key] = {**clocks[key], "due": at(61).isoformat()}
    Game.objects.filter(pk=game.pk).update(clocks=clocks, wake_at=at(30), deadline_at=at(30))
    return fresh(game)


def test_a_time_out_loads_the_state_once(four, monkeypatch):
    game = one_seat_due(start(four))
    loads = []
    real = store.load_state
    monkeypatch.setattr(store, "load_state", lambda *a, **k: loads.append(1) or real(*a, **k))

    with travel(at(31)):
        timeouts.handle(game, at(31))

    assert len(timeout_events(game)) == 1
    assert len(loads) == 1


def test_a_time_out_costs_a_decisions_statements_and_its_savepoint(four):
    game = one_seat_due(start(four))
    assert game.snapshot is not None  # read before: the time-out's own statements are counted

    with travel(at(31)), CaptureQueriesContext(connection) as queries:
        timeouts.handle(game, at(31))

    assert len(timeout_events(game)) == 1
    # The decision's own statements, inside the savepoint of the time-out (2 more): no
    # write of the game's columns around the door, no read of the row after it.
    assert len(queries) == QUERIES_PER_DECISION + 2, [q["sql"] for q in queries]


def test_handle_leaves_the_game_as_the_row_is(four):
    game = one_seat_due(start(four))

    with travel(at(31)):
        timeouts.handle(game, at(31))

    row = fresh(game)
    assert (game.last_seq, game.clocks, game.timeouts, game.wake_at) == (
        row.last_seq,
        row.clocks,
        row.timeouts,
        row.wake_at,
    )
    assert game.timeouts == {"0": 1}


def _sources(*names):
    return {name: (GAMES / name).read_text() for name in names}


def test_only_the_store_and_the_door_write_a_games_columns():
    writers = _sources(
        "actions/timeouts.py",
        "actions/presence.py",
        "actions/clock.py",
        "actions/outbox.py",
        "tasks.py",
        "bot_stream.py",
        "api/routes/play.py",
        "api/routes/seating.py",
        "api/common.py",
    )
    for name, text in writers.items():
        assert not re.search(r"Game\.objects[^\n]*\.update\(", text), name
        assert ".refresh_from_db(" not in text, name


def test_the_bots_seed_is_worked_out_in_one_place():
    found = [str(p.relative_to(GAMES)) for p in GAMES.rglob("*.py") if "* 131" in p.read_text()]
    assert found == ["store/seats.py"]
