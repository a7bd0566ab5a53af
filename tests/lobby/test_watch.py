"""The Watch page lists running public tables that allow watching, and the lobby shows a
player's running games with whose move it is."""

import pytest
from django.urls import reverse

from games.models import Game
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db


def test_watch_lists_running_public_tables_that_allow_watchers_only(client, four):
    watchable = make_started_game(four, spectators=True)
    closed = make_started_game([make_user(f"c{n}") for n in range(4)], spectators=False)
    private = make_started_game(
        [make_user(f"p{n}") for n in range(4)], spectators=True, private=True
    )
    page = client.get(reverse("lobby:watch")).content.decode()
    assert reverse("games:play", args=[watchable.pk]) in page
    assert f"Watch table {watchable.pk}" in page
    for game in (closed, private):
        assert reverse("games:play", args=[game.pk]) not in page
    Game.objects.filter(pk=watchable.pk).update(status=Game.Status.FINISHED)
    assert (
        reverse("games:play", args=[watchable.pk])
        not in client.get(reverse("lobby:watch")).content.decode()
    )


def test_the_lobby_says_whose_move_it_is_in_the_players_running_games(client, four):
    game = make_started_game(four)  # the setup pass: every seat decides at once
    client.force_login(four[0])
    page = client.get(reverse("lobby:index")).content.decode()
    assert reverse("games:play", args=[game.pk]) in page
    assert "Your move" in page
    Game.objects.filter(pk=game.pk).update(waiting_on=[1])
    page = client.get(reverse("lobby:index")).content.decode()
    assert f"Waiting for {four[1].name}" in page and "Your move" not in page
