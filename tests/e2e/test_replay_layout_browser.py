"""In a real Chromium: a finished game's replay, opened by one of its players, fits the screen.

At 1280x800 the board, the reader's own seat, every hand the reader is shown and the step
controls are all on the first screen, without a scroll; at 390x844 nothing runs off the side
and the step controls stay within reach."""

import pytest
from django.test import Client

from tests.conftest import make_user
from tests.e2e.conftest import new_page
from tests.games.history.helpers import make_finished_game, rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
CONTROLS = ["#replay-first", "#replay-prev", "#replay-next", "#replay-last", "#replay-step"]


@pytest.fixture
def finished(daphne_url):
    """Ana's finished game of four (Ana at seat 0), its step count, and her session cookie."""
    users = [make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di")]
    game = make_finished_game(users)
    client = Client()
    client.force_login(users[0])
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": daphne_url}
    return game, len(rows(game)), cookie


def open_replay(chromium_browser, daphne_url, finished, viewport, query):
    game, _, cookie = finished
    page = new_page(chromium_browser, viewport=viewport)
    page.context.add_cookies([cookie])
    response = page.goto(f"{daphne_url}/games/{game.pk}/replay/{query}")
    assert response.status == 200
    return page


def assert_on_screen(locator, what, viewport):
    """The element's whole box lies inside the viewport as it stands (nothing is scrolled to
    it: bounding_box() is relative to the viewport)."""
    box = locator.bounding_box()
    assert box and box["width"] > 0 and box["height"] > 0, f"{what} is not drawn"
    assert box["x"] >= 0 and box["y"] >= 0, (what, box)
    assert box["x"] + box["width"] <= viewport["width"], (what, box)
    assert box["y"] + box["height"] <= viewport["height"], (what, box)


def assert_first_screen_shows_the_game(page, hands):
    assert page.evaluate("window.scrollY") == 0
    felt = page.locator("#replay-felt")
    assert_on_screen(felt, "the board", DESKTOP)
    assert_on_screen(felt.locator(".discard .card.top"), "the discard pile's top card", DESKTOP)
    assert_on_screen(felt.locator(".plate.you"), "the reader's own seat", DESKTOP)
    shown = page.locator(".replay-hand")
    assert shown.count() == hands
    for index in range(hands):
        hand = shown.nth(index)
        assert_on_screen(hand, f"hand {index + 1}", DESKTOP)
        # The cards themselves, not only the hand's box: every card's face is in view.
        faces = hand.locator(".card .face")
        for card in range(faces.count()):
            assert_on_screen(faces.nth(card), f"hand {index + 1}, card {card + 1}", DESKTOP)
    for control in CONTROLS:
        assert_on_screen(page.locator(control), control, DESKTOP)


@pytest.mark.parametrize(
    ("query", "hands"),
    [("?seat=0&step={step}", 1), ("?all=1&step={step}", 4)],
    ids=["own-hand", "every-hand"],
)
def test_at_1280x800_the_board_the_readers_seat_the_hands_and_the_controls_fit_one_screen(
    chromium_browser, daphne_url, finished, query, hands
):
    _, total, _ = finished
    # A step early in the round: every hand still holds its seven cards or so.
    page = open_replay(chromium_browser, daphne_url, finished, DESKTOP, query.format(step=5))
    assert_first_screen_shows_the_game(page, hands)

    # A step swapped in by the page's script keeps the fit.
    page.locator("#replay-next").click()
    page.locator("#replay[data-step='6']").wait_for()
    assert_first_screen_shows_the_game(page, hands)

    # The last step adds the round's and the game's result: still one screen.
    page.goto(page.url.replace("step=6", f"step={total}"))
    page.locator("#replay-game-over").wait_for()
    assert_first_screen_shows_the_game(page, hands)
    page.context.close()


@pytest.mark.parametrize("query", ["?seat=0&step=5", "?all=1&step=5", "?step=1"])
def test_at_390x844_nothing_runs_off_the_side_and_the_controls_stay_in_reach(
    chromium_browser, daphne_url, finished, query
):
    page = open_replay(chromium_browser, daphne_url, finished, PHONE, query)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    for control in CONTROLS:
        assert_on_screen(page.locator(control), control, PHONE)

    # Scrolled down to the hands and the moves, the controls come along.
    page.locator("#replay-log").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 0
    for control in CONTROLS:
        assert_on_screen(page.locator(control), f"{control} once scrolled", PHONE)
    step = int(page.locator("#replay").get_attribute("data-step"))
    page.locator("#replay-next").click()
    page.locator(f"#replay[data-step='{step + 1}']").wait_for()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.context.close()
