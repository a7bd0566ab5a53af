"""The bot account's token pages in a real Chromium, at a desk's size and a phone's: a
token is created and shown once, then listed by its prefix and revoked; nothing the
Content-Security-Policy refuses, nothing wider than the screen."""

import pathlib

import pytest
from playwright.sync_api import expect

from accounts import bot_tokens
from tests.conftest import make_user
from tests.e2e.conftest import logged_in_page

pytestmark = [pytest.mark.browser]
SHOTS = pathlib.Path("test-artifacts")


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_create_list_and_revoke_a_token(chromium_browser, daphne_url, width, height):
    SHOTS.mkdir(exist_ok=True)
    bot = bot_tokens.make_bot_account(make_user("robo", display_name="Robo"))
    bot_tokens.issue(bot, "old laptop")
    page = logged_in_page(chromium_browser, daphne_url, bot)
    page.set_viewport_size({"width": width, "height": height})
    refused = []
    page.on(
        "console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None
    )
    page.goto(f"{daphne_url}/accounts/bot/")
    page.fill("#id_name", "server")
    page.click("text=Create token")
    raw = page.input_value("#raw-token")
    assert raw.startswith("wct_")
    page.screenshot(path=SHOTS / f"bot-token-created-{width}.png", full_page=True)
    page.click("text=Back to the bot account")
    page.wait_for_url(f"{daphne_url}/accounts/bot/")
    assert raw not in page.content()
    assert page.locator("table.tokens tbody tr").count() == 2
    page.screenshot(path=SHOTS / f"bot-tokens-{width}.png", full_page=True)
    page.locator("table.tokens tbody tr", has_text="old laptop").locator("text=Revoke").click()
    expect(page.get_by_text("is revoked")).to_be_visible()  # the page the revocation answers
    assert "is revoked" in page.content()
    page.screenshot(path=SHOTS / f"bot-tokens-revoked-{width}.png", full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not overflow
    assert not refused


def test_a_new_accounts_page_offers_to_become_a_bot(chromium_browser, daphne_url):
    SHOTS.mkdir(exist_ok=True)
    user = make_user("newbie")
    for width, height in [(1280, 800), (390, 844)]:
        page = logged_in_page(chromium_browser, daphne_url, user)
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{daphne_url}/accounts/bot/")
        assert "cannot be undone" in page.content()
        page.screenshot(path=SHOTS / f"bot-become-{width}.png", full_page=True)
