import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app as celery_app
from games import store, tasks
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db


def test_a_bot_task_makes_the_bots_decision_as_a_bot(ana):
    game = make_started_game([ana], players=4, bots=["easy", "normal", "hard"])

    outcome = tasks.play_bot(game.pk, 2, 1)

    assert outcome == "played"
    event = GameEvent.objects.get(game=game, seq=2)
    assert (event.seat, event.actor, event.kind, event.user) == (2, "bot", "pass", None)
    assert event.idempotency_key == "bot-2-1"


def test_a_bot_task_for_a_position_that_moved_on_does_nothing(ana):
    game = make_started_game([ana], players=4)
    tasks.play_bot(game.pk, 1, 1)

    assert tasks.play_bot(game.pk, 2, 1) == "stale"
    assert tasks.play_bot(game.pk, 1, 1) == "stale"
    assert GameEvent.objects.filter(game=game).count() == 2


def test_a_bot_task_for_a_person_s_seat_does_nothing(ana, bo):
    game = make_started_game([ana, bo], players=4)

    assert tasks.play_bot(game.pk, 1, 1) == "not a bot"
    assert GameEvent.objects.filter(game=game).count() == 1


def test_a_bot_with_nothing_to_decide_does_nothing(ana):
    game = make_started_game([ana], players=4)
    tasks.play_bot(game.pk, 1, 1)
    game.refresh_from_db()

    assert tasks.play_bot(game.pk, 1, game.last_seq) == "nothing to decide"


def test_the_sweep_resends_moves_of_bots_left_waiting(ana, monkeypatch, settings):
    settings.BOT_STALL_SECONDS = 0
    game = make_started_game([ana], players=4)
    sent = []
    monkeypatch.setattr(tasks.play_bot, "delay", lambda *args: sent.append(args))

    assert tasks.wake_stalled_bots() == 3
    assert sorted(sent) == [(game.pk, 1, 1), (game.pk, 2, 1), (game.pk, 3, 1)]


def test_the_sweep_leaves_fresh_bot_moves_alone(ana, monkeypatch, settings):
    settings.BOT_STALL_SECONDS = 60
    make_started_game([ana], players=4)
    monkeypatch.setattr(tasks.play_bot, "delay", lambda *args: pytest.fail("sent"))

    assert tasks.wake_stalled_bots() == 0


@pytest.mark.django_db(transaction=True)
def test_bots_play_a_whole_game_through_a_real_worker():
    """End to end: a real Celery worker (broker from settings: Redis in CI) runs the bots."""
    host = make_user("host")
    game = make_started_game([host], players=4, bots=["easy", "normal", "easy"])
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        game.refresh_from_db()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            game = Game.objects.select_related("snapshot").get(pk=game.pk)
            if game.status == Game.Status.FINISHED:
                break
            if 0 in game.waiting_on:
                state = store.load_state(game)
                try:
                    decisions.apply_decision(
                        game.pk, 0, state.auto_action(0), "person", expected_seq=game.last_seq
                    )
                except decisions.StaleDecision:
                    pass
            else:
                time.sleep(0.02)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    actors = set(GameEvent.objects.filter(game=game).values_list("actor", flat=True))
    assert actors == {"system", "person", "bot"}
    seats_by_bots = set(
        GameEvent.objects.filter(game=game, actor="bot").values_list("seat", flat=True)
    )
    assert seats_by_bots == {1, 2, 3}
    seqs = list(GameEvent.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
