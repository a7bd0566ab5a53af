"""In Chromium: a new account takes the browser's time zone, and the profile offers it."""

import pytest
from playwright.sync_api import expect

from accounts.models import User
from tests.browser_support import PATIENCE_MS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_takes_the_browsers_zone_and_the_profile_offers_it_back(
    live_server, chromium_browser
):
    context = chromium_browser.new_context(timezone_id="Asia/Tokyo")
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    page.goto(live_server.url + "/accounts/signup/")
    page.locator("#id_username").fill("kenji")
    page.locator("#id_email").fill("kenji@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(live_server.url + "/")
    assert User.objects.get(username="kenji").time_zone == "Asia/Tokyo"

    User.objects.filter(username="kenji").update(time_zone="UTC")
    page.goto(live_server.url + "/accounts/profile/")
    page.get_by_role("button", name="Use this device's time zone (Asia/Tokyo)").click()
    expect(page.locator("#id_time_zone")).to_have_value("Asia/Tokyo")
    context.close()
