"""The table screen says when a bot plays for a person."""

import pytest

from games.models import Game
from tests.conftest import make_started_game
from tests.games.views.test_pages import page_for

pytestmark = pytest.mark.django_db


def test_the_screen_shows_a_bot_playing_for_a_timed_out_player(client, four):
    game = make_started_game(four)
    before = page_for(client, four[0], game).content.decode()
    assert "a bot plays for them" not in before
    Game.objects.filter(pk=game.pk).update(
        stand_ins={"2": {"reason": "timeouts", "since": "2026-12-01T10:00:00+00:00"}}
    )
    html = page_for(client, four[0], game).content.decode()
    assert f"{four[2].username}" in html or four[2].display_name in html
    assert "a bot plays for them: three time-outs" in html


def test_the_screen_shows_a_bot_playing_while_a_player_is_away(client, four):
    game = make_started_game(four)
    Game.objects.filter(pk=game.pk).update(
        stand_ins={"1": {"reason": "away", "since": "2026-12-01T10:00:00+00:00"}}
    )
    html = page_for(client, four[3], game).content.decode()
    assert "a bot plays while they are away" in html
    assert "a bot plays for them: three time-outs" not in html
