"""The table screen in a real Chromium, served by a real Daphne (websockets included)."""

import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from games import engine
from games.models import Game
from lobby import services as lobby
from tests.browser_support import PATIENCE_MS, wait_until
from tests.conftest import make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CARD_NAME = re.compile(
    r"^(?:(?:Red|Yellow|Green|Blue) (?:\d(?: with passing symbol)?|Skip|Reverse|Draw 2)"
    r"|Wild|Wild Team Play|Wild Team Draw 4)$"
)
PICK = re.compile(r"^(Pass|Swap) card$")
# How long one try at a decision may take before the caller tries again (a push may have
# replaced the hand between a look and a click): no condition to wait for, a try to repeat.
ATTEMPT_MS = 10_000


def seq_of(page):
    return int(page.locator("#table-page").get_attribute("data-seq"))


def wait_past(page, seq, timeout=PATIENCE_MS):
    page.wait_for_function(
        "s => parseInt(document.getElementById('table-page').dataset.seq) > s",
        arg=seq,
        timeout=timeout,
    )


def wait_for_news(page, seq):
    """After a look that found nothing to click: waits until the page shows an event past
    `seq`, offers this seat a decision (a push may have replaced the hand mid-click) or shows
    the final result, whichever comes first."""
    page.wait_for_function(
        """s => parseInt(document.getElementById('table-page').dataset.seq) > s
          || !!document.querySelector('#hand-form:not([data-mode=""])')
          || Array.from(document.querySelectorAll('h2'), (h) => h.textContent.trim())
               .includes('Final result')""",
        arg=seq,
    )


def finished(page):
    return page.get_by_role("heading", name="Final result").is_visible()


def act_once(page):
    """Makes this seat's decision by clicking, if it has one. True if it clicked.

    A push may replace the hand between a look and a click: then this try gives up after
    ATTEMPT_MS, and the caller tries again once the page has news (wait_for_news).
    """
    page.set_default_timeout(ATTEMPT_MS)
    try:
        return _act_once(page)
    except PlaywrightTimeout:
        return False
    finally:
        page.set_default_timeout(PATIENCE_MS)


def _act_once(page):
    form = page.locator("#hand-form")
    if not form.count():
        return False
    mode = form.get_attribute("data-mode")
    if mode in ("pick", "give"):
        need = int(form.get_attribute("data-need"))
        # Cards an earlier, interrupted attempt pressed stay pressed (the page keeps a
        # selection across pushes): press only what is still missing, or a second click
        # would release them and the button would never enable.
        pressed = page.locator("#hand-form .choosable[aria-pressed=true]").count()
        cards = page.locator("#hand-form .choosable:not([disabled]):not([aria-pressed=true])")
        for _ in range(max(0, need - pressed)):
            cards.nth(0).click()
        # The pick button is "Pass card" in the setup pass and "Swap card" in a symbol swap.
        page.get_by_role("button", name=PICK if mode == "pick" else "Give").click()
        return True
    if mode != "play":
        return False
    playable = page.locator("#hand-form .hand-card.playable")
    if playable.count():
        card = playable.first
        if card.get_attribute("data-wild"):
            # Its click opens its colours, or closes them if an earlier try left them open.
            if card.get_attribute("aria-expanded") != "true":
                card.click()
            page.locator(".colour-choice:not([hidden])").get_by_role("button", name="Blue").click()
        else:
            card.click()
        return True
    for name in ("Take penalty", "Draw a card", "Pass"):
        button = page.get_by_role("button", name=name, exact=True)
        if button.count():
            button.click()
            return True
    return False


def waits_on_a_person(game, seats):
    """True once the game waits on one of `seats` (people) or is over: the bots' answers to a
    move are then stored."""
    game.refresh_from_db()
    return game.status != Game.Status.ACTIVE or bool(set(game.waiting_on) & seats)


def play_to_the_end(page, *, screenshot_after=None, limit=600, stall_seconds=90):
    """Plays this seat's decisions until the final result. Fails, rather than hangs, when the
    game makes no progress (no new event on the page) for `stall_seconds`."""
    moves = 0
    last_seq, last_change = seq_of(page), time.monotonic()
    while not finished(page):
        assert moves < limit, "the game did not end"
        seq = seq_of(page)
        if seq != last_seq:
            last_seq, last_change = seq, time.monotonic()
        assert time.monotonic() - last_change < stall_seconds, (
            f"no new event for {stall_seconds} s at seq {seq}: "
            + page.locator("#table-page").inner_text()[:2000]
        )
        if act_once(page):
            moves += 1
            wait_past(page, seq)
            if moves == screenshot_after:
                page.screenshot(path=str(ARTIFACTS / "table-midgame.png"), full_page=True)
        else:
            wait_for_news(page, seq)
    return moves


def test_a_newcomer_signs_up_adds_three_bots_and_plays_a_whole_game_by_clicking(
    daphne_url, chromium_browser
):
    page = new_page(chromium_browser, viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: print("CONSOLE", m.text))
    page.on("pageerror", lambda e: print("PAGEERROR", e))
    page.goto(daphne_url + "/accounts/signup/")
    page.locator("#id_username").fill("newcomer")
    page.locator("#id_email").fill("newcomer@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("link", name="Create a table").click()
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    for left in (2, 1, 0):
        page.get_by_label("Bot level").first.select_option("easy")
        page.get_by_role("button", name="Add bot").first.click()
        expect(page.get_by_role("button", name="Add bot")).to_have_count(left)  # the page after it
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.locator("#connection[data-state=live]").wait_for()

    # Every card in the hand is a button named as the rule book names it.
    cards = page.locator("#hand-form .hand-card")
    assert cards.count() == 7
    names = cards.evaluate_all("bs => bs.map(b => b.querySelector('.visually-hidden').textContent)")
    assert all(CARD_NAME.match(n) for n in names), names
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE

    moves = play_to_the_end(page, screenshot_after=6)

    assert moves >= 2
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert page.get_by_role("heading", name="Final ranking").is_visible()
    assert page.get_by_role("table", name="Every hand, revealed and counted").is_visible()
    page.screenshot(path=str(ARTIFACTS / "table-result.png"), full_page=True)


def test_two_people_at_one_table_see_each_others_moves_live(daphne_url, chromium_browser):
    ana = make_user("ana", display_name="Ana")
    bo = make_user("bo", display_name="Bo")
    game = lobby.create_table(ana, seed=7)
    lobby.take_seat(game.pk, bo, 1)
    lobby.add_bot(game.pk, ana, 2, "easy")
    lobby.add_bot(game.pk, ana, 3, "easy")
    ana_page = logged_in_page(chromium_browser, daphne_url, ana)
    bo_page = logged_in_page(chromium_browser, daphne_url, bo)
    ana_page.goto(f"{daphne_url}/tables/{game.pk}/")
    ana_page.get_by_role("button", name="Start").click()
    ana_page.wait_for_url(re.compile(r"/games/\d+/$"))
    bo_page.goto(f"{daphne_url}/games/{game.pk}/")
    for page in (ana_page, bo_page):
        page.locator("#connection[data-state=live]").wait_for()
        page.evaluate("window.__notReloaded = true")

    # Ana chooses her setup card: Bo's screen shows that she has chosen, never what.
    seq = seq_of(bo_page)
    act_once(ana_page)
    wait_past(bo_page, seq)
    bo_page.locator("#seat-0 .state", has_text="has chosen").wait_for()
    assert bo_page.locator("#table-log").get_by_text("Ana has chosen a card to pass.").is_visible()

    # Bo chooses too; then whoever has the turn plays, and the other sees it at once.
    seq = seq_of(ana_page)
    act_once(bo_page)
    wait_past(ana_page, seq)
    for _ in range(40):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        mover, watcher = (ana_page, bo_page) if 0 in game.waiting_on else (bo_page, ana_page)
        if not set(game.waiting_on) & {0, 1}:
            # The bots answer inside the move's request: it is on its way.
            wait_until(lambda: waits_on_a_person(game, {0, 1}), "the bots to answer")
            continue
        seq = seq_of(watcher)
        before = mover.locator("#hand-form .hand-card").count()
        act_once(mover)
        wait_past(watcher, seq)
        if (
            watcher.locator("#table-log li")
            .first.text_content()
            .startswith(("Ana played", "Bo played"))
        ):
            break
    name = "Ana" if mover is ana_page else "Bo"
    line = watcher.locator("#table-log li", has_text=re.compile(rf"^{name} (played|drew)"))
    line.first.wait_for()
    assert before >= 1
    # Both pages stayed the same documents: everything arrived over the socket.
    assert ana_page.evaluate("window.__notReloaded") and bo_page.evaluate("window.__notReloaded")
    # Nothing on Bo's screen names a card of Ana's hand that Bo cannot know of.
    ana_hand = set(
        ana_page.locator("#hand-form .hand-card").evaluate_all(
            "bs => bs.map(b => b.querySelector('.visually-hidden').textContent)"
        )
    )
    bo_text = bo_page.locator("#table-page").inner_text()
    bo_hand = set(
        bo_page.locator("#hand-form .hand-card").evaluate_all(
            "bs => bs.map(b => b.querySelector('.visually-hidden').textContent)"
        )
    )
    discard = set(bo_page.locator("#discard-list li").all_text_contents())
    for card in ana_hand - bo_hand - discard:
        assert not re.search(rf"{re.escape(card)}(?! with)", bo_text), card
    assert engine  # card names come from the engine's own naming
