"""Who sees a review (games.actions.review.visible_reviews and box), and that nothing of a
review comes out of a game that is not over: not its routes, not the replay page, not the
site socket."""

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from games import tasks
from games.actions import review
from games.models import GameReview
from games.routing import websocket_urlpatterns
from tests.conftest import make_started_game, make_user
from tests.games.review.conftest import finished_game

# A review as the core stores it, with words and numbers no other page carries.
DATA = {
    "version": 1,
    "seat": 0,
    "decisions": [
        {"seq": 7, "kind": "turn", "knew": 0.4321, "all": 0.5432, "loss": 0.25, "mark": "blunder"}
    ],
    "chart": [{"seq": 7, "knew": 0.4321, "all": 0.5432}],
    "summary": {"counts": {"good": 0, "inaccurate": 0, "mistake": 0, "blunder": 1}},
}
# What a page about a review says: any of these on a running game's page is a leak.
REVIEW_WORDS = re.compile(
    r"review|blunder|mistake|inaccura|estimat|what you knew|every hand|0\.4321|43\s*%",
    re.IGNORECASE,
)


def reviews(game, seats, **fields):
    return {
        seat: GameReview.objects.create(game=game, seat=seat, data=DATA, **fields) for seat in seats
    }


def seen(game, user):
    return {seat: r.status for seat, r in review.visible_reviews(game, user).items()}


@pytest.mark.django_db
def test_a_private_game_s_review_is_its_player_s_until_shared(four, ed):
    ana, bo, cy, di = four  # Ana and Cy are partners (seats 0 and 2)
    game = finished_game(four, private=True)
    reviews(game, [0], status="done")
    reviews(game, [1], status="done", shared=True)
    reviews(game, [2], status="running")
    # Each player sees their own (whatever its status) and the shared one, never Ana's
    # unshared review, not even her partner Cy.
    assert seen(game, ana) == {0: "done", 1: "done"}
    assert seen(game, cy) == {1: "done", 2: "running"}
    assert seen(game, bo) == {1: "done"}
    assert seen(game, di) == {1: "done"}
    # Someone who may not watch a private game's replay sees none, shared or not.
    assert seen(game, ed) == {}
    staff = make_user("staff", is_staff=True)
    assert seen(game, staff) == {1: "done"}


@pytest.mark.django_db
def test_a_public_game_s_finished_reviews_are_read_by_anyone_who_may_watch(four, ed):
    game = finished_game(four)
    reviews(game, [0, 1], status="done")
    reviews(game, [3], status="pending")
    assert seen(game, ed) == {0: "done", 1: "done"}
    assert seen(game, four[3]) == {0: "done", 1: "done", 3: "pending"}


@pytest.mark.django_db
def test_the_box_is_the_seat_s_player_s_only(four, ed):
    game = finished_game(four, private=True)
    reviews(game, [0], status="running", done=3, total=12)
    box = review.box(game, four[0])
    assert (box.seat, box.status, box.done, box.total, box.running, box.public) == (
        0,
        "running",
        3,
        12,
        True,
        False,
    )
    assert review.box(game, four[1]).status == ""  # Bo's own seat: nothing asked
    assert review.box(game, ed) is None


@pytest.mark.django_db
def test_nothing_of_a_review_comes_out_of_a_running_game(four, ed, client):
    """A running game with review rows written into it by hand (as if a bug had made them):
    every review route, and the replay page of every reader, carry no review word, no
    estimate and no mark; the actions show nothing either."""
    game = make_started_game(four, spectators=True)
    reviews(game, [0], status="done", shared=True)
    reviews(game, [1], status="running", done=1, total=5)
    routes = [
        ("post", reverse("history:review_request", args=[game.pk]), {}),
        ("post", reverse("history:review_share", args=[game.pk]), {"shared": "1"}),
        ("get", reverse("history:review_status", args=[game.pk]), {}),
        ("get", reverse("history:review_status", args=[game.pk]) + "?running=1", {}),
        ("get", reverse("history:replay", args=[game.pk]), {}),
        ("get", reverse("history:replay", args=[game.pk]) + "?seat=0", {}),
    ]
    for reader in (four[0], four[1], ed):
        client.force_login(reader)
        assert review.visible_reviews(game, reader) == {}
        assert review.box(game, reader) is None
        for method, url, data in routes:
            for htmx in ({}, {"HTTP_HX_REQUEST": "true"}):
                answer = getattr(client, method)(url, data, **htmx)
                text = answer.content.decode()
                found = REVIEW_WORDS.search(text)
                assert found is None, (reader, url, answer.status_code, found and found.group())
    # Shared and done, yet nothing was changed by the share asked above.
    assert GameReview.objects.get(seat=0).shared is True
    assert GameReview.objects.get(seat=1).status == "running"


@pytest.mark.django_db
def test_the_scan_s_words_are_what_a_finished_game_s_box_says(four, client):
    """The scan above would see a review: the same routes of a finished game answer with
    its words."""
    game = finished_game(four)
    reviews(game, [0], status="running", done=1, total=5)
    client.force_login(four[0])
    answer = client.get(reverse("history:review_status", args=[game.pk]))
    assert answer.status_code == 200
    assert REVIEW_WORDS.search(answer.content.decode())


# --- the site socket ---------------------------------------------------------------------

application = URLRouter(websocket_urlpatterns)


def site_socket(user):
    comm = WebsocketCommunicator(application, "/ws/me/")
    comm.scope["user"] = user
    return comm


async def opened(comm):
    ok, code = await comm.connect()
    assert ok, code
    assert (await comm.receive_json_from(timeout=5))["type"] == "waiting"


@pytest.mark.django_db(transaction=True)
def test_the_site_socket_tells_the_seat_s_player_how_far_the_review_is(sent):
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = finished_game(people)
    row = GameReview.objects.create(game=game, seat=0)

    async def scenario():
        mine, other = site_socket(people[0]), site_socket(people[1])
        await opened(mine)
        await opened(other)
        assert await database_sync_to_async(tasks.review_slice)(row.pk, 0) == "running"
        told = await mine.receive_json_from(timeout=5)
        total = await database_sync_to_async(lambda: GameReview.objects.get(pk=row.pk).total)()
        assert told == {
            "type": "review",
            "game": game.pk,
            "seat": 0,
            "done": 1,
            "total": total,
            "status": "running",
        }
        # Bo, at the same table, hears nothing of Ana's review.
        assert await other.receive_nothing(timeout=0.5)
        await mine.disconnect()
        await other.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_the_site_socket_says_nothing_of_a_running_game_s_review(sent):
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = make_started_game(people)
    row = GameReview.objects.create(game=game, seat=0)

    async def scenario():
        comm = site_socket(people[0])
        await opened(comm)
        assert await database_sync_to_async(tasks.review_slice)(row.pk, 0) == "failed"
        assert await comm.receive_nothing(timeout=0.5)
        await comm.disconnect()

    async_to_sync(scenario)()
