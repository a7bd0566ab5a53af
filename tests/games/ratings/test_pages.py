"""Where ratings show: the create form's choice, the leaderboard, the profile and its chart,
the seat plates' numbers and the changes at the game's end."""

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from games.models import Game, Rating
from games.presenters import ratings as shown_ratings
from games.presenters import table
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_fragment_markup import parse
from tests.games.ratings.helpers import LIBRARY, changes, confirmed, rated_game, rated_table
from tests.lobby.test_create_table import table_data

pytestmark = pytest.mark.django_db


def test_the_host_chooses_rated_or_casual(client, ana):
    confirmed(ana)
    client.force_login(ana)
    form = client.get(reverse("lobby:create")).content.decode()
    assert 'name="rated" value="rated"' in form and 'value="casual"' in form
    client.post(reverse("lobby:create"), table_data(rated="rated"))
    client.post(reverse("lobby:create"), table_data(rated="casual"))
    client.post(reverse("lobby:create"), table_data())  # a form without it: casual
    assert list(Game.objects.order_by("pk").values_list("rated", flat=True)) == [True, False, False]


def test_a_junk_choice_is_refused(client, ana):
    client.force_login(ana)
    response = client.post(reverse("lobby:create"), table_data(rated="yes please"))
    assert response.status_code == 400 and not Game.objects.exists()


def test_the_label_says_casual_once_a_bot_sits(four):
    rated = rated_table(four)
    with_bot = rated_table(four[:3])
    assert shown_ratings.rated_label(rated) == "Rated"
    assert shown_ratings.rated_label(with_bot) == "Casual"


def test_a_newcomer_shows_1000_and_the_number_is_the_librarys_ordinal():
    assert shown_ratings.shown(LIBRARY.mu, LIBRARY.sigma) == 1000
    r = LIBRARY.rating(mu=31.2, sigma=2.1)
    assert shown_ratings.shown(r.mu, r.sigma) == round(r.ordinal(alpha=40, target=1000))


def test_plates_show_each_persons_rating_and_no_bot_rating(four):
    game = rated_game(four)
    plates = shown_ratings.plate_ratings(game)
    for seat, user in enumerate(four):
        r = Rating.objects.get(user=user, players=4)
        assert plates[seat] == str(shown_ratings.shown(r.mu, r.sigma))
    with_bot = make_started_game([make_user("x1"), make_user("x2")])
    assert shown_ratings.plate_ratings(with_bot) == {0: "1000", 1: "1000"}
    # A push hands over the seats it has read already: the same ratings from one query.
    for g in (game, with_bot):
        assert shown_ratings.plate_ratings(g, list(g.seats.all())) == shown_ratings.plate_ratings(g)


def test_the_game_end_shows_each_change(four):
    game = rated_game(four)
    rows = shown_ratings.rating_changes(game)
    assert [r["seat"] for r in rows] == [0, 1, 2, 3]
    for row, user in zip(rows, four, strict=True):
        c = changes(game)[user.pk]
        assert row["after"] == shown_ratings.shown(c.mu_after, c.sigma_after)
        assert row["before"] == 1000
        assert row["delta"] == shown_ratings.signed(row["after"] - 1000)
    html = render_to_string("ratings/change.html", {"changes": rows})
    assert html.count("<li") == 4 and "Rating changes" in html
    assert render_to_string("ratings/change.html", {"changes": []}).strip() == ""


def test_the_leaderboard_lists_people_with_enough_games_best_first(
    client, settings, ana, bo, cy, ed
):
    settings.RATING_MIN_GAMES = 3
    Rating.objects.create(user=ana, players=4, mu=30, sigma=2, games=3)
    Rating.objects.create(user=bo, players=4, mu=35, sigma=2, games=10)
    Rating.objects.create(user=cy, players=4, mu=40, sigma=2, games=2)  # too few games
    Rating.objects.create(user=ed, players=6, mu=28, sigma=2, games=5)
    client.force_login(ana)
    page = client.get(reverse("history:leaderboard")).content.decode()
    board = page[page.index('id="leaderboard"') :]
    assert board.index("Bo") < board.index("Ana") and ">cy<" not in board and ">ed<" not in board
    assert str(shown_ratings.shown(35, 2)) in board
    assert 'id="my-rating"' in page
    six = client.get(reverse("history:leaderboard"), {"players": 6}).content.decode()
    six = six[six.index('id="leaderboard"') : six.index("</table>", six.index('id="leaderboard"'))]
    assert ">ed<" in six and "Bo" not in six
    junk = client.get(reverse("history:leaderboard"), {"players": "9; drop"})
    assert junk.status_code == 200 and 'aria-current="page">4 players' in junk.content.decode()


def test_the_leaderboard_asks_for_a_log_in(client):
    response = client.get(reverse("history:leaderboard"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_profile_shows_the_rating_and_its_chart(client, four):
    rated_game(four)
    rated_game(four)
    client.force_login(four[1])
    page = client.get(reverse("history:profile", args=[four[0].username])).content.decode()
    r = Rating.objects.get(user=four[0], players=4)
    section = page[page.index('id="ratings"') :]
    assert f'<span class="rating-value">{shown_ratings.shown(r.mu, r.sigma)}</span>' in section
    assert "2 rated games" in section and "provisional" in section
    chart = section[section.index("<svg") : section.index("</figure>")]
    points = re.search(r'<polyline points="([^"]+)"', chart).group(1).split()
    assert len(points) == 3  # before the first game, after each
    assert "style=" not in page and "<script>" not in chart


def test_a_profile_without_rated_games_says_so(client, ana, bo):
    client.force_login(bo)
    page = client.get(reverse("history:profile", args=[ana.username])).content.decode()
    assert "No rated games yet." in page and "<svg viewBox" not in page


def test_the_table_shows_the_ratings_on_the_plates_and_the_changes_at_the_end(four):
    game = rated_game(four)
    html = table.render_fragments(table.table_context(game, 0))
    felt = parse(html).find("section", id="table-seats")
    for seat, plate in enumerate(felt.find_all("li", cls="plate")):
        r = Rating.objects.get(user=four[seat], players=4)
        assert plate.find("span", cls="plate-rating").text() == str(
            shown_ratings.shown(r.mu, r.sigma)
        )
        assert f"rating {shown_ratings.shown(r.mu, r.sigma)}" in plate.attrs["aria-label"]
    result = parse(html).find("section", id="table-result")
    assert len(result.find("section", id="rating-changes").find_all("li")) == 4


def test_a_casual_table_shows_no_rating(four):
    game = make_started_game(four)
    html = table.render_fragments(table.table_context(game, 0))
    assert "plate-rating" not in html and "rating-changes" not in html
