"""The event store under real concurrency: PostgreSQL, committed transactions, threads.

Each test widens the window between reading the game and writing the event
(a short sleep while the state loads), so that without the row lock two
decisions would surely read the same position and both try to apply.
"""

import time

import pytest

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user, play_one, play_until, race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("require_postgres")]


@pytest.fixture
def slow_load(monkeypatch):
    real = store.load_state

    def load_slowly(*args, **kwargs):
        state = real(*args, **kwargs)
        time.sleep(0.05)
        return state

    monkeypatch.setattr(store, "load_state", load_slowly)


def seqs(game):
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))


@pytest.fixture
def players():
    return [make_user(name) for name in ("ana", "bo", "cy", "di")]


def test_decisions_computed_for_one_position_apply_exactly_once(players, slow_load):
    game = make_started_game(players)
    play_until(game, 12)
    game.refresh_from_db()
    seq = game.last_seq
    seat = game.waiting_on[0]
    action = store.load_state(game).auto_action(seat)

    results = race(
        [
            lambda k=k: decisions.apply_decision(
                game.pk, seat, action, "person", idempotency_key=f"racer-{k}", expected_seq=seq
            )
            for k in range(6)
        ]
    )

    applied = [r for r in results if isinstance(r, decisions.DecisionResult)]
    refused = [r for r in results if isinstance(r, decisions.StaleDecision)]
    assert len(applied) == 1, results
    assert len(refused) == 5, results
    assert seqs(game) == list(range(1, seq + 2))


def test_the_same_seat_clicking_twice_in_parallel_moves_once(players, slow_load):
    game = make_started_game(players)
    play_until(game, 8)
    # A pick of the setup pass or the symbol swap may be changed until the last pick arrives
    # (CLARIFICATIONS.md), so the same pick sent four times is four legal decisions: race a
    # move that, once made, cannot be made again. (Which moment event 8 is depends on the
    # seed, which depends on the tests that ran before.)
    while True:
        game.refresh_from_db()
        seat = game.waiting_on[0]
        action = store.load_state(game).auto_action(seat)
        if action["type"] != "pass":
            break
        play_one(game)
    seq = game.last_seq

    results = race(
        [
            lambda k=k: decisions.apply_decision(
                game.pk, seat, action, "person", idempotency_key=f"click-{k}"
            )
            for k in range(4)
        ]
    )

    applied = [r for r in results if isinstance(r, decisions.DecisionResult)]
    assert len(applied) == 1, results
    assert all(isinstance(r, decisions.IllegalDecision) for r in results if r not in applied), (
        results
    )
    assert seqs(game) == list(range(1, seq + 2))


def test_simultaneous_setup_passes_all_apply_in_some_order_without_gaps(players, slow_load):
    game = make_started_game(players)
    state = store.load_state(game)
    picks = {seat: state.auto_action(seat) for seat in range(4)}

    results = race(
        [
            lambda s=s: decisions.apply_decision(
                game.pk, s, picks[s], "person", idempotency_key=f"pick-{s}"
            )
            for s in range(4)
        ]
    )

    assert all(isinstance(r, decisions.DecisionResult) and not r.replayed for r in results), results
    assert seqs(game) == [1, 2, 3, 4, 5]
    assert sorted(r.event.seat for r in results) == [0, 1, 2, 3]
    game.refresh_from_db()
    assert game.snapshot.state == store.replay(game).to_dict()


def test_simultaneous_setup_passes_sent_with_the_seq_each_read_all_apply(players, slow_load):
    """Four programs read the setup pass at event 1 and send their picks with seq 1 at
    once: each pick is still the same choice whatever the others picked meanwhile, so all
    four apply (the last one makes the pass), none is refused as stale."""
    game = make_started_game(players)
    state = store.load_state(game)
    picks = {seat: state.auto_action(seat) for seat in range(4)}

    results = race(
        [
            lambda s=s: decisions.apply_decision(
                game.pk, s, picks[s], "person", idempotency_key=f"pick-{s}", expected_seq=1
            )
            for s in range(4)
        ]
    )

    assert all(isinstance(r, decisions.DecisionResult) for r in results), results
    assert seqs(game) == [1, 2, 3, 4, 5]
    assert store.current_state(Game.objects.get(pk=game.pk)).view(0)["decision"] != "setup"


def test_retries_of_one_submission_racing_each_other_make_one_event(players, slow_load):
    game = make_started_game(players)
    play_until(game, 9)
    game.refresh_from_db()
    seat = game.waiting_on[0]
    action = store.load_state(game).auto_action(seat)

    results = race(
        [
            lambda: decisions.apply_decision(
                game.pk, seat, action, "person", idempotency_key="same"
            )
            for _ in range(5)
        ]
    )

    assert all(isinstance(r, decisions.DecisionResult) for r in results), results
    assert len({r.event.pk for r in results}) == 1
    assert sum(not r.replayed for r in results) == 1
    assert GameEvent.objects.filter(game=game, idempotency_key="same").count() == 1


def test_many_decisions_from_many_threads_leave_no_gaps_and_a_consistent_snapshot(players):
    """Every thread keeps making whichever move is pending; the log stays gapless."""
    game = make_started_game(players, target_score=5000)
    stop_at = 80

    def worker():
        done = 0
        while done < 200:
            game_now = type(game).objects.select_related("snapshot").get(pk=game.pk)
            if game_now.last_seq >= stop_at or not game_now.waiting_on:
                return done
            state = store.load_state(game_now)
            seat = game_now.waiting_on[0]
            try:
                decisions.apply_decision(
                    game.pk, seat, state.auto_action(seat), "person", expected_seq=game_now.last_seq
                )
                done += 1
            except (decisions.StaleDecision, decisions.IllegalDecision, decisions.GameNotActive):
                pass  # another thread got there first (or finished the game)
        return done

    results = race([worker for _ in range(4)])

    assert not [r for r in results if isinstance(r, Exception)], results
    game.refresh_from_db()
    assert seqs(game) == list(range(1, game.last_seq + 1))
    assert sum(results) == game.last_seq - 1
    assert game.snapshot.state == store.replay(game).to_dict()
