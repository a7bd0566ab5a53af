"""Play again: a finished game's players get a new table with the same seats, bots kept at
their levels and people asked; one table however many ask, and only for the players."""

import pytest
from django.urls import reverse

from games.models import Game
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db


def finish(game):
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    return game


def test_the_same_seats_come_back_at_a_new_table(client, ana, bo):
    game = finish(make_started_game([ana, bo], bots=["hard", "easy"], players=4,
                                    stacking=True, target_score=300))
    client.force_login(ana)
    response = client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    assert response.status_code == 302 and response["Location"] == reverse("lobby:table",
                                                                            args=[new.pk])
    assert new.status == Game.Status.OPEN and new.host == ana
    assert (new.players, new.stacking, new.target_score) == (4, True, 300)
    seats = {s.number: (s.user_id, s.bot_level) for s in new.seats.all()}
    assert seats == {0: (ana.pk, ""), 1: (None, ""), 2: (None, "hard"), 3: (None, "easy")}


def test_the_others_are_shown_the_new_table_and_take_their_old_seat(client, ana, bo):
    game = finish(make_started_game([ana, bo], players=4))
    client.force_login(ana)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Play again" in page and "Join the new game" not in page
    client.post(reverse("games:again", args=[game.pk]))

    client.force_login(bo)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Join the new game" in page
    client.post(reverse("games:again", args=[game.pk]))
    client.force_login(ana)
    client.post(reverse("games:again", args=[game.pk]))  # a second click changes nothing
    assert Game.objects.filter(rematch_of=game).count() == 1
    new = Game.objects.get(rematch_of=game)
    assert new.seats.get(number=1).user == bo and new.seats.get(number=0).user == ana


def test_only_players_of_a_finished_game_may_ask(client, ana, bo, ed):
    running = make_started_game([ana, bo], players=4)
    client.force_login(ana)
    response = client.post(reverse("games:again", args=[running.pk]))
    assert response.status_code == 409 and "not over yet" in response.content.decode()
    assert not Game.objects.filter(rematch_of=running).exists()
    finish(running)
    client.force_login(ed)
    assert client.post(reverse("games:again", args=[running.pk])).status_code == 403
    assert client.get(reverse("games:again", args=[running.pk])).status_code == 405
    assert not Game.objects.filter(rematch_of=running).exists()
    assert client.post(reverse("games:again", args=[999999])).status_code == 404
