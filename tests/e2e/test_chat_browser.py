"""The table chat in a real Chromium, served by a real Daphne: two people at one table send
and receive lines live, a quick phrase included; a spectator sees neither; a refusal is said
in the box; and the chat fits beside the table on a desktop screen and under it on a phone."""

import pytest
from playwright.sync_api import expect

from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OUT_OF_VIEW = """(sel) => {
  const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5;
}"""


def open_table(browser, url, user, game, size=(1280, 800)):
    page = logged_in_page(browser, url, user)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    page.locator("#chat-form").wait_for(state="attached")
    # An empty chat starts folded (the move log has its room): the reader opens it to write.
    if page.locator("#chat").get_attribute("open") is None:
        page.locator("#chat > summary").click()
    page.locator("#chat-form").wait_for()
    return page, errors


def lines(page):
    return page.locator("#chat .chat-line .text").all_inner_texts()


def test_two_players_chat_live_and_a_spectator_sees_none_of_it(daphne_url, chromium_browser):
    ana, bo, ed = (
        make_user("ana", display_name="Ana"),
        make_user("bo", display_name="Bo"),
        make_user("ed"),
    )
    # Turn by turn: the bots' moves do not push the table every second meanwhile.
    game = make_started_game([ana, bo], pace="turn", spectators=True)
    ana_page, ana_errors = open_table(chromium_browser, daphne_url, ana, game)
    bo_page, bo_errors = open_table(chromium_browser, daphne_url, bo, game)
    ed_page, ed_errors = open_table(chromium_browser, daphne_url, ed, game)

    ana_page.locator("#chat-text").fill("Hello <b>partner</b>!")
    ana_page.locator("#chat-form .chat-send").click()
    bo_page.locator("#chat .chat-line", has_text="Hello <b>partner</b>!").wait_for()
    assert bo_page.locator("#chat .chat-line b").count() == 0  # shown as text, not markup
    assert bo_page.locator("#chat .chat-line .who").first.inner_text() == "Ana"
    # Bo answers with a quick phrase; Ana sees it, her own line marked as hers.
    bo_page.get_by_role("button", name="Well played").click()
    ana_page.locator("#chat .chat-line", has_text="Well played").wait_for()
    assert lines(ana_page) == ["Hello <b>partner</b>!", "Well played"]
    assert ana_page.locator("#chat .chat-line.mine").count() == 1
    assert ana_page.locator("#chat .chat-line.mine .chat-report").count() == 0
    assert ana_page.locator("#chat-text").input_value() == ""
    # Lines that arrived live are there again after a reload (read over HTTP).
    bo_page.reload()
    bo_page.locator("#chat .chat-line", has_text="Well played").wait_for()
    assert lines(bo_page) == ["Hello <b>partner</b>!", "Well played"]

    # The spectator's room is their own.
    ed_page.locator("#chat-text").fill("Watching from the rail")
    ed_page.keyboard.press("Enter")
    ed_page.locator("#chat .chat-line", has_text="Watching from the rail").wait_for()
    # A line of Bo's, sent after Ed's was pushed, reaches Ana through the same channel: had
    # Ed's line been pushed to her, it would have come first.
    bo_page.locator("#chat-text").fill("After the rail")
    bo_page.locator("#chat-form .chat-send").click()
    ana_page.locator("#chat .chat-line", has_text="After the rail").wait_for()
    assert "Watching from the rail" not in ana_page.locator("#chat").inner_text()
    assert lines(ed_page) == ["Watching from the rail"]
    assert "The players do not see this room" in ed_page.locator("#chat").inner_text()

    # A refusal is said in the box, and the text stays to be fixed.
    ana_page.locator("#chat-text").fill("x" * 300)
    ana_page.locator("#chat-text").evaluate(
        "(el) => { el.removeAttribute('maxlength'); el.value += 'yz'; }"
    )
    ana_page.locator("#chat-form .chat-send").click()
    ana_page.locator("#chat-error", has_text="too long: at most 300 characters").wait_for()
    assert len(ana_page.locator("#chat-text").input_value()) == 302

    ARTIFACTS.mkdir(exist_ok=True)
    ana_page.locator("#chat-error").evaluate("(el) => { el.textContent = ''; }")
    ana_page.locator("#chat-text").fill("")
    ana_page.screenshot(path=str(ARTIFACTS / "chat-desktop-1280x800.png"))
    for selector in ("#chat", "#table-hand", "#table-seats", "#table-log", "#chat-form"):
        assert not ana_page.evaluate(OUT_OF_VIEW, selector), selector
    assert ana_page.evaluate("() => document.documentElement.scrollHeight <= innerHeight")
    assert ana_errors == bo_errors == ed_errors == []


def test_on_a_phone_the_chat_folds_and_counts_new_lines(daphne_url, chromium_browser):
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    game = make_started_game([ana, bo], pace="turn")
    phone = logged_in_page(chromium_browser, daphne_url, bo)
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{daphne_url}/games/{game.pk}/")
    phone.locator("#connection[data-state=live]").wait_for()
    phone.locator("#chat-form").wait_for(state="attached")  # the panel is read, folded
    assert phone.locator("#chat").get_attribute("open") is None
    desk, errors = open_table(chromium_browser, daphne_url, ana, game)
    for text in ("Good luck", "Good game"):
        desk.get_by_role("button", name=text).click()
        desk.locator("#chat .chat-line", has_text=text).wait_for()
    phone.locator("#chat-new", has_text="(2 new)").wait_for()
    assert phone.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    phone.locator("#chat").scroll_into_view_if_needed()
    phone.screenshot(path=str(ARTIFACTS / "chat-phone-folded-390x844.png"))
    phone.locator("#chat > summary").click()
    phone.locator("#chat .chat-line", has_text="Good game").wait_for()
    # The panel's toggle event comes a task after the click: the counter clears then.
    expect(phone.locator("#chat-new")).to_have_text("")
    phone.locator("#chat").scroll_into_view_if_needed()
    phone.screenshot(path=str(ARTIFACTS / "chat-phone-open-390x844.png"))
    assert phone.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    assert errors == []
