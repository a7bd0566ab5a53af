"""The history, profile and leaderboard pages of a player with a rated rematch series, in
Chromium at a desktop's and a phone's size: what matters is in view and nothing pushes the
page sideways. Screenshots go to test-artifacts/."""

import pytest

from tests.conftest import make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page
from tests.games.history.helpers import make_finished_game
from tests.games.history.test_series import again

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [(1280, 800), (390, 844)]
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.fixture
def series_of_three():
    # A rated table needs confirmed addresses (docs/ratings.md).
    users = [
        make_user(name.lower(), display_name=name, email_confirmed=True)
        for name in ("Ana", "Bo", "Cy", "Di")
    ]
    first = make_finished_game(users, rated=True)
    third = again(again(first, users), users)
    return users, third


@pytest.mark.parametrize("width,height", SIZES)
def test_the_profile_history_and_leaderboard_read_well(
    daphne_url, chromium_browser, series_of_three, width, height
):
    users, last = series_of_three
    page = logged_in_page(chromium_browser, daphne_url, users[0])
    page.set_viewport_size({"width": width, "height": height})

    page.goto(f"{daphne_url}/players/ana/")
    series = page.locator("#series .series-item")
    assert series.count() == 1 and "over 3 games" in series.inner_text()
    assert page.locator(".rating-card").first.is_visible()
    assert page.evaluate(NO_SIDEWAYS)
    page.screenshot(path=str(ARTIFACTS / f"profile-series-{width}.png"), full_page=True)

    page.goto(f"{daphne_url}/history/")
    tag = page.locator(f'tr[data-game="{last.pk}"] .series-tag')
    assert tag.inner_text().startswith("Series game 3 · ")
    page.screenshot(path=str(ARTIFACTS / f"history-series-{width}.png"), full_page=True)

    page.goto(f"{daphne_url}/ratings/")
    page.screenshot(path=str(ARTIFACTS / f"leaderboard-{width}.png"), full_page=True)
    assert page.evaluate(NO_SIDEWAYS)
