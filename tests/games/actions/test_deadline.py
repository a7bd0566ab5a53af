"""Turn-by-turn deadlines (12/24/72 h) and the host's missed-deadline policy."""

from datetime import timedelta

import pytest

from games import store
from games.actions import timeouts
from games.models import EmailOutbox, Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.games.clock_support import (
    at,
    clock_of,
    due_of,
    fresh,
    move_as_person,
    timeout_events,
    travel,
)

pytestmark = pytest.mark.django_db


def start(users, **options):
    options.setdefault("pace", Game.Pace.TURN_BASED)
    with travel(at(0)):
        return make_started_game(users, **options)


def sweep_at(**delta):
    with travel(at(**delta)):
        return timeouts.sweep()


@pytest.mark.parametrize("hours", [12, 24, 72])
def test_each_decision_gets_the_turn_deadline_and_a_half_time_reminder(four, hours):
    game = start(four, turn_hours=hours)

    for seat in range(4):
        assert due_of(game, seat) == at(hours=hours)
        assert clock_of(game, seat)["remind_at"] == at(hours=hours / 2).isoformat()
    game = fresh(game)
    assert game.deadline_at == at(hours=hours)
    assert game.wake_at == at(hours=hours / 2)


def test_a_your_turn_email_row_is_written_with_each_new_decision(four):
    game = start(four)
    rows = EmailOutbox.objects.filter(game=game, kind="turn")
    assert sorted(rows.values_list("seat", "seq")) == [(0, 1), (1, 1), (2, 1), (3, 1)]

    with travel(at(hours=1)):
        for seat in range(4):
            move_as_person(game, seat)
    game = fresh(game)
    (seat,) = game.waiting_on
    assert rows.filter(seq=game.last_seq, seat=seat).count() == 1
    assert rows.count() == 5


def test_missed_deadline_bot_policy_a_bot_plays_that_one_decision(four):
    game = start(four, turn_hours=12, missed_deadline=Game.MissedDeadline.BOT)
    with travel(at(hours=1)):
        for seat in (0, 2, 3):
            move_as_person(game, seat)

    assert sweep_at(hours=11, minutes=59) == 1  # the reminder only
    assert timeout_events(game) == []
    sweep_at(hours=12)

    (event,) = timeout_events(game)
    assert (event.seat, event.kind, event.actor) == (1, "pass", "timeout")
    game = fresh(game)
    # That turn only: the seat stays the player's, with a clock for its next decision.
    assert game.stand_ins == {} and 1 not in game.bot_seats and game.timeouts == {}
    assert game.status == Game.Status.ACTIVE
    assert store.replay(game).to_dict() == game.snapshot.state
    later = [s for s in game.waiting_on if s not in game.bot_seats]
    assert all(str(s) in game.clocks for s in later)


def test_missed_deadline_leave_policy_the_players_team_leaves(four):
    game = start(four, turn_hours=24, missed_deadline=Game.MissedDeadline.LEAVE)
    with travel(at(hours=2)):
        for seat in (0, 1, 3):
            move_as_person(game, seat)

    sweep_at(hours=24, seconds=1)

    (event,) = timeout_events(game)
    assert (event.seat, event.kind, event.actor, event.action) == (
        2,
        "concede",
        "timeout",
        {"type": "concede"},
    )
    game = fresh(game)
    over = store.load_state(game).view(None)["game_over"]
    assert game.status == Game.Status.FINISHED
    assert over["winner"] == 1  # the other team (seats 1 and 3) wins at once
    assert over["ranking"] == [[1, 1], [0, 2]]
    assert game.clocks == {} and game.wake_at is None


def test_missed_deadline_leave_policy_with_three_teams_the_others_play_on(ana, bo):
    users = [ana, bo] + [make_user(f"p{i}") for i in range(4)]
    game = start(users, players=6, turn_hours=12, missed_deadline=Game.MissedDeadline.LEAVE)
    with travel(at(hours=1)):
        for seat in range(6):
            if seat != 4:
                move_as_person(game, seat)

    sweep_at(hours=12)

    game = fresh(game)
    view = store.load_state(game).view(None)
    assert game.status == Game.Status.ACTIVE
    assert view["departed"] == [False, True, False, False, True, False]
    assert "1" not in game.clocks and "4" not in game.clocks
    assert all(s not in (1, 4) for s in game.waiting_on)


def test_a_deadline_after_the_player_already_moved_does_nothing(four):
    game = start(four, turn_hours=12)
    with travel(at(hours=11, minutes=59)):
        for seat in range(4):
            move_as_person(game, seat)
    seq = fresh(game).last_seq

    sweep_at(hours=12, minutes=1)

    assert fresh(game).last_seq == seq
    assert timeout_events(game) == []


def test_the_sweep_only_touches_games_that_are_due(four, ana):
    due = start(four, turn_hours=12)
    bob = make_user("bob")
    with travel(at(hours=7)):
        not_due = make_started_game([bob], pace=Game.Pace.TURN_BASED, turn_hours=12)

    sweep_at(hours=12)

    assert len(timeout_events(due)) == 4
    assert timeout_events(not_due) == []
    assert not EmailOutbox.objects.filter(game=not_due, kind="reminder").exists()
    assert fresh(not_due).wake_at == at(hours=13)  # its reminder, 6 h after it started


def test_a_bot_stand_in_never_waits_for_a_deadline(ana):
    game = start([ana], bots=["easy"])

    assert sorted(fresh(game).clocks) == ["0"]
    assert GameEvent.objects.filter(game=game).count() == 1
    assert fresh(game).deadline_at == at(0) + timedelta(hours=24)
