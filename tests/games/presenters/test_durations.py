"""How long a game usually takes, said on the create form and beside Play now
(games.presenters.durations): from bot games until the site has MIN_GAMES finished games at
the same settings, then from those."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from games.presenters import durations
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

ROUND = {"players": 4, "pace": Game.Pace.REALTIME, "target_score": None}


@pytest.fixture(autouse=True)
def bots_at_the_sites_pace(settings):
    settings.BOT_PACE_MS = 1500


def finished(users, minutes, **options):
    game = make_started_game(users, **options)
    end = timezone.now()
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, started_at=end - timedelta(minutes=minutes), finished_at=end
    )
    return game


def test_with_no_games_of_its_own_the_site_estimates_from_its_bots_games():
    steady = durations.estimate(**ROUND)
    quick = durations.estimate(**ROUND, bot_speed=Game.BotSpeed.QUICK)
    assert steady.games == 0 and steady.rounds == 1
    assert steady.sentence.startswith("A single round usually takes about ")
    assert ", most between " in steady.sentence  # bot rounds vary: the middle half is said
    assert steady.sentence.endswith("(from games between the site's Normal bots).")
    # A round of Normal bots is some hundred decisions, three of four a bot's at about 1.7 s.
    assert 2 * 60 < steady.seconds < 30 * 60
    assert quick.seconds < steady.seconds * 0.75


def test_a_target_score_takes_more_rounds_the_higher_it_is():
    rounds = [durations.rounds_to(4, target) for target in (None, 100, 500, 2000)]
    assert rounds[0] == 1
    assert rounds == sorted(rounds) and rounds[1] < rounds[2] < rounds[3]
    game = durations.estimate(players=4, pace=Game.Pace.REALTIME, target_score=500)
    assert game.sentence.startswith(f"A game of about {rounds[2]} rounds usually takes about ")


def test_a_turn_by_turn_game_says_how_many_decisions_it_asks_for_not_a_made_up_time():
    said = durations.estimate(players=6, pace=Game.Pace.TURN_BASED, target_score=None).sentence
    assert "asks each player for about" in said and "up to the deadline for each" in said


def test_once_the_site_has_enough_finished_games_like_it_their_length_is_said(ana, bo, cy, di):
    users = [ana, bo, cy, di]
    for _ in range(durations.MIN_GAMES - 1):
        finished(users, minutes=10)
    finished([ana], minutes=50, players=6)  # another size: not counted
    assert durations.estimate(**ROUND).games == 0  # one short
    finished(users, minutes=16)
    found = durations.estimate(**ROUND)
    assert found.games == durations.MIN_GAMES
    # The median, and the middle half of the games (statistics.quantiles: 10 and 13 min).
    assert found.sentence == (
        f"A single round usually takes about 10 minutes, most between 10 and 13 minutes "
        f"(from {durations.MIN_GAMES} finished games like it)."
    )
    # Games with quick bots are other games: those are still estimated from bot games.
    assert durations.estimate(**ROUND, bot_speed=Game.BotSpeed.QUICK).games == 0


def test_the_create_forms_estimate_follows_its_settings_and_takes_any_input(client):
    client.force_login(make_user("host"))
    url = reverse("games:estimate")
    one = client.get(url, {"players": "4", "pace": "realtime", "scoring": "single"})
    target = client.get(url, {"players": "8", "scoring": "target", "target_score": "1000"})
    assert one.status_code == target.status_code == 200
    assert one.content.decode().startswith("A single round")
    assert target.content.decode().startswith("A game of about ")
    for junk in ({"players": "99", "target_score": "<b>"}, {"pace": "x" * 5000}, {}):
        answer = client.get(url, junk)
        assert answer.status_code == 200 and "<" not in answer.content.decode()


def test_play_now_and_the_create_form_say_how_long_and_offer_quick_bots(client):
    host = make_user("host")
    client.force_login(host)
    home = client.get(reverse("lobby:index")).content.decode()
    assert "A single round usually takes about " in home
    assert "With quick bots, about " in home
    assert 'id="length-estimate"' in client.get(reverse("lobby:create")).content.decode()
    client.post(reverse("lobby:quick"), {"bots": "quick"})
    client.post(reverse("lobby:quick"))
    speeds = list(Game.objects.filter(host=host).order_by("pk").values_list("bot_speed", flat=True))
    assert speeds == [Game.BotSpeed.QUICK, Game.BotSpeed.STEADY]
