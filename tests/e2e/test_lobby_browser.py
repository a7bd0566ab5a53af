"""In a real Chromium: sign up, create a table, add bots, start and make the first move."""

import re

import pytest
from playwright.sync_api import expect

from games.models import Game, GameEvent
from tests.browser_support import PATIENCE_MS, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_page(live_server, chromium_browser):
    page = chromium_browser.new_page()
    page.set_default_timeout(PATIENCE_MS)
    yield page


def test_a_newcomer_signs_up_fills_a_table_with_bots_starts_and_passes_a_card(
    browser_page, live_server
):
    page = browser_page
    page.goto(live_server.url + "/accounts/signup/")
    page.locator("#id_username").fill("newcomer")
    page.locator("#id_email").fill("newcomer@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("link", name="Create a table").click()

    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    for left in (2, 1, 0):
        page.get_by_role("button", name="Add bot").first.click()
        expect(page.get_by_role("button", name="Add bot")).to_have_count(left)  # the page after it
    page.get_by_role("button", name="Start").click()

    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.get_by_role("heading", name="Your hand").wait_for()
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE
    page.get_by_role("list", name="Your cards").get_by_role("button").first.click()
    page.locator("#btn-pick").click()

    wait_until(lambda: GameEvent.objects.filter(game=game, seq=2).exists(), "the pass")
    pick = GameEvent.objects.get(game=game, seq=2)
    assert (pick.seat, pick.kind, pick.actor) == (0, "pass", "person")


def test_the_bot_level_being_chosen_survives_the_seat_list_refreshing(browser_page, live_server):
    page = browser_page
    page.goto(live_server.url + "/accounts/signup/")
    page.locator("#id_username").fill("host")
    page.locator("#id_email").fill("host@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("link", name="Create a table").click()
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    page.evaluate("""() => {
        window.__swaps = 0;
        document.body.addEventListener("htmx:afterSwap", () => { window.__swaps += 1; });
    }""")

    page.get_by_label("Bot level for seat 3").select_option("hard")
    # Two refreshes of the seat list (every 2 s) go by before the host clicks.
    page.wait_for_function("() => window.__swaps >= 2", timeout=10_000)
    assert page.get_by_label("Bot level for seat 3").input_value() == "hard"
    page.get_by_role("button", name="Add bot to seat 3").click()
    expect(page.get_by_role("button", name="Add bot to seat 3")).to_have_count(
        0
    )  # the page after it

    game = Game.objects.get()
    assert game.seats.get(number=2).bot_level == "hard"
    assert page.get_by_role("button", name="Add bot to seat 3").count() == 0


def test_the_create_form_shows_only_the_options_that_apply(browser_page, live_server):
    page = browser_page
    page.goto(live_server.url + "/accounts/signup/")
    page.locator("#id_username").fill("host2")
    page.locator("#id_email").fill("host2@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.goto(live_server.url + "/tables/new/")
    timer, deadline = (
        page.locator('input[name="move_seconds"]').first,
        page.locator('input[name="turn_hours"]').first,
    )
    target = page.locator('input[name="target_score"]')
    assert timer.is_visible() and not deadline.is_visible() and not target.is_visible()

    page.get_by_label("Turn by turn").check()
    expect(deadline).to_be_visible()
    expect(timer).to_be_hidden()
    expect(page.locator('input[name="missed_deadline"]').first).to_be_visible()
    page.get_by_label("Play to a target score").check()
    expect(target).to_be_visible()
    target.fill("300")
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    game = Game.objects.get()
    assert (game.pace, game.target_score) == ("turn", 300)
