"""In Chromium against a real Daphne: the header's count and the My games list follow the
player's games without a reload (the site socket, /ws/me/), and the opt-in notification
shows once, in one tab, when a game starts waiting on them (docs/my-games.md).

Screenshots of the page, the home page's panel and the header go to test-artifacts/.
"""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from games import tasks
from games.models import Game
from lobby import services as lobby
from tests.browser_support import PATIENCE_MS, wait_until
from tests.conftest import make_started_game, make_table, make_user, play_one
from tests.e2e.conftest import ARTIFACTS, logged_in_page
from tests.e2e.test_table_browser import act_once, seq_of, wait_past, waits_on_a_person

pytestmark = [pytest.mark.browser]

# Records what the page asks of the Notification API instead of showing it: a headless
# browser shows nothing, and the test needs to see each notification's title.
FAKE_NOTIFICATIONS = """
(() => {
  const shown = [];
  window.__notes = shown;
  class FakeNotification {
    constructor(title, options) { shown.push({ title, ...(options || {}) }); }
    addEventListener() {}
    close() {}
  }
  // Granted once for the whole browser, as a real permission is: every tab sees it.
  Object.defineProperty(FakeNotification, "permission", {
    get: () => localStorage.getItem("fake-permission") || "default" });
  FakeNotification.requestPermission = () => {
    localStorage.setItem("fake-permission", "granted");
    return Promise.resolve("granted");
  };
  window.Notification = FakeNotification;
})();
"""


def count_of(page):
    badge = page.locator("#waiting-count")
    return 0 if badge.get_attribute("hidden") is not None else int(badge.inner_text())


def wait_count(page, n):
    page.wait_for_function(
        "n => { const b = document.getElementById('waiting-count');"
        " return (b.hidden ? 0 : parseInt(b.textContent, 10)) === n; }",
        arg=n,
    )


def socket_open(page):
    page.wait_for_function("() => document.body.dataset.siteSocket === 'open'")


def table_ready(host, guest, pace=Game.Pace.TURN_BASED):
    """An open table of `host` and `guest` and two bots, full, not started."""
    table = make_table(host, players=4, pace=pace, seed=77)
    lobby.take_seat(table.pk, guest, 1)
    for number in (2, 3):
        lobby.add_bot(table.pk, host, number, "easy")
    return table


def test_the_count_and_the_list_follow_the_game_without_a_reload(daphne_url, chromium_browser):
    ana, bo = make_user("mg-ana", display_name="Ana"), make_user("mg-bo", display_name="Bo")
    table = table_ready(bo, ana)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{daphne_url}/games/mine/")
    socket_open(page)
    assert count_of(page) == 0
    assert page.get_by_text("You are not playing any game right now.").is_visible()
    page.screenshot(path=str(ARTIFACTS / "my-games-empty-1280.png"), full_page=True)
    page.evaluate("() => { window.__notReloaded = true; }")

    # Bo starts the table from the lobby, in his own browser.
    host = logged_in_page(chromium_browser, daphne_url, bo)
    host.goto(f"{daphne_url}/tables/{table.pk}/")
    host.get_by_role("button", name="Start").click()
    host.wait_for_url(f"{daphne_url}/games/{table.pk}/")

    # The setup pass waits on everyone: Ana's header and list say so.
    wait_count(page, 1)
    assert page.locator("#my-games-link").inner_text().startswith("My games")
    assert page.locator("#waiting-label").inner_text() == ": 1 game waiting on you"
    row = page.locator(f'.game-row[data-game="{table.pk}"]')
    row.wait_for()
    assert "Your move" in row.inner_text() and "Waiting for you" in row.inner_text()
    page.screenshot(path=str(ARTIFACTS / "my-games-1280.png"), full_page=True)
    page.locator(".site-header").screenshot(path=str(ARTIFACTS / "header-badge-1280.png"))

    # Ana passes her card in another tab: the game now waits on Bo alone.
    tab = page.context.new_page()
    tab.goto(f"{daphne_url}/games/{table.pk}/")
    tab.locator("#hand-form").wait_for()
    assert act_once(tab)
    wait_count(page, 0)
    page.locator(f'.game-row[data-game="{table.pk}"]:not(.yours)').wait_for()
    assert "Waiting for Bo" in row.inner_text()
    assert page.evaluate("() => window.__notReloaded === true")
    tab.close()

    # Bo passes too; the bots have chosen already, so the pass is made and play begins. The
    # count follows whoever the game now waits on, bots' moves included: they are made
    # within Bo's request, so once his page shows it they are all stored.
    seq = seq_of(host)
    assert act_once(host)
    wait_past(host, seq)
    game = Game.objects.get(pk=table.pk)
    people = {game.seats.get(user=ana).number, game.seats.get(user=bo).number}
    wait_until(lambda: waits_on_a_person(game, people), "the bots to answer")
    expected = 1 if game.seats.get(user=ana).number in game.waiting_on else 0
    wait_count(page, expected)
    assert page.evaluate("() => window.__notReloaded === true")

    # Phones: the page, the header and the home page's panel.
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "my-games-390.png"), full_page=True)
    page.goto(f"{daphne_url}/")
    page.locator("#my-games-panel").wait_for()
    page.screenshot(path=str(ARTIFACTS / "home-panel-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(ARTIFACTS / "home-panel-1280.png"), full_page=True)
    empty = logged_in_page(chromium_browser, daphne_url, make_user("mg-nobody"))
    empty.set_viewport_size({"width": 390, "height": 844})
    empty.goto(f"{daphne_url}/games/mine/")
    empty.screenshot(path=str(ARTIFACTS / "my-games-empty-390.png"), full_page=True)


@pytest.mark.skipif(
    not settings.REDIS_URL,
    reason=(
        "needs REDIS_URL: the moves are made one at a time in this test process, as a worker makes "
        "them, and reach the server's sockets only through Redis"
    ),
)
def test_a_bots_move_in_a_game_the_player_is_not_looking_at_changes_the_count_and_the_list(
    daphne_url, chromium_browser
):
    """Ana watches My games while her game against three bots moves on (turn by turn): her
    own moves are made here, the bots' by the bots' own task, one at a time; after each the
    header and her row say whether the game waits on her, as the database does."""
    ana = make_user("mb-ana", display_name="Ana")
    game = make_started_game([ana], pace=Game.Pace.TURN_BASED, seed=79, bots=["easy"])
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/games/mine/")
    socket_open(page)
    page.evaluate("() => { window.__notReloaded = true; }")
    row = page.locator(f'.game-row[data-game="{game.pk}"]')
    flips = 0  # bot moves after which the game waits on Ana again
    for _ in range(60):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or flips >= 2:
            break
        yours_before = 0 in game.waiting_on
        if yours_before:
            play_one(game)
        else:
            bot = game.waiting_on[0]
            tasks.play_bot(game.pk, bot, game.last_seq)
        game.refresh_from_db()
        yours = 0 in game.waiting_on
        wait_count(page, 1 if yours else 0)
        # The list follows too: its row is marked "Your move" exactly while it waits on her.
        marked = ".yours" if yours else ":not(.yours)"
        page.locator(f'.game-row[data-game="{game.pk}"]{marked}').wait_for()
        if yours and not yours_before:
            flips += 1
            assert "Waiting for you" in row.inner_text()
    assert flips >= 2, "no bot move handed the game back to Ana"
    assert page.evaluate("() => window.__notReloaded === true")


# Keeps the list's refreshes the page sends from now on until each has ended (answered,
# failed or given up): htmx announces both on the page.
WATCH_REFRESHES = """() => {
  window.__refreshing = new Set();
  document.addEventListener("htmx:beforeRequest", (e) => {
    window.__refreshing.add(e.detail.xhr);
  });
  document.addEventListener("htmx:afterRequest", (e) => {
    window.__refreshing.delete(e.detail.xhr);
  });
}"""


def test_a_change_during_a_slow_refresh_is_not_lost(daphne_url, chromium_browser):
    """A refresh of the list already on its way (the minute's poll, or the previous change's)
    must not swallow the next change: its answer may be older than the change. Here the
    first refresh is held in the network until the game has stopped waiting on Ana; the list
    must still end up saying so.

    Ana makes the change in another tab, through the server, as she would. Bo has not chosen
    his setup card, so the game then waits on him whatever the bots do."""
    ana, bo = make_user("mb-slow", display_name="Ana"), make_user("mb-slow-bo", display_name="Bo")
    game = make_started_game([ana, bo], pace=Game.Pace.TURN_BASED, seed=83, bots=["easy"])
    assert 0 in game.waiting_on  # the setup pass waits on everyone
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/games/mine/")
    socket_open(page)
    page.locator(f'.game-row.yours[data-game="{game.pk}"]').wait_for()
    tab = page.context.new_page()
    tab.goto(f"{daphne_url}/games/{game.pk}/")
    tab.locator("#hand-form[data-mode=pick]").wait_for()
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
            return
        held.append((route, route.fetch()))  # answered now, delivered later

    page.evaluate(WATCH_REFRESHES)
    page.route("**/games/mine/", hold_the_first)
    page.evaluate("() => document.body.dispatchEvent(new CustomEvent('waiting-changed'))")
    # The first refresh is held. Waited for here, not told by the handler through the page:
    # a handler that evaluates in the page while the test waits on that page can stall
    # both under load. Playwright runs route handlers only inside its own calls, hence
    # wait_for_timeout rather than a sleep.
    for _ in range(PATIENCE_MS // 50):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the first refresh never left the page"
    seq = seq_of(tab)
    assert act_once(tab)  # Ana's setup card: the game no longer waits on her
    wait_past(tab, seq)
    wait_count(page, 0)
    route, stale = held[0]
    try:
        route.fulfill(response=stale)
    except Exception:  # the page gave up on that request: what a later one answers stands
        pass
    page.locator(f'.game-row[data-game="{game.pk}"]:not(.yours)').wait_for()
    # Every refresh the page sent has ended, the held one too: a stale answer applied late
    # would have flipped the row back by now.
    page.wait_for_function("() => window.__refreshing.size === 0")
    assert page.locator(f'.game-row.yours[data-game="{game.pk}"]').count() == 0


def test_the_home_panel_refreshes_itself_when_a_game_starts(daphne_url, chromium_browser):
    ana, bo = make_user("hp-ana", display_name="Ana"), make_user("hp-bo", display_name="Bo")
    table = table_ready(bo, ana)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/")
    socket_open(page)
    assert page.locator("#my-games-panel .game-row").count() == 0
    host = logged_in_page(chromium_browser, daphne_url, bo)
    host.goto(f"{daphne_url}/tables/{table.pk}/")
    host.get_by_role("button", name="Start").click()
    page.locator(f'#my-games-panel .game-row[data-game="{table.pk}"]').wait_for()
    wait_count(page, 1)


def test_one_tab_notifies_once_when_a_game_starts_waiting(daphne_url, chromium_browser):
    ana, bo = make_user("nt-ana", display_name="Ana"), make_user("nt-bo", display_name="Bo")
    running = make_started_game([ana], seed=78, pace=Game.Pace.TURN_BASED)
    table = table_ready(bo, ana)
    first = logged_in_page(chromium_browser, daphne_url, ana)
    first.context.add_init_script(FAKE_NOTIFICATIONS)
    first.clock.install()  # both tabs' clock: runs as the real one until moved on below
    first.goto(f"{daphne_url}/games/mine/")
    button = first.get_by_role("button", name="Notify me in this browser when it is my turn")
    assert button.get_attribute("aria-pressed") == "false"
    assert first.locator("#notify-state").inner_text() == "Off"
    button.click()
    first.wait_for_function(
        "() => document.getElementById('notify-state').textContent === 'On in this browser'"
    )
    assert button.get_attribute("aria-pressed") == "true"
    second = first.context.new_page()
    second.goto(f"{daphne_url}/games/mine/")
    socket_open(first)
    socket_open(second)
    assert count_of(first) == 1  # the running game's setup pass

    host = logged_in_page(chromium_browser, daphne_url, bo)
    host.goto(f"{daphne_url}/tables/{table.pk}/")
    host.get_by_role("button", name="Start").click()
    wait_count(first, 2)
    wait_count(second, 2)
    # Each tab set its grace timer as it counted the new game. Past the grace (the tabs'
    # clock moved on: their timers run) each tab's claim is asked for under the tabs' shared
    # lock; a request for that lock made after it, in each tab, is granted once both claims
    # are settled, and the notification shown, if any.
    first.clock.run_for(1_000)
    for tab in (first, second):
        tab.evaluate("() => navigator.locks.request('wct-notify', () => true)")
    notes = first.evaluate("() => window.__notes") + second.evaluate("() => window.__notes")
    assert [n["title"] for n in notes] == [f"Your turn at table {table.pk}"]
    assert notes[0]["tag"] == f"wct-game-{table.pk}"
    assert "turn by turn" in notes[0]["body"]
    assert running.pk not in [int(n["tag"].rsplit("-", 1)[1]) for n in notes]

    # Turned off, it says so and stays off after a reload.
    button.click()
    expect(first.locator("#notify-state")).to_have_text("Off")
    first.reload()
    expect(first.locator("#notify-toggle")).to_have_attribute("aria-pressed", "false")
