"""The review task (games.tasks.review_slice over games.actions.review.run_slice): slices
that each save their progress and queue the next, harmless when run twice, the same review
whatever the slices, a crash that can be asked again, the rated games' own reviews and the
sweep of the stalled ones. The real core (games.bots.review) on a tiny budget."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import push, tasks
from games.actions import review
from games.bots import review as core
from games.models import Game, GameEvent, GameReview, Seat
from tests.conftest import make_started_game
from tests.games.ratings.helpers import rated_table
from tests.games.review.conftest import finish, finished_game, run_task

pytestmark = pytest.mark.django_db

SLICE = "games.tasks.review_slice"


@pytest.fixture
def progress(monkeypatch):
    """The progress messages sent to site sockets, as (group, message)."""
    told = []
    monkeypatch.setattr(push, "send", lambda group, message: told.append((group, message)))
    return told


def ask(game, user, capture):
    with capture(execute=True):
        return review.request_review(game, user)


def test_a_review_runs_in_slices_each_saving_its_progress_until_it_is_whole(
    four, sent, worker, progress, django_capture_on_commit_callbacks
):
    game = finished_game(four)
    row = ask(game, four[0], django_capture_on_commit_callbacks)
    seen = []
    original = review._save

    def watching(review_id, done, game, decisions, total):
        outcome = original(review_id, done, game, decisions, total)
        seen.append(GameReview.objects.values_list("status", "done", "total").get(pk=review_id))
        return outcome

    review._save = watching
    try:
        outcomes = worker()
    finally:
        review._save = original
    row.refresh_from_db()
    total = len(core.reviewable(game.engine_options(), game.seed, review.rows_of(game.pk), 0))
    assert total > 3
    # One decision a slice (REVIEW_SLICE_MS = 0): each slice saved one more, and queued the
    # next, until the last made the whole review.
    assert outcomes == ["running"] * (total - 1) + ["done"]
    assert seen == [("running", k, total) for k in range(1, total)] + [("done", total, total)]
    assert (row.status, row.done, row.total, row.version) == ("done", total, total, 1)
    data = row.data
    assert (data["seat"], data["team"], data["players"], data["version"]) == (0, 0, 4, 1)
    assert [d["seq"] for d in data["decisions"]] == sorted(d["seq"] for d in data["decisions"])
    assert len(data["decisions"]) == total
    assert sum(data["summary"]["counts"].values()) == total
    # The seat's player was told of each slice over their site socket: counts, no estimate.
    assert [m["done"] for _, m in progress] == list(range(1, total + 1))
    assert {g for g, _ in progress} == {push.waiting_group(four[0].pk)}
    assert progress[-1][1] == {
        "type": "review.progress",
        "game": game.pk,
        "seat": 0,
        "done": total,
        "total": total,
        "status": "done",
    }


def test_a_slice_that_runs_twice_writes_nothing_the_second_time(
    four, sent, progress, django_capture_on_commit_callbacks
):
    """A redelivered message (a worker killed after its commit, before its ack) or the
    sweep's re-send: the same (review, done) again finds the row moved on."""
    game = finished_game(four)
    row = ask(game, four[1], django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(SLICE, (row.pk, 0)) == "running"
    after_first = GameReview.objects.values_list("done", "data", "updated_at").get(pk=row.pk)
    queued = [a for n, a in sent if n == SLICE]
    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(SLICE, (row.pk, 0)) == "stale"
    assert GameReview.objects.values_list("done", "data", "updated_at").get(pk=row.pk) == (
        after_first
    )
    # No second "next slice" either: the chain stays one chain.
    assert [a for n, a in sent if n == SLICE] == queued == [(row.pk, 0), (row.pk, 1)]
    assert len(progress) == 1


def test_the_same_game_gets_the_same_review_whatever_its_slices(
    four, sent, worker, settings, django_capture_on_commit_callbacks
):
    """Two copies of one game (the same seed, options and event rows), one reviewed a
    decision a slice, the other in one slice: the same decisions, estimates and marks."""
    game = finished_game(four)
    copy = Game.objects.get(pk=game.pk)
    copy.pk = None
    copy.invite_token = "copy-of-the-game"
    copy.save()
    for number, user in enumerate(four):
        Seat.objects.create(game=copy, number=number, user=user)
    for event in GameEvent.objects.filter(game=game).order_by("seq"):
        event.pk, event.game, event.idempotency_key = None, copy, None
        event._state.adding = True
        event.save()
    ask(game, four[3], django_capture_on_commit_callbacks)
    worker()
    settings.REVIEW_SLICE_MS = 60_000
    ask(copy, four[3], django_capture_on_commit_callbacks)
    assert worker() == ["done"]
    first, second = (GameReview.objects.get(game=g) for g in (game, copy))
    assert first.status == second.status == "done"
    assert first.data == second.data
    assert first.data["decisions"]


def test_a_crash_fails_the_review_and_asking_again_finishes_it(
    four, sent, worker, progress, monkeypatch, django_capture_on_commit_callbacks
):
    game = finished_game(four)
    row = ask(game, four[0], django_capture_on_commit_callbacks)
    real = core.review_decisions
    calls = []

    def crashing(*args, **kwargs):
        calls.append(args[4])
        if len(calls) == 3:
            raise RuntimeError("a bug in the core")
        return real(*args, **kwargs)

    monkeypatch.setattr(core, "review_decisions", crashing)
    assert worker() == ["running", "running", "failed"]
    row.refresh_from_db()
    assert (row.status, row.done) == ("failed", 2)
    assert progress[-1][1]["status"] == "failed"
    before = calls[:2]
    calls.clear()
    monkeypatch.setattr(
        core, "review_decisions", lambda *a, **k: calls.append(a[4]) or real(*a, **k)
    )
    ask(game, four[0], django_capture_on_commit_callbacks)
    assert worker()[-1] == "done"
    row.refresh_from_db()
    assert row.status == "done" and row.done == row.total
    # The two decisions computed before the crash were kept, not computed again.
    assert len(row.data["decisions"]) == row.total == len(calls) + 2
    assert not set(map(tuple, before)) & set(map(tuple, calls))


def test_a_slice_never_computes_for_a_game_that_is_not_finished(
    four, sent, progress, monkeypatch, django_capture_on_commit_callbacks
):
    """A row that should not exist (made by hand for a running game): the slice computes
    nothing, tells no socket, and leaves the row failed."""
    game = make_started_game(four)
    row = GameReview.objects.create(game=game, seat=0)
    monkeypatch.setattr(core, "review_decisions", lambda *a, **k: pytest.fail("computed"))
    monkeypatch.setattr(core, "reviewable", lambda *a, **k: pytest.fail("computed"))
    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(SLICE, (row.pk, 0)) == "failed"
    row.refresh_from_db()
    assert (row.status, row.data, row.done) == ("failed", {}, 0)
    assert progress == []
    assert not [a for n, a in sent if n == SLICE]


def test_a_rated_game_s_end_queues_its_people_s_reviews_off_the_move(
    four, sent, worker, django_capture_on_commit_callbacks
):
    game = rated_table(four)
    with django_capture_on_commit_callbacks(execute=True):
        game = finish(game)
    # The last move sent one task, to the reviews' queue, and wrote no review itself.
    assert [a for n, a in sent if n == "games.tasks.review_rated_game"] == [(game.pk,)]
    assert game.rating_changes.count() == 4
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.review_rated_game(game.pk) == 4
    rows = GameReview.objects.filter(game=game).order_by("seat")
    assert [(r.seat, r.status, r.requested_by) for r in rows] == [
        (s, "pending", None) for s in range(4)
    ]
    assert sorted(a for n, a in sent if n == SLICE) == sorted((r.pk, 0) for r in rows)
    # Every review task goes to the reviews' queue, behind the moves.
    assert {q for n, q in sent.queues if n.startswith("games.tasks.review_")} == {"reviews"}
    # Sent again (a redelivered message): the same rows, no second slice.
    with django_capture_on_commit_callbacks(execute=True):
        tasks.review_rated_game(game.pk)
    assert GameReview.objects.filter(game=game).count() == 4
    assert len([a for n, a in sent if n == SLICE]) == 4


def test_a_casual_game_s_end_queues_no_review(four, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = finished_game(four)
    assert not [n for n, _ in sent if n.startswith("games.tasks.review_")]
    assert tasks.review_rated_game(game.pk) == 0
    assert not GameReview.objects.exists()


def test_the_sweep_resends_a_stalled_review_once(
    four, sent, settings, django_capture_on_commit_callbacks
):
    settings.REVIEW_STALL_SECONDS = 60
    game = finished_game(four)
    stalled = ask(game, four[0], django_capture_on_commit_callbacks)
    fresh = ask(game, four[1], django_capture_on_commit_callbacks)
    done = ask(game, four[2], django_capture_on_commit_callbacks)
    long_ago = timezone.now() - timedelta(minutes=5)
    GameReview.objects.filter(pk=stalled.pk).update(updated_at=long_ago, done=3, status="running")
    GameReview.objects.filter(pk=done.pk).update(updated_at=long_ago, status="done")
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.review_sweep() == 1
    assert sent == [(SLICE, (stalled.pk, 3))]
    # The re-send moved the row: the next sweep waits for a new stall.
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.review_sweep() == 0
    assert len(sent) == 1
    assert GameReview.objects.get(pk=fresh.pk).status == "pending"


def test_decisions_an_older_core_computed_are_not_mixed_into_the_review(
    four, sent, worker, settings, django_capture_on_commit_callbacks
):
    settings.REVIEW_SLICE_MS = 60_000
    game = finished_game(four)
    row = ask(game, four[0], django_capture_on_commit_callbacks)
    seqs = core.reviewable(game.engine_options(), game.seed, review.rows_of(game.pk), 0)
    old = {"seq": seqs[0], "kind": "turn", "knew": 0.0, "all": 0.0, "loss": 0.9, "mark": "blunder"}
    GameReview.objects.filter(pk=row.pk).update(
        status="running", done=1, version=core.REVIEW_VERSION - 1, data={"decisions": [old]}
    )
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(SLICE, (row.pk, 1)) == "done"
    row.refresh_from_db()
    assert old not in row.data["decisions"]
    assert [d["seq"] for d in row.data["decisions"]] == seqs
    assert row.version == core.REVIEW_VERSION
