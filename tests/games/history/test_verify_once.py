"""The verify page re-dealt a whole game on every view: anyone who may watch could make the
server replay thousands of moves per request. A finished game never changes, so its check is
computed once (cached by game and last event); a check with other values is limited per
person."""

import pytest
from django.urls import reverse

from games.presenters import fairness
from tests.conftest import make_started_game, play_one
from tests.games.history.helpers import finish

pytestmark = pytest.mark.django_db


@pytest.fixture
def deals(monkeypatch):
    """Every re-deal of a game (fairness.verify replays it from the seed), counted."""
    calls = []
    real = fairness.verify

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(fairness, "verify", counted)
    return calls


def verify_page(client, game, **params):
    return client.get(reverse("history:verify", args=[game.pk]), params)


def check_shown(response):
    """The verdict and the rounds' table, as the page shows them."""
    html = response.text
    return (
        html.split('id="verify-verdict"', 1)[1].split("</p>", 1)[0],
        html.split('id="verify-rounds"', 1)[1].split("</table>", 1)[0],
    )


def test_viewing_a_finished_games_check_again_and_again_re_deals_it_once(client, four, ed, deals):
    game = finish(make_started_game(four, seed=20241, target_score=100))
    client.force_login(ed)
    first = verify_page(client, game)
    assert first.status_code == 200 and "Every deal matches." in first.text

    again = [verify_page(client, game) for _ in range(5)]
    # The game's own values, sent through the form, are the same check.
    again.append(verify_page(client, game, seed=game.seed, secret=game.deal_secret))

    assert deals == [game.pk]
    assert all(a.status_code == 200 and check_shown(a) == check_shown(first) for a in again)
    client.force_login(four[0])  # a player of the game shares it too
    assert "Every deal matches." in verify_page(client, game).text
    assert deals == [game.pk]


def event_reads(queries):
    return [q for q in queries.captured_queries if "games_gameevent" in q["sql"]]


def test_a_second_view_reads_no_event_rows_until_the_game_moves_on(
    client, four, django_assert_max_num_queries
):
    """Cached by the game's last event: a running game that moves on is never shown an
    older page (its new deal's commitment appears), one that does not is not read again."""
    game = make_started_game(four, seed=20241, target_score=100)
    client.force_login(four[0])
    first = verify_page(client, game)
    with django_assert_max_num_queries(50) as queries:
        assert verify_page(client, game).context["commitments"] == first.context["commitments"]
    assert not event_reads(queries)

    commitment = fairness.commitment(game.pk, 2, game.seed, game.deal_secret)
    assert commitment not in first.text
    while game.round == 1:
        play_one(game)
        game.refresh_from_db()
    with django_assert_max_num_queries(50) as queries:
        assert commitment in verify_page(client, game).text
    assert event_reads(queries)


def test_checks_with_other_values_are_limited_per_person(client, four, ed, settings, deals):
    settings.VERIFY_RATE_LIMIT, settings.VERIFY_RATE_WINDOW = 3, 60
    game = finish(make_started_game(four))
    client.force_login(ed)
    answers = [verify_page(client, game, seed=game.seed + n, secret="f" * 64) for n in range(1, 6)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    assert "Too many checks with other values: at most 3 in 60 seconds." in answers[3].text
    assert answers[3].context["result"] is None
    assert len(deals) == 3
    # The game's own check is not one of them, and another person has their own count.
    assert verify_page(client, game).status_code == 200
    client.force_login(four[1])
    assert verify_page(client, game, seed=game.seed + 9, secret="f" * 64).status_code == 200
