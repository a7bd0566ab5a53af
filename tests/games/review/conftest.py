"""The review tests' set-up: finished games played out with each seat's plain move, the
real core (games.bots.review) on a tiny budget, and the tasks a test's commits send,
caught and run in order as a worker would."""

import pytest

from games import effects, store, tasks
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game


@pytest.fixture(autouse=True)
def tiny_reviews(settings):
    """Two samples per choice and one decision per slice: a review of the real core in a
    second or two, cut into as many slices as it has decisions."""
    settings.REVIEW_ROLLOUTS = 2
    settings.REVIEW_SLICE_MS = 0


def finish(game):
    """Plays every seat's plain move until the game is over."""
    while True:
        game = Game.objects.select_related("snapshot").get(pk=game.pk)
        if game.status != Game.Status.ACTIVE:
            return game
        state = store.load_state(game)
        seat = game.waiting_on[0]
        decisions.apply_decision(
            game.pk,
            seat,
            state.auto_action(seat),
            GameEvent.Actor.PERSON,
            idempotency_key=f"test-{seat}-{game.last_seq}",
        )


def finished_game(users, **options):
    return finish(make_started_game(users, **options))


class Sent(list):
    """(name, args) of each task sent; `queues`: (name, the queue it was sent to)."""

    def __init__(self):
        super().__init__()
        self.queues = []

    def record(self, name, args, options):
        self.append((name, args))
        self.queues.append((name, options.get("queue")))


@pytest.fixture
def sent(monkeypatch):
    """The tasks sent on commit, instead of a broker."""
    sent = Sent()
    monkeypatch.setattr(effects, "_send_task", sent.record)
    return sent


def run_task(name, args):
    return getattr(tasks, name.rsplit(".", 1)[1])(*args)


@pytest.fixture
def worker(sent, django_capture_on_commit_callbacks):
    """worker() runs the review tasks sent so far, and those they send, in order, each in
    a transaction of its own as on a worker; returns what each returned."""

    def drain():
        outcomes = []
        while True:
            queued = [(n, a) for n, a in sent if n.startswith("games.tasks.review_")]
            if not queued:
                return outcomes
            sent.remove(queued[0])
            with django_capture_on_commit_callbacks(execute=True):
                outcomes.append(run_task(*queued[0]))

    return drain
