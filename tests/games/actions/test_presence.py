"""Disconnects (rule book, "If you disconnect"): a two-minute hold, then a bot until the
player returns; coming back hands the seat straight back."""

import pytest

from games import effects, tasks
from games.actions import presence, timeouts
from games.models import Game, GameEvent
from tests.conftest import make_started_game
from tests.games.clock_support import at, fresh, move_as_person, timeout_events, travel

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_bots(monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.play_bot, "delay", lambda *args: queued.append(args))
    monkeypatch.setattr(
        effects,
        "task_on_commit",
        lambda name, *args, **options: (
            queued.append(args) if name == "games.tasks.play_bot" else None
        ),
    )
    return queued


def start(users, **options):
    options.setdefault("pace", Game.Pace.REALTIME)
    options.setdefault("move_seconds", 45)
    with travel(at(0)):
        game = make_started_game(users, **options)
        for seat in range(len(users)):
            presence.seat_connected(game.pk, seat)
    return game


def others_pick(game, but):
    with travel(at(1)):
        for seat in fresh(game).waiting_on:
            if seat != but:
                move_as_person(game, seat)


def away_until_the_hold_ends(game, seat):
    """At 1 s everyone plays until `seat` has just moved, and then it drops; at 100 s
    the others play until it must decide again (its clock runs to 145 s); its hold
    ends at 121 s."""
    with travel(at(1)):
        while True:
            mover = fresh(game).waiting_on[0]
            move_as_person(game, mover)
            if mover == seat and seat not in fresh(game).waiting_on:
                break
        presence.seat_disconnected(game.pk, seat)
    with travel(at(100)):
        while seat not in fresh(game).waiting_on:
            move_as_person(game, fresh(game).waiting_on[0])
    sweep_at(120)
    assert fresh(game).stand_ins == {}
    sweep_at(121)


def sweep_at(seconds):
    with travel(at(seconds)):
        return timeouts.sweep()


def test_a_dropped_seat_is_held_for_two_minutes(four):
    game = start(four)
    others_pick(game, but=1)

    with travel(at(1)):
        entry = presence.seat_disconnected(game.pk, 1)

    assert entry == {
        "sockets": 0,
        "away_since": at(1).isoformat(),
        "hold_until": at(121).isoformat(),
    }
    game = fresh(game)
    assert game.presence["1"] == entry
    assert game.wake_at == at(45)  # its move timer still comes first


def test_during_the_hold_the_players_clock_still_runs_out_as_a_time_out(four):
    game = start(four)
    others_pick(game, but=1)
    with travel(at(1)):
        presence.seat_disconnected(game.pk, 1)

    sweep_at(46)

    assert [e.seat for e in timeout_events(game)] == [1]
    assert fresh(game).stand_ins == {}
    assert 1 not in fresh(game).bot_seats
    assert fresh(game).timeouts == {}  # made, but not one of the three (the next test)


def test_time_outs_during_the_hold_do_not_hand_the_seat_away_for_good(four):
    """At a 15 s timer a dropped seat times out again and again during its two-minute hold:
    each is the plain move, none counts toward the three, so the rule book's hold is what
    happens (a bot plays until the player is back, not for the rest of the game)."""
    game = start(four, move_seconds=15)
    others_pick(game, but=1)
    with travel(at(1)):
        presence.seat_disconnected(game.pk, 1)
    moment = 1
    while moment + 16 < 121:
        others = [s for s in fresh(game).waiting_on if s != 1]
        if others:
            with travel(at(moment)):
                move_as_person(game, others[0])
            continue
        moment += 16
        sweep_at(moment)
    game = fresh(game)
    assert len(timeout_events(game, 1)) >= 3
    assert game.timeouts == {} and game.stand_ins == {}

    sweep_at(121)

    assert fresh(game).stand_ins["1"]["reason"] == "away"
    with travel(at(130)):
        presence.seat_connected(game.pk, 1)
    assert fresh(game).stand_ins == {} and 1 not in fresh(game).bot_seats


def test_after_two_minutes_a_bot_plays_for_the_player(four, queued_bots):
    game = start(four, seed=11)

    away_until_the_hold_ends(game, 1)

    game = fresh(game)
    assert game.stand_ins == {"1": {"reason": "away", "since": at(121).isoformat()}}
    assert 1 in game.bot_seats and "1" not in game.clocks
    assert timeout_events(game) == []
    assert queued_bots == [(game.pk, 1, game.last_seq)]
    assert tasks.play_bot(*queued_bots[0]) == "played"
    assert GameEvent.objects.filter(game=game).last().actor == "bot"


def test_coming_back_hands_the_seat_straight_back(four, queued_bots):
    game = start(four, seed=12)
    away_until_the_hold_ends(game, 1)
    seq = fresh(game).last_seq

    with travel(at(130)):
        entry = presence.seat_connected(game.pk, 1)

    game = fresh(game)
    assert entry["sockets"] == 1 and entry["hold_until"] is None
    assert game.stand_ins == {} and 1 not in game.bot_seats
    # The decision the bot had not made yet is the player's again, with a fresh clock.
    assert game.clocks["1"]["since"] == seq
    assert game.clocks["1"]["due"] == at(175).isoformat()
    assert tasks.play_bot(game.pk, 1, seq) == "not a bot"
    with travel(at(131)):
        move_as_person(game, 1)
    assert GameEvent.objects.filter(game=game).last().actor == "person"


def test_a_player_back_within_the_hold_never_meets_the_bot(four):
    game = start(four)
    others_pick(game, but=1)
    with travel(at(1)):
        presence.seat_disconnected(game.pk, 1)
    with travel(at(60)):
        presence.seat_connected(game.pk, 1)

    sweep_at(200)

    game = fresh(game)
    assert game.stand_ins == {} and 1 not in game.bot_seats
    assert game.presence["1"]["hold_until"] is None


def test_the_hold_starts_only_when_the_last_socket_of_the_seat_closes(four):
    game = start(four)
    with travel(at(1)):
        presence.seat_connected(game.pk, 2)  # a second tab
        assert presence.seat_disconnected(game.pk, 2)["hold_until"] is None
        assert presence.seat_disconnected(game.pk, 2)["hold_until"] == at(121).isoformat()


def test_turn_by_turn_games_hold_nothing(four):
    game = start(four, pace=Game.Pace.TURN_BASED)

    with travel(at(1)):
        entry = presence.seat_disconnected(game.pk, 1)

    assert entry["sockets"] == 0 and entry["hold_until"] is None
    assert fresh(game).wake_at == at(hours=12)  # the reminder, not a hold


def test_bot_seats_and_finished_games_are_left_alone(ana):
    game = start([ana], bots=["easy"])
    assert presence.seat_connected(game.pk, 1) is None
    assert presence.seat_disconnected(game.pk, 1) is None

    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    assert presence.seat_disconnected(game.pk, 0) is None
