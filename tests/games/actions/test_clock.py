"""Real-time move timers: per-seat clocks, time-outs as events, the third time-out.

The clock is moved with time_machine; the sweep and the countdown task are
called directly (a real worker and beat run them in tests/games/tasks/test_realtime_clock.py).
"""

import pytest

from games import effects, engine, store, tasks
from games.actions import presence, timeouts
from games.models import Game, GameEvent
from tests.conftest import make_started_game
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
    options.setdefault("pace", Game.Pace.REALTIME)
    options.setdefault("move_seconds", 30)
    with travel(at(0)):
        return make_started_game(users, **options)


def sweep_at(seconds):
    with travel(at(seconds)):
        return timeouts.sweep()


def test_every_person_who_must_decide_gets_a_clock_of_the_move_timer(four):
    game = start(four, move_seconds=15)

    game = fresh(game)
    assert sorted(game.clocks) == ["0", "1", "2", "3"]
    for seat in range(4):
        entry = game.clocks[str(seat)]
        assert (entry["since"], entry["kind"], entry["remind_at"]) == (1, "setup", None)
        assert due_of(game, seat) == at(15)
    assert game.deadline_at == at(15) and game.wake_at == at(15)


def test_bot_seats_have_no_clock(ana):
    game = start([ana], bots=["easy"])

    assert sorted(fresh(game).clocks) == ["0"]


def test_a_setup_pick_by_one_seat_does_not_restart_the_others_clocks(four):
    game = start(four)
    before = clock_of(game, 1)

    with travel(at(10)):
        move_as_person(game, 0)

    game = fresh(game)
    assert "0" not in game.clocks
    assert game.clocks["1"] == before
    assert game.wake_at == at(30)


def test_nothing_times_out_before_the_clock_runs_out(four):
    game = start(four)

    assert sweep_at(29) == 0
    assert timeout_events(game) == []


def test_each_seat_that_has_not_chosen_times_out_on_its_own_clock(four):
    game = start(four)
    with travel(at(10)):
        move_as_person(game, 0)
    expected = {s: store.load_state(fresh(game)).auto_action(s) for s in (1, 2, 3)}

    assert sweep_at(30) == 1

    events = timeout_events(game)
    assert [(e.seat, e.kind, e.actor) for e in events] == [
        (1, "pass", "timeout"),
        (2, "pass", "timeout"),
        (3, "pass", "timeout"),
    ]
    assert {e.seat: e.action for e in events} == expected
    assert [e.idempotency_key for e in events] == ["timeout-1-1", "timeout-2-1", "timeout-3-1"]
    assert fresh(game).timeouts == {"1": 1, "2": 1, "3": 1}


def test_a_clock_started_by_a_seats_own_move_is_new(four):
    game = start(four)
    for seat in range(4):
        with travel(at(5)):
            move_as_person(game, seat)
    game = fresh(game)
    (seat,) = game.waiting_on

    assert clock_of(game, seat)["since"] == game.last_seq
    assert due_of(game, seat) == at(35)


def test_a_firing_after_the_player_moved_does_nothing(four):
    game = start(four)
    with travel(at(29)):
        for seat in range(4):
            move_as_person(game, seat)
    game = fresh(game)
    seq = game.last_seq

    assert sweep_at(31) == 0  # nothing is due: the new clock runs to 59 s
    with travel(at(31)):
        assert tasks.fire_clock(game.pk) is False
    assert fresh(game).last_seq == seq
    assert timeout_events(game) == []


def test_a_deadline_handled_twice_makes_exactly_one_move(four):
    game = start(four)
    stale = fresh(game)  # a worker that read the game before the first firing

    sweep_at(31)
    sweep_at(31)
    with travel(at(31)):
        tasks.fire_clock(game.pk)
        # Even a firing that skipped every check is stopped by the event's key.
        result = timeouts._time_out(stale, 1, stale.clocks["1"], at(31))

    assert result is None
    assert len(timeout_events(game, seat=1)) == 1
    assert fresh(game).timeouts["1"] == 1


def test_the_countdown_task_is_sent_on_commit_for_the_exact_due_time(
    four, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(
        tasks.fire_clock, "apply_async", lambda args, **kw: sent.append((args, kw["eta"]))
    )
    with django_capture_on_commit_callbacks(execute=True):
        game = start(four, move_seconds=45)

    assert sent == [((game.pk,), at(45))]
    with travel(at(44)):
        assert tasks.fire_clock(game.pk) is False
    with travel(at(45)):
        assert tasks.fire_clock(game.pk) is True
    assert len(timeout_events(game)) == 4


@pytest.fixture
def countdowns(monkeypatch):
    """The eta of every countdown task sent, in order."""
    sent = []
    monkeypatch.setattr(tasks.fire_clock, "apply_async", lambda args, **kw: sent.append(kw["eta"]))
    return sent


def past_the_setup_pass(users, on_commit):
    """A real-time game (45 s timer) whose four setup picks were made at 10 s."""
    with on_commit(execute=True):
        game = start(users, move_seconds=45)
    with travel(at(10)), on_commit(execute=True):
        for seat in range(4):
            move_as_person(game, seat)
    return fresh(game)


def test_a_game_has_one_countdown_task_at_a_time_re_armed_by_each_firing(
    four, countdowns, django_capture_on_commit_callbacks
):
    on_commit = django_capture_on_commit_callbacks
    game = past_the_setup_pass(four, on_commit)
    # The start sent one; the four picks before it fires started clocks due later than it,
    # so it will do and none of them sent one.
    (seat,) = game.waiting_on
    assert due_of(game, seat) == at(55)
    assert countdowns == [at(45)]

    # The task fires with nothing due: it sends the next one, for the clock left.
    with travel(at(45)), on_commit(execute=True):
        assert tasks.fire_clock(game.pk) is False
    assert countdowns == [at(45), at(55)]
    assert fresh(game).countdown_at == at(55)
    # A second copy of that firing (a retry) finds the next task already on its way.
    with travel(at(45)), on_commit(execute=True):
        assert tasks.fire_clock(game.pk) is False
    assert countdowns == [at(45), at(55)]

    # It fires on time: the time-out is made, and the next player's clock gets its task.
    with travel(at(55)), on_commit(execute=True):
        assert tasks.fire_clock(game.pk) is True
    assert len(timeout_events(game, seat=seat)) == 1
    assert countdowns == [at(45), at(55), at(100)]


def test_a_move_after_a_lost_countdown_sends_a_new_one(
    four, countdowns, django_capture_on_commit_callbacks
):
    on_commit = django_capture_on_commit_callbacks
    game = past_the_setup_pass(four, on_commit)
    # The task for 45 s never runs (lost with a worker): nothing re-arms the game's countdown.
    # The next move sees the game's pending countdown in the past and sends one itself.
    with travel(at(50)), on_commit(execute=True):
        (seat,) = game.waiting_on
        move_as_person(game, seat)
    assert countdowns == [at(45), at(95)]
    assert fresh(game).countdown_at == at(95)


def test_turn_by_turn_deadlines_never_get_a_countdown_task(
    four, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(
        tasks.fire_clock, "apply_async", lambda *a, **k: pytest.fail("a long countdown was sent")
    )
    monkeypatch.setattr(tasks.deliver_emails, "apply_async", lambda *a, **k: None)
    with django_capture_on_commit_callbacks(execute=True):
        start(four, pace=Game.Pace.TURN_BASED)


def test_a_time_out_makes_the_engines_plain_move_for_every_kind_of_decision(four, settings):
    """A whole stacking game played by time-outs only: every decision kind comes up."""
    settings.TIMEOUTS_BEFORE_BOT = 10**6
    game = start(four, stacking=True, seed=1)
    moment = 0
    while fresh(game).status == Game.Status.ACTIVE:
        moment += 31
        assert moment < 31 * 2000, "the game did not end"
        sweep_at(moment)

    game = fresh(game)
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    assert {r.actor for r in rows} == {"system", "timeout"}
    state = engine.Game.new(game.engine_options(), game.seed)
    seen = set()
    for row in rows[1:]:
        assert row.action == state.auto_action(row.seat)
        seen.add((state.view(None)["decision"], row.action["type"], "color" in row.action))
        state.act(row.seat, row.action)
    assert seen >= {
        ("setup", "pass", False),
        ("swap", "pass", False),
        ("give", "give", False),
        ("turn", "play", False),
        ("turn", "play", True),
        ("turn", "draw", False),
        ("forced", "play", False),
        ("forced", "play", True),
        ("penalty", "take_penalty", False),
        ("penalty", "play", False),
    }
    assert game.clocks == {} and game.wake_at is None and game.deadline_at is None


def time_out_once_more(game, seat, moment):
    """Everyone else moves at once; `seat` lets its clock run out. Returns the new moment."""
    while True:
        game = fresh(game)
        assert game.status == Game.Status.ACTIVE
        others = [s for s in game.waiting_on if s != seat and s not in game.bot_seats]
        if others:
            with travel(at(moment)):
                move_as_person(game, others[0])
            continue
        if seat in game.waiting_on:
            moment += 31
            sweep_at(moment)
            return moment
        moment += 1
        sweep_at(moment)  # only bots to move: let them be (none in these tests)


def seat_moves_itself(game, seat, moment):
    while seat not in fresh(game).waiting_on:
        with travel(at(moment)):
            move_as_person(game, fresh(game).waiting_on[0])
    with travel(at(moment)):
        move_as_person(game, seat)


def test_the_third_time_out_in_total_hands_the_seat_to_a_bot_for_the_rest_of_the_game(
    four, monkeypatch, django_capture_on_commit_callbacks
):
    game = start(four, seed=3)
    moment = time_out_once_more(game, 2, 0)
    seat_moves_itself(game, 2, moment)  # not in a row: the count is a total
    moment = time_out_once_more(game, 2, moment)
    seat_moves_itself(game, 2, moment)
    game = fresh(game)
    assert game.timeouts["2"] == 2 and game.stand_ins == {} and 2 not in game.bot_seats

    queued = []
    monkeypatch.setattr(tasks.play_bot, "delay", lambda *args: queued.append(args))
    monkeypatch.setattr(
        effects,
        "task_on_commit",
        lambda name, *args, **options: (
            queued.append(args) if name == "games.tasks.play_bot" else None
        ),
    )
    with django_capture_on_commit_callbacks(execute=True):
        moment = time_out_once_more(game, 2, moment)

    game = fresh(game)
    assert game.timeouts["2"] == 3
    assert game.stand_ins["2"]["reason"] == "timeouts"
    assert 2 in game.bot_seats and "2" not in game.clocks
    assert len(timeout_events(game, seat=2)) == 3
    # From now on the seat's decisions go to a bot, as bot moves.
    while 2 not in fresh(game).waiting_on:
        with django_capture_on_commit_callbacks(execute=True):
            move_as_person(game, fresh(game).waiting_on[0])
    game = fresh(game)
    assert "2" not in game.clocks
    assert (game.pk, 2, game.last_seq) in queued
    assert tasks.play_bot(game.pk, 2, game.last_seq) == "played"
    assert GameEvent.objects.filter(game=game, seat=2).last().actor == "bot"
    # Reconnecting does not give back a seat lost to time-outs.
    assert presence.seat_connected(game.pk, 2) is not None
    assert 2 in fresh(game).bot_seats


def test_two_time_outs_leave_the_seat_with_its_player(four):
    game = start(four, seed=4)
    moment = time_out_once_more(game, 1, 0)
    time_out_once_more(game, 1, moment)

    game = fresh(game)
    assert game.timeouts["1"] == 2
    assert game.stand_ins == {} and 1 not in game.bot_seats


def test_the_sweep_finds_due_games_with_one_query(four, django_assert_num_queries):
    start(four)

    # SAVEPOINT, the one SELECT ... FOR UPDATE SKIP LOCKED over wake_at, RELEASE.
    with travel(at(10)), django_assert_num_queries(3):
        assert timeouts.sweep() == 0
