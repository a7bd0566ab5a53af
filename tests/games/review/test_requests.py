"""Asking for a review (games.actions.review.request_review and its routes): who may, when,
and that asking twice, or twice at once, makes one row and one task."""

import pytest
from django.urls import reverse

from games.actions import review
from games.bots import review as core
from games.models import GameReview
from tests.conftest import make_started_game, make_user, race
from tests.games.review.conftest import finish, finished_game

pytestmark = pytest.mark.django_db

SLICE = "games.tasks.review_slice"


def slices(sent):
    return [args for name, args in sent if name == SLICE]


def test_a_player_s_request_makes_one_row_and_queues_its_first_slice_on_commit(
    four, sent, django_capture_on_commit_callbacks
):
    game = finished_game(four)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        row = review.request_review(game, four[1])
    # Nothing is sent before the commit: a rolled-back request queues nothing.
    assert slices(sent) == []
    for callback in callbacks:
        callback()
    assert (row.seat, row.status, row.done, row.requested_by) == (1, "pending", 0, four[1])
    assert slices(sent) == [(row.pk, 0)]


def test_asking_again_finds_the_same_row_and_sends_nothing_more(
    four, sent, django_capture_on_commit_callbacks
):
    game = finished_game(four)
    with django_capture_on_commit_callbacks(execute=True):
        first = review.request_review(game, four[0])
        again = review.request_review(game, four[0], seat=0)
    assert again.pk == first.pk
    assert GameReview.objects.count() == 1
    assert slices(sent) == [(first.pk, 0)]


def test_a_running_game_is_refused_and_nothing_is_written(four, sent, client):
    game = make_started_game(four)
    with pytest.raises(review.ReviewRefused, match="not over"):
        review.request_review(game, four[0])
    client.force_login(four[0])
    answer = client.post(reverse("history:review_request", args=[game.pk]))
    assert answer.status_code == 404
    assert not GameReview.objects.exists()
    assert not slices(sent)


def test_an_aborted_game_is_refused(four, sent):
    game = make_started_game(four)
    game.status = game.Status.ABORTED
    game.save(update_fields=["status"])
    with pytest.raises(review.ReviewRefused):
        review.request_review(game, four[0])
    assert not GameReview.objects.exists()


def test_a_reader_without_a_seat_is_refused(four, ed, sent, client):
    game = finished_game(four)
    with pytest.raises(review.ReviewRefused, match="Only a player"):
        review.request_review(game, ed)
    # Not even for a seat they name: the seat must be their own.
    with pytest.raises(review.ReviewRefused):
        review.request_review(game, ed, seat=2)
    client.force_login(ed)
    answer = client.post(reverse("history:review_request", args=[game.pk]), {"seat": "2"})
    assert answer.status_code == 403
    assert not GameReview.objects.exists()
    assert not slices(sent)


def test_a_bot_account_at_the_table_is_refused(ana, bo, cy, sent):
    program = make_user("program", is_bot=True)
    game = make_started_game([ana, bo, cy], bot_accounts=True)
    # The bot account takes no seat through the lobby here: it holds seat 3 from the deal
    # on, as an invited program would.
    game.seats.filter(number=3).update(user=program, bot_level="")
    game = finish(game)
    with pytest.raises(review.ReviewRefused, match="bot account"):
        review.request_review(game, program)
    assert not GameReview.objects.exists()


def test_a_second_account_cannot_ask_for_or_share_another_s_seat(
    four, sent, client, django_capture_on_commit_callbacks
):
    """Bo, a player of the same table, names Ana's seat: refused, and Ana's review (asked
    for and kept private) is left as it was."""
    game = finished_game(four)
    with django_capture_on_commit_callbacks(execute=True):
        mine = review.request_review(game, four[0])
    client.force_login(four[1])
    asked = client.post(reverse("history:review_request", args=[game.pk]), {"seat": "0"})
    assert asked.status_code == 403
    assert b"your own seat" in asked.content
    # Sharing answers for the reader's own seat only: Bo has none to share.
    shared = client.post(reverse("history:review_share", args=[game.pk]), {"shared": "1"})
    assert shared.status_code == 403
    mine.refresh_from_db()
    assert mine.shared is False
    assert list(GameReview.objects.values_list("seat", flat=True)) == [0]
    assert slices(sent) == [(mine.pk, 0)]
    # The status route answers about the reader's own seat only: Bo's, where nothing was
    # asked, not Ana's review in progress.
    status = client.get(reverse("history:review_status", args=[game.pk]))
    assert b"Review this game" in status.content
    assert b"Reviewing" not in status.content and b"Waiting for a worker" not in status.content


def test_sharing_is_a_value_so_a_request_sent_twice_leaves_what_it_says(
    four, client, sent, django_capture_on_commit_callbacks
):
    game = finished_game(four, private=True)
    with django_capture_on_commit_callbacks(execute=True):
        review.request_review(game, four[0])
    client.force_login(four[0])
    url = reverse("history:review_share", args=[game.pk])
    for _ in range(2):  # a double click, or a stale page sending it again
        assert client.post(url, {"shared": "1"}).status_code == 302
    assert GameReview.objects.get().shared is True
    assert client.post(url, {"shared": "0"}, HTTP_HX_REQUEST="true").status_code == 200
    assert GameReview.objects.get().shared is False
    assert client.post(url, {"shared": "yes"}).status_code == 400


def test_a_failed_review_asked_again_is_queued_from_what_it_had(
    four, sent, django_capture_on_commit_callbacks
):
    game = finished_game(four)
    with django_capture_on_commit_callbacks(execute=True):
        row = review.request_review(game, four[0])
    kept = {"seq": 5, "mark": "good", "loss": 0.0}
    GameReview.objects.filter(pk=row.pk).update(
        status="failed", done=1, total=9, version=core.REVIEW_VERSION, data={"decisions": [kept]}
    )
    with django_capture_on_commit_callbacks(execute=True):
        again = review.request_review(game, four[0])
    assert (again.status, again.done, again.data) == ("pending", 1, {"decisions": [kept]})
    assert slices(sent) == [(row.pk, 0), (row.pk, 1)]
    # Pending now: asking once more sends nothing.
    with django_capture_on_commit_callbacks(execute=True):
        review.request_review(game, four[0])
    assert len(slices(sent)) == 2


def test_the_route_answers_the_box_to_htmx_and_the_replay_to_a_form(four, client, sent):
    game = finished_game(four)
    client.force_login(four[2])
    url = reverse("history:review_request", args=[game.pk])
    box = client.post(url, HTTP_HX_REQUEST="true")
    assert box.status_code == 200
    assert b'id="review-box"' in box.content and b"review-progress" in box.content
    plain = client.post(url)
    assert plain.status_code == 302
    assert plain["Location"].startswith(reverse("history:replay", args=[game.pk]))
    assert client.get(url).status_code == 405
    assert GameReview.objects.get().seat == 2


@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_make_one_row_and_one_task(require_postgres, sent):
    """Two requests of the same player at the same moment (a double click on two tabs):
    each transaction sees no row; the unique (game, seat) makes the second wait for the
    first and find its row, so one row is written and one slice is sent."""
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = finished_game(people)
    for _ in range(3):
        GameReview.objects.all().delete()
        sent.clear()
        results = race([lambda: review.request_review(game, people[0])] * 2)
        assert all(isinstance(r, GameReview) for r in results), results
        assert results[0].pk == results[1].pk
        assert GameReview.objects.count() == 1
        assert slices(sent) == [(results[0].pk, 0)]


def test_the_box_polls_while_the_review_runs_and_reloads_the_page_once_it_is_done(
    four, client, sent, django_capture_on_commit_callbacks
):
    game = finished_game(four, private=True)
    with django_capture_on_commit_callbacks(execute=True):
        row = review.request_review(game, four[0])
    GameReview.objects.filter(pk=row.pk).update(status="running", done=4, total=10)
    client.force_login(four[0])
    url = reverse("history:review_status", args=[game.pk])
    running = client.get(url + "?running=1", HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 2s, review-progress from:body"' in running
    assert 'value="4"' in running and "4 of 10" in running
    GameReview.objects.filter(pk=row.pk).update(status="done", done=10)
    done = client.get(url + "?running=1", HTTP_HX_REQUEST="true")
    # The run the page showed is over: the page loads again, with the review.
    assert (done.status_code, done["HX-Refresh"]) == (204, "true")
    # Drawn with the review, the box stops polling and offers to share it.
    box = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in box
    assert "Share it with the table" in box and 'name="shared" value="1"' in box
