"""In Chromium, by keyboard alone: the skip link, the shortcuts' list, choosing and passing a
card in the setup pass, and drawing."""

import pytest

from games.models import GameEvent
from tests.browser_support import wait_until
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_table_browser import finished, seq_of, wait_for_news, wait_past

pytestmark = [pytest.mark.browser]

# The number keys ("0" is the tenth) of the first `n` cards of the hand that may be played
# or chosen now and are not chosen yet, as far as the keys reach.
KEYS_OF_CARDS = """(n) => Array.from(document.querySelectorAll('#hand-form .hand-card'))
  .map((b, i) => (!b.disabled && b.getAttribute('aria-pressed') !== 'true' && i < 10
                  ? String((i + 1) % 10) : null))
  .filter(Boolean).slice(0, n)"""


def wait_for_event(game, **fields):
    return wait_until(
        lambda: GameEvent.objects.filter(game=game, **fields).first(), f"an event {fields}"
    )


def move_by_keyboard(page):
    """Makes this seat's decision by key, if it has one other than drawing: cards to swap or
    give by their numbers, then S; else the first card it may play (Blue for a Wild), else T
    to take a penalty or P to pass. True if it pressed."""
    form = page.locator("#hand-form")
    mode = form.get_attribute("data-mode") if form.count() else ""
    if mode in ("pick", "give"):
        pressed = page.locator("#hand-form .hand-card[aria-pressed=true]").count()
        for key in page.evaluate(KEYS_OF_CARDS, int(form.get_attribute("data-need")) - pressed):
            page.keyboard.press(key)
        page.keyboard.press("s")
        return True
    if mode != "play":
        return False
    for key in page.evaluate(KEYS_OF_CARDS, 1):
        page.keyboard.press(key)
        if page.locator(".colour-choice:not([hidden])").count():
            page.keyboard.press("b")
        return True
    for key, button in (("t", "#btn-take"), ("p", "#btn-pass")):
        if page.locator(button).count():
            page.keyboard.press(key)
            return True
    return False


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

    # Later, when this seat may draw, D draws. Until then it decides by key, each decision
    # followed by the page showing it (and the bots' answers), or waits for its turn.
    for _ in range(300):
        if page.locator("#btn-draw").count() or finished(page):
            break
        seq = seq_of(page)
        if move_by_keyboard(page):
            wait_past(page, seq)
        else:
            wait_for_news(page, seq)
    if page.locator("#btn-draw").count():

        def drawn():
            return GameEvent.objects.filter(game=game, seat=0, kind="draw").count()

        before = drawn()
        page.keyboard.press("d")
        wait_until(lambda: drawn() != before, "the draw")
        assert drawn() == before + 1
