"""The moderators' admin in a real Chromium at a laptop's 1366x768: the games list fits the
screen's width, and a running game's page reads as the site does (seats from 1, no form)."""

import os

import pytest
from django.test import Client

from tests.conftest import make_started_game, make_user, play_until
from tests.e2e.conftest import new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
# Where the running game's page is photographed, for a person to look at (the tests read
# nothing from it).
SHOT = os.environ.get("ADMIN_SHOT", "")


def admin_page(browser, base_url):
    staff = make_user("boss", is_staff=True, is_superuser=True)
    # The server checks passwords with its own hashers, not the tests' fast one: a session.
    client = Client()
    client.force_login(staff)
    page = new_page(browser, viewport=LAPTOP)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return page


def busy_lobby():
    """Tables of four and of eight, with the longest names the site allows, some played."""
    people = [
        make_user(f"player{i}", display_name=f"Maximiliana Wolkenstein {i:02d}") for i in range(8)
    ]
    games = [make_started_game(people[:4]), make_started_game(people, players=8)]
    games += [make_started_game(people[i : i + 2], bots=["hard", "easy"]) for i in range(0, 6, 2)]
    for game in games[:3]:
        play_until(game, 14)
    return games


def test_the_games_list_fits_a_laptop_screen_without_scrolling_sideways(
    daphne_url, chromium_browser
):
    games = busy_lobby()
    page = admin_page(chromium_browser, daphne_url)
    page.goto(f"{daphne_url}/admin/games/game/")
    page.locator("#result_list").wait_for()
    assert page.locator("#result_list tbody tr").count() == len(games)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= LAPTOP["width"], width
    # Django's admin lets the table scroll inside its own box rather than the page: the
    # columns themselves must fit, or the last ones are cut off behind a scroll bar.
    box = page.evaluate(
        "(() => { const r = document.querySelector('#changelist .results');"
        " return [r.scrollWidth, r.clientWidth]; })()"
    )
    assert box[0] <= box[1], box


def test_a_running_games_page_shows_no_form_and_seats_from_one(daphne_url, chromium_browser):
    game = busy_lobby()[1]
    page = admin_page(chromium_browser, daphne_url)
    page.goto(f"{daphne_url}/admin/games/game/{game.pk}/change/")
    page.locator("#content").wait_for()
    if SHOT:
        page.screenshot(path=SHOT, full_page=True)
    assert page.locator("#content input[type=checkbox]:enabled").count() == 0
    assert page.locator("input[name=_save], input[name=_continue]").count() == 0
    assert page.get_by_text("Add another").count() == 0
    seats = page.locator("#seats-group").inner_text()
    assert "Seat 1" in seats and "Seat 8" in seats and "Seat 0" not in seats
    assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
