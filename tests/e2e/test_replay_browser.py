"""In a real Chromium: open a finished game's replay and step through it with the
buttons and the keyboard."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD, make_user
from tests.e2e.replay_fixtures import replay_page  # noqa: F401 (a fixture)
from tests.history.helpers import make_finished_game, rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_steps_through_a_finished_game_with_buttons_and_keys(replay_page, live_server):
    page = replay_page
    users = [make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di")]
    game = make_finished_game(users)
    total = len(rows(game))

    page.goto(live_server.url + "/accounts/login/")
    page.locator("#id_username").fill("ana")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/$"))
    page.goto(f"{live_server.url}/games/{game.pk}/replay/")

    position = page.locator("#replay-position")
    expect(position).to_have_text(f"Step 1 of {total}")
    page.locator("#replay-next").click()
    expect(position).to_have_text(f"Step 2 of {total}")
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Step 3 of {total}")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"Step 2 of {total}")
    expect(page).to_have_url(re.compile(r"step=2"))
    page.keyboard.press("End")
    expect(position).to_have_text(f"Step {total} of {total}")
    expect(page.locator("#replay-game-over")).to_be_visible()
    expect(page.locator(".replay-hand")).to_have_count(0)
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Step 1 of {total}")

    # Show all hands: every seat's hand, at the step the reader was on.
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Step 2 of {total}")
    page.locator("#replay-all").check()
    page.get_by_role("button", name="Show").click()
    expect(position).to_have_text(f"Step 2 of {total}")
    expect(page.locator(".replay-hand")).to_have_count(4)
