"""A seat's state read and written through games.store.seats, on the JSON the game rows
already hold (the formats in docs/clocks.md)."""

from datetime import UTC, datetime, timedelta

import pytest

from games.models import Game
from games.store import seats

NOW = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


def row(**columns):
    """A game as a stored row has it: JSON keys are strings."""
    values = {
        "clocks": {},
        "timeouts": {},
        "stand_ins": {},
        "presence": {},
        "bot_seats": [],
        "waiting_on": [],
        "pace": Game.Pace.REALTIME,
        "move_seconds": 30,
        "seed": 7,
        "deadline_at": None,
        "wake_at": None,
    }
    values.update(columns)
    return Game(**values)


CLOCK = {
    "since": 4,
    "kind": "turn",
    "started": NOW.isoformat(),
    "due": (NOW + timedelta(seconds=30)).isoformat(),
    "remind_at": None,
    "reminded": False,
}


def test_the_readers_answer_from_the_stored_columns():
    game = row(
        clocks={"2": CLOCK},
        timeouts={"2": 2},
        waiting_on=[2, 3],
        bot_seats=[1, 3],
        stand_ins={"3": {"reason": "timeouts", "since": NOW.isoformat()}},
        presence={"2": {"sockets": 1, "away_since": None, "hold_until": None}},
    )

    assert seats.clock(game, 2) == CLOCK and seats.clock(game, 3) is None
    assert seats.due(game, 2) == NOW + timedelta(seconds=30)
    assert seats.timeouts_of(game, 2) == 2 and seats.timeouts_of(game, 0) == 0
    assert seats.for_good(game, 3) and not seats.away(game, 3) and not seats.for_good(game, 2)
    assert seats.bot_seat(game, 1) and not seats.bot_seat(game, 3)
    assert seats.bot_moves(game, 3) and not seats.bot_moves(game, 2)
    assert seats.waited_on(game, 2) and not seats.waited_on(game, 1)
    assert seats.present(game, 2) and not seats.present(game, 0)
    assert seats.presence(game, 0) == {"sockets": 0, "away_since": None, "hold_until": None}


def test_old_rows_with_null_columns_read_as_empty():
    game = row(
        clocks=None, timeouts=None, stand_ins=None, presence=None, bot_seats=None, waiting_on=None
    )

    assert seats.clock(game, 0) is None and seats.timeouts_of(game, 0) == 0
    assert not seats.for_good(game, 0) and not seats.bot_moves(game, 0)
    assert not seats.present(game, 0) and seats.clocks(game) == []


def test_changes_write_the_formats_the_rows_hold_and_their_deadlines():
    game = row(
        clocks={"2": CLOCK},
        presence={"1": {"sockets": 0, "away_since": None, "hold_until": NOW.isoformat()}},
    )
    changes = seats.SeatChanges(game)

    assert changes.holds_ended(NOW) == [1]
    changes.hand_to_bot(1, seats.AWAY, NOW)
    assert changes.count_timeout(2) == 1
    columns = changes.columns()

    assert columns["stand_ins"] == {"1": {"reason": "away", "since": NOW.isoformat()}}
    assert columns["bot_seats"] == [1] and columns["timeouts"] == {"2": 1}
    assert "clocks" not in columns and "presence" not in columns
    # The held seat's hold no longer wakes the sweep: the clock of seat 2 does.
    assert columns["wake_at"] == NOW + timedelta(seconds=30)
    assert game.stand_ins == {}  # nothing changes on the game before apply()
    changes.apply()
    assert seats.away(game, 1) and seats.timeouts_of(game, 2) == 1


def test_changes_that_change_nothing_write_nothing():
    game = row(
        clocks={"2": CLOCK},
        deadline_at=NOW + timedelta(seconds=30),
        wake_at=NOW + timedelta(seconds=30),
    )

    assert seats.SeatChanges(game).columns() == {}


def test_a_reminder_is_due_once():
    clock = {**CLOCK, "remind_at": NOW.isoformat()}
    game = row(clocks={"0": clock}, pace=Game.Pace.TURN_BASED)
    changes = seats.SeatChanges(game)

    assert changes.reminders_due(NOW) == [(0, 4)]
    assert changes.reminders_due(NOW) == []
    assert changes.columns()["clocks"]["0"]["reminded"] is True
    assert game.clocks["0"]["reminded"] is False


def test_handing_a_seat_back_leaves_the_bot_seats():
    game = row(bot_seats=[1, 2], stand_ins={"2": {"reason": "away", "since": NOW.isoformat()}})
    changes = seats.SeatChanges(game)
    changes.hand_back(2)
    changes.apply()

    assert game.bot_seats == [1] and game.stand_ins == {}


def test_a_seat_that_becomes_a_bots_loses_its_clock_hold_and_stand_in():
    game = row(
        clocks={"2": CLOCK},
        bot_seats=[1],
        presence={"2": {"sockets": 0, "away_since": None, "hold_until": NOW.isoformat()}},
        stand_ins={"2": {"reason": "away", "since": NOW.isoformat()}},
        deadline_at=NOW + timedelta(seconds=30),
        wake_at=NOW,
    )
    changes = seats.SeatChanges(game)
    changes.become_bot(2)
    columns = changes.columns()

    assert (columns["clocks"], columns["presence"], columns["stand_ins"]) == ({}, {}, {})
    assert columns["bot_seats"] == [1, 2]
    assert columns["deadline_at"] is None and columns["wake_at"] is None


@pytest.mark.parametrize("seq", [0, 17, 2**40])
def test_the_bot_seed_is_the_one_formula(seq):
    game = row(seed=2**62 + 5)

    assert seats.bot_seed(game, 3, seq) == (game.seed + seq * 131 + 3) & (2**63 - 1)
