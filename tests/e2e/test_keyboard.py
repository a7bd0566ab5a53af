"""In Chromium, by keyboard alone: the skip link, the shortcuts' list, choosing and passing a
card in the setup pass, and drawing."""

import time

import pytest

from games.models import GameEvent
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_table_browser import seq_of, wait_past

pytestmark = [pytest.mark.browser]


def wait_for_event(game, **fields):
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        found = GameEvent.objects.filter(game=game, **fields).first()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no event {fields}")


def test_a_player_plays_by_keyboard(daphne_url, chromium_browser):
    player = make_user("keys")
    game = make_started_game([player], players=4, seed=43)
    page = logged_in_page(chromium_browser, daphne_url, player)
    page.goto(f"{daphne_url}/games/{game.pk}/")
    page.locator("#hand-form").wait_for()

    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert skip.evaluate("a => a === document.activeElement")
    assert skip.get_attribute("href") == "#table-hand"

    page.keyboard.press("?")
    assert page.locator("#keys-help").evaluate("d => d.open")
    page.keyboard.press("?")
    assert not page.locator("#keys-help").evaluate("d => d.open")

    # The setup pass: the first card, then send it.
    first = page.locator("#hand-form .hand-card").first
    code = first.get_attribute("data-code")
    page.keyboard.press("1")
    assert first.get_attribute("aria-pressed") == "true"
    seq = seq_of(page)
    page.keyboard.press("s")
    mine = wait_for_event(game, seat=0, kind="pass")
    assert mine.action == {"type": "pass", "card": code}
    wait_past(page, seq)

    # Later, when this seat may draw, D draws.
    deadline = time.monotonic() + 20
    while not page.locator("#btn-draw").count() and time.monotonic() < deadline:
        page.keyboard.press("1")  # play the first card when nothing else is offered
        page.wait_for_timeout(400)
    if page.locator("#btn-draw").count():
        before = GameEvent.objects.filter(game=game, seat=0, kind="draw").count()
        page.keyboard.press("d")
        deadline = time.monotonic() + 10
        while (GameEvent.objects.filter(game=game, seat=0, kind="draw").count() == before
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert GameEvent.objects.filter(game=game, seat=0, kind="draw").count() == before + 1

