"""In a real Chromium: open a finished game's replay and step through it with the buttons,
the keys, the slider, the browser's own back button and the automatic play."""

import re
from types import SimpleNamespace

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.conftest import make_user
from tests.e2e.replay_fixtures import replay_page_fixture  # noqa: F401 (registers replay_page)
from tests.games.history.helpers import make_finished_game, rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Before the page's own scripts: counts the fetches the page makes (static/js/replay.js
# fetches each step it shows) and keeps the address of the last one.
COUNT_FETCHES = """
window.__fetches = 0;
const pageFetch = window.fetch;
window.fetch = function (url, ...rest) {
  window.__fetches += 1;
  window.__lastFetched = String(url);
  return pageFetch.call(this, url, ...rest);
};
"""
# The frame shows the step the page fetched last: no step is on its way.
SETTLED = """() => !window.__lastFetched || Number(new URL(window.__lastFetched).searchParams
  .get("step")) === Number(document.getElementById("replay").dataset.step)"""


def still_after_its_timers_run(page, ms):
    """Once no step is on its way: the step shown, then the page's own clock (Playwright's)
    moved on by `ms`, which runs every timer the page set for that time. A step that came
    after would have been fetched, and counted, at once. Returns the step shown."""
    page.wait_for_function(SETTLED)
    step, fetches = (
        page.locator("#replay").get_attribute("data-step"),
        page.evaluate("window.__fetches"),
    )
    page.clock.run_for(ms)
    assert page.evaluate("window.__fetches") == fetches
    assert page.locator("#replay").get_attribute("data-step") == step
    return step


@pytest.fixture
def site_server(daphne_url):
    """The site under Daphne, not pytest-django's WSGI live_server: every page of a logged-in
    user opens the site socket, which a server without websockets answers 404 (a console
    error the tests below rightly count)."""
    return SimpleNamespace(url=daphne_url)


def open_replay(page, site_server):
    """Ana's finished game, its replay opened in `page` logged in as Ana; its step count."""
    users = [make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di")]
    game = make_finished_game(users)
    client = Client()
    client.force_login(users[0])
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": site_server.url}]
    )
    page.goto(f"{site_server.url}/games/{game.pk}/replay/")
    return game, len(rows(game))


def watch_errors(page):
    errors = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_a_player_steps_through_a_finished_game_with_buttons_and_keys(replay_page, site_server):
    page = replay_page
    errors = watch_errors(page)
    game, total = open_replay(page, site_server)

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
    expect(page.locator(".replay-hand .card .face").first).to_be_visible()
    assert errors == []


def test_stepping_swaps_the_step_in_place_and_every_step_has_its_own_address(
    replay_page, site_server
):
    page = replay_page
    errors = watch_errors(page)
    game, total = open_replay(page, site_server)
    position = page.locator("#replay-position")
    expect(position).to_have_text(f"Step 1 of {total}")
    # A page load would lose this.
    page.evaluate("window.replayMarker = 'still here'")

    page.locator("#replay-next").click()
    expect(position).to_have_text(f"Step 2 of {total}")
    expect(page).to_have_url(re.compile(r"\?step=2$"))
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Step 3 of {total}")
    expect(page).to_have_url(re.compile(r"\?step=3$"))
    expect(page.locator("#replay-permalink")).to_have_attribute("href", re.compile(r"\?step=3$"))
    expect(page.locator("#replay-step")).to_have_value("3")
    expect(page.locator("#replay-felt .plate")).to_have_count(4)

    # The slider jumps to any step.
    page.locator("#replay-step").fill("20")
    expect(position).to_have_text(f"Step 20 of {total}")
    expect(page).to_have_url(re.compile(r"\?step=20$"))
    expect(page.locator("#replay-prev")).to_have_attribute("href", re.compile(r"\?step=19$"))
    # The browser's back button goes back a step, still without a page load.
    page.go_back()
    expect(position).to_have_text(f"Step 3 of {total}")
    assert page.evaluate("window.replayMarker") == "still here"

    # The address opened on its own shows that step.
    page.goto(f"{site_server.url}/games/{game.pk}/replay/?step=20")
    assert page.evaluate("window.replayMarker") is None
    expect(position).to_have_text(f"Step 20 of {total}")
    expect(page.locator("#replay-felt .plate")).to_have_count(4)
    assert errors == []


def test_autoplay_advances_by_itself_pauses_and_stops_at_the_end(replay_page, site_server):
    page = replay_page
    errors = watch_errors(page)
    page.add_init_script(COUNT_FETCHES)
    page.clock.install()  # runs as the real clock; moved on by hand below
    game, total = open_replay(page, site_server)
    position = page.locator("#replay-position")
    play = page.locator("#replay-play")
    expect(play).to_be_visible()

    page.locator("#replay-speed").select_option("4")
    play.click()
    expect(play).to_have_text("Pause")
    # Each step shows for a quarter of a second only: watched on every frame, not polled.
    page.wait_for_function("() => Number(document.getElementById('replay').dataset.step) >= 3")
    play.click()
    expect(play).to_have_text("Play")
    # A step asked for before the pause may still land; after it, nothing more.
    paused_at = still_after_its_timers_run(page, 900)  # more than three steps at 4x
    assert int(paused_at) >= 3

    # Near the end it plays to the last step and stops there by itself.
    page.locator("#replay-step").fill(str(total - 2))
    expect(position).to_have_text(f"Step {total - 2} of {total}")
    play.click()
    expect(position).to_have_text(f"Step {total} of {total}")
    expect(play).to_have_text("Play")
    still_after_its_timers_run(page, 2_000)
    expect(position).to_have_text(f"Step {total} of {total}")
    expect(page).to_have_url(re.compile(rf"\?step={total}$"))
    assert errors == []


def test_the_first_and_last_controls_draw_their_icons(replay_page, site_server):
    page = replay_page
    open_replay(page, site_server)
    page.locator("#replay-next").click()
    expect(page.locator("#replay-position")).to_have_text(re.compile(r"^Step 2 of"))
    for name in ("first", "prev", "next", "last", "play"):
        control = page.locator(f"#replay-{name}")
        box = control.locator("svg").bounding_box()
        assert box and box["width"] > 8 and box["height"] > 8, name
        # The icon's shape itself, not only its box: an unresolved <use> draws nothing.
        drawn = control.locator("use").evaluate(
            "(use) => { const b = use.getBBox(); return [b.width, b.height]; }"
        )
        assert drawn[0] > 0 and drawn[1] > 0, name
        # Besides the icon, only plain letters: nothing a font could lack.
        assert re.fullmatch(r"[A-Za-z ]+", control.inner_text().strip()), name
