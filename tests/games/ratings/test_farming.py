"""Ratings cannot be farmed (docs/ratings.md, "What counts"): four accounts of one person
at a rated private table, one conceding at the setup pass, once rated a game finished a
second after the deal, and the same accounts could do it again and again. Now a team that
leaves before the minimum of play leaves a game that moves no rating, only so many rated
games of the same people count in a day, and every person at a rated table has confirmed
their email address. The live update and `recompute_ratings` apply the same rule."""

import io
import uuid
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.actions import ratings
from games.models import Game, Rating, RatingChange
from lobby import services as lobby
from tests.conftest import make_table, make_user
from tests.games.history.helpers import finish
from tests.games.ratings.helpers import concede, confirmed, play_cards, rated_game, rated_table
from tests.lobby.test_create_table import table_data

pytestmark = pytest.mark.django_db


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def farm_table(four):
    """The farmer's way, through the site: a rated private table made with the create
    form, the other accounts let in by its invite link and sitting down, the host's start."""
    host = client_of(four[0])
    host.post(reverse("lobby:create"), table_data(rated="rated", private="on"))
    game = Game.objects.latest("pk")
    assert game.rated and game.private
    for number, user in enumerate(four[1:], start=1):
        client = client_of(user)
        client.get(reverse("lobby:invite", args=[game.invite_token]))
        client.post(reverse("lobby:take", args=[game.pk, number]))
    assert host.post(reverse("lobby:start", args=[game.pk])).status_code == 302
    game.refresh_from_db()
    return game


def test_conceding_at_the_setup_pass_of_a_rated_table_moves_no_rating(four):
    game = farm_table(confirmed(*four))
    ana = client_of(four[0])
    response = ana.post(
        reverse("games:act", args=[game.pk]), {"concede": "1", "key": uuid.uuid4().hex}
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED

    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert game.rating_note == "a team left before 12 cards were played"
    # The game's end says why, to every player.
    page = client_of(four[1]).get(reverse("games:play", args=[game.pk])).content.decode()
    assert "None: a team left before 12 cards were played." in page
    # And recomputing from the stored games leaves it out too.
    assert ratings.rebuild(write=False) == []


def test_a_departure_before_the_minimum_of_play_moves_no_rating_at_six_either(four):
    six = confirmed(*four, make_user("eva"), make_user("fin"))
    game = rated_table(six, players=6)
    concede(play_cards(game, ratings.MIN_PLAYS_PER_SEAT * 6 - 1), 1)  # one card short
    game = finish(game)
    assert game.status == Game.Status.FINISHED
    assert not RatingChange.objects.filter(game=game).exists()
    assert game.rating_note == "a team left before 18 cards were played"


def test_only_three_rated_games_of_the_same_people_count_in_a_day(four):
    ana, bo, cy, di = four
    start = timezone.now()
    games = []
    for hour in range(4):
        with time_machine.travel(start + timedelta(hours=hour), tick=False):
            # Seats change between games: the same people, whoever partners whom.
            games.append(rated_game([ana, bo, cy, di] if hour % 2 else [bo, ana, di, cy]))
    counted = [RatingChange.objects.filter(game=g).count() for g in games]
    assert counted == [4, 4, 4, 0]
    games[3].refresh_from_db()
    assert games[3].rating_note == (
        "the same players had already played 3 rated games together in 24 hours"
    )
    assert Rating.objects.get(user=ana, players=4).games == 3

    # Someone else at the table: other people, another count.
    ed = confirmed(make_user("ed"))[0]
    with time_machine.travel(start + timedelta(hours=4), tick=False):
        assert RatingChange.objects.filter(game=rated_game([ana, bo, cy, ed])).count() == 4
    # A day after the first game, the window has moved on: the same four count again.
    with time_machine.travel(start + timedelta(hours=24, minutes=1), tick=False):
        assert RatingChange.objects.filter(game=rated_game(four)).count() == 4
    with time_machine.travel(start + timedelta(hours=24, minutes=2), tick=False):
        assert RatingChange.objects.filter(game=rated_game(four)).count() == 0

    # recompute_ratings applies the same limit: the same numbers, and it repairs them so.
    assert ratings.rebuild(write=False) == []
    stored = sorted(Rating.objects.values_list("user_id", "players", "mu", "sigma", "games"))
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    Game.objects.update(rating_note="")
    call_command("recompute_ratings", stdout=io.StringIO(), stderr=io.StringIO())
    assert (
        sorted(Rating.objects.values_list("user_id", "players", "mu", "sigma", "games")) == stored
    )
    games[3].refresh_from_db()
    assert games[3].rating_note.startswith("the same players had already played 3")


# --- A rated table needs confirmed email addresses.


def test_an_unconfirmed_account_cannot_create_a_rated_table(client, ana):
    client.force_login(ana)
    response = client.post(reverse("lobby:create"), table_data(rated="rated"))
    assert response.status_code == 403
    assert ratings.NEEDS_CONFIRMED_EMAIL in response.content.decode()
    assert not Game.objects.exists()
    # A casual one is open to it.
    assert client.post(reverse("lobby:create"), table_data(rated="casual")).status_code == 302


def test_an_unconfirmed_account_cannot_sit_at_a_rated_table(client, ana, bo):
    game = make_table(confirmed(ana)[0], rated=True)
    client.force_login(bo)
    response = client.post(reverse("lobby:take", args=[game.pk, 1]), follow=True)
    assert response.status_code == 403
    assert ratings.NEEDS_CONFIRMED_EMAIL in [str(m) for m in response.context["messages"]]
    assert game.seats.get(number=1).user is None
    confirmed(bo)
    client.post(reverse("lobby:take", args=[game.pk, 1]))
    assert game.seats.get(number=1).user == bo
    # A bot account needs none: a table with one is recorded casual at the deal.
    robo = make_user("robo", is_bot=True)
    lobby.accept_invitation(lobby.invite_bot(game.pk, ana, 2, "robo").pk, robo)
    assert game.seats.get(number=2).user == robo


def test_a_rated_table_does_not_start_with_an_unconfirmed_player(client, four):
    game = make_table(confirmed(*four)[0], rated=True)
    for number, user in enumerate(four[1:], start=1):
        lobby.take_seat(game.pk, user, number)
    User.objects.filter(pk=four[2].pk).update(email_confirmed=False)  # since seated
    client.force_login(four[0])
    response = client.post(reverse("lobby:start", args=[game.pk]), follow=True)
    assert response.status_code == 409
    assert "not confirmed yet: cy" in " ".join(str(m) for m in response.context["messages"])
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN


def test_play_again_after_a_rated_game_needs_a_confirmed_address(client, four):
    game = finish(rated_table(four))
    User.objects.filter(pk=four[0].pk).update(email_confirmed=False)
    client.force_login(four[0])
    response = client.post(reverse("games:again", args=[game.pk]))
    assert response.status_code == 403
    assert not Game.objects.filter(rematch_of=game).exists()
