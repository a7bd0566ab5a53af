"""Find a game in a real Chromium (docs/matchmaking.md): two people look for a table of 4
with bots after 10 s, and both pages land on the same table, sent there by their site
socket (the heartbeat keeps the searches alive and runs the matcher once the bots' wait is
over; no beat runs here). Also the pages at a desktop's and a phone's width."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Game, Seat
from lobby import matchmaking
from lobby.models import Search
from tests.browser_support import wait_until
from tests.conftest import make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page

pytestmark = [pytest.mark.browser]

TABLE = re.compile(r"/games/(\d+)/$")


def look_for_four_with_bots(page, base_url):
    page.goto(f"{base_url}/find/")
    page.get_by_label("4", exact=True).check()
    page.get_by_label("After 10 s").check()
    page.get_by_role("button", name="Find a game").click()
    page.wait_for_url(re.compile(r"/find/\d+/$"))
    expect(page.locator("#find-wait")).to_be_visible()


def test_two_people_looking_for_the_same_land_on_one_table_with_two_bots(
    chromium_browser, daphne_url
):
    ana, bo = make_user("find-ana"), make_user("find-bo")
    first = logged_in_page(chromium_browser, daphne_url, ana)
    second = logged_in_page(chromium_browser, daphne_url, bo)
    look_for_four_with_bots(first, daphne_url)
    look_for_four_with_bots(second, daphne_url)
    # The second page counts both of them, live.
    expect(second.locator("#find-count")).to_have_text("2")
    expect(first.locator("#find-count")).to_have_text("2", timeout=5000)

    first.wait_for_url(TABLE, timeout=30_000)
    second.wait_for_url(TABLE, timeout=30_000)
    assert first.url == second.url
    game = Game.objects.get(pk=int(TABLE.search(first.url).group(1)))
    assert game.status == Game.Status.ACTIVE
    seats = Seat.objects.filter(game=game)
    assert {s.user_id for s in seats if s.user_id} == {ana.pk, bo.pk}
    assert sorted(s.bot_level for s in seats if s.bot_level) == ["normal", "normal"]
    assert set(Search.objects.values_list("status", flat=True)) == {"matched"}
    first.get_by_role("heading", name="Your hand").wait_for()
    second.get_by_role("heading", name="Your hand").wait_for()


def test_closing_the_find_page_leaves_the_queue(chromium_browser, daphne_url):
    leaver = make_user("find-leaver")
    page = logged_in_page(chromium_browser, daphne_url, leaver)
    page.goto(f"{daphne_url}/find/")
    page.get_by_role("button", name="Find a game").click()
    page.wait_for_url(re.compile(r"/find/\d+/$"))
    page.wait_for_function("() => document.body.dataset.siteSocket === 'open'")
    search = Search.objects.get(user=leaver)
    page.wait_for_timeout(1000)  # a heartbeat has named the search
    page.context.close()
    # The socket's close leaves the grace for a reload; then the search is not matched.
    wait_until(
        lambda: not Search.objects.alive(timezone.now()).filter(pk=search.pk).exists(),
        "the closed page's search to lapse",
        timeout_ms=8000,
    )
    matchmaking.sweep()
    assert Search.objects.get(pk=search.pk).status == Search.Status.EXPIRED


def test_the_find_pages_and_the_lobbys_counts_at_desktop_and_phone_widths(
    chromium_browser, daphne_url
):
    looker = make_user("find-looker")
    for i in range(3):
        other = make_user(f"find-other{i}")
        matchmaking.start_search(
            other,
            players=6 if i else 4,
            pace="turn",
            move_seconds=30,
            turn_hours=24,
            rated=False,
            bots_after=None,
        )
    page = logged_in_page(chromium_browser, daphne_url, looker)
    shots = []
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{daphne_url}/find/")
        shots.append(f"find-form-{width}.png")
        page.screenshot(path=str(ARTIFACTS / shots[-1]), full_page=True)
    page.get_by_label("6", exact=True).check()
    page.get_by_label("Turn by turn").check()
    page.get_by_role("button", name="Find a game").click()
    page.wait_for_url(re.compile(r"/find/\d+/$"))
    expect(page.locator("#find-count")).to_have_text("3")
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.reload()
        shots.append(f"find-wait-{width}.png")
        page.screenshot(path=str(ARTIFACTS / shots[-1]), full_page=True)
        page.goto(f"{daphne_url}/")
        expect(page.locator('#looking tr[data-pace="turn"] td').nth(1)).to_have_text("3")
        shots.append(f"lobby-counts-{width}.png")
        page.screenshot(path=str(ARTIFACTS / shots[-1]), full_page=True)
        page.goto(f"{daphne_url}/find/{Search.objects.get(user=looker).pk}/")
    assert all((ARTIFACTS / name).stat().st_size for name in shots)
