"""The home page offers a game against three bots in one click; the create form marks the
options that apply only to one pace or scoring so that a script can show just those."""

import re

import pytest
from django.urls import reverse

from games.models import Game

pytestmark = pytest.mark.django_db


def test_one_click_deals_a_real_time_game_against_three_bots(client, ana):
    client.force_login(ana)
    home = client.get(reverse("lobby:index")).content.decode()
    assert "Play now against three bots" in home and reverse("lobby:quick") in home
    response = client.post(reverse("lobby:quick"))
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "games:play", args=[game.pk]
    )
    assert game.status == Game.Status.ACTIVE and game.pace == Game.Pace.REALTIME
    seats = list(game.seats.order_by("number"))
    assert seats[0].user == ana and all(seat.bot_level == "normal" for seat in seats[1:])


def test_a_visitor_is_asked_to_sign_up_and_the_one_click_game_needs_an_account(client):
    home = client.get(reverse("lobby:index")).content.decode()
    assert "Sign up to play" in home
    response = client.post(reverse("lobby:quick"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Game.objects.exists()


def test_the_options_of_one_pace_or_scoring_are_marked_for_the_script(client, ana):
    client.force_login(ana)
    page = client.get(reverse("lobby:create")).content.decode()
    # Each marked part, up to the next one or the end of its fieldset.
    marked = dict(
        re.findall(r'data-shown-when="([^"]+)"(.*?)(?=data-shown-when|</fieldset>)', page, re.S)
    )
    assert 'name="move_seconds"' in marked["pace=realtime"]
    assert 'name="turn_hours"' in marked["pace=turn"]
    assert 'name="missed_deadline"' in marked["pace=turn"]
    assert 'name="target_score"' in marked["scoring=target"]
    assert "js/create.js" in page
