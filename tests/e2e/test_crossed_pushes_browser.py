"""Pushes that cross on the way (Chromium, Daphne, Redis): a push that skips numbers is shown
at once and nothing is fetched over HTTP for the skipped ones, since each push is the whole
table; one older than the page, coming after it, changes nothing (static/js/table.js)."""

import pytest
from django.conf import settings

from games import effects, push, store
from games.models import Game
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_table_browser import seq_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="needs REDIS_URL: the test sends to the server's sockets through Redis",
    ),
]

# Before the page's own scripts: the number of every socket message the page takes in
# (table.js announces each one before it handles it, in the same task) and the path of
# every fetch it makes.
WATCH = """
window.__messages = [];
document.addEventListener("table:message", (e) => window.__messages.push(e.detail.seq));
window.__fetched = [];
const pageFetch = window.fetch;
window.fetch = function (url, ...rest) {
  window.__fetched.push(new URL(String(url), location.href).pathname);
  return pageFetch.call(this, url, ...rest);
};
"""


def test_a_push_that_skips_numbers_is_shown_and_asks_for_nothing_over_http(
    daphne_url, chromium_browser
):
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    game = make_started_game([ana, bo], bots=["easy", "easy"])
    page = logged_in_page(chromium_browser, daphne_url, bo)
    page.add_init_script(WATCH)
    page.clock.install()  # runs as the real clock; moved on by hand below
    page.goto(f"{daphne_url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    shown = seq_of(page)
    fetched = []
    page.on(
        "request",
        lambda request: (
            fetched.append(request.url) if request.url.endswith(f"/games/{game.pk}/") else None
        ),
    )

    row = Game.objects.select_related("snapshot").get(pk=game.pk)
    ((group, message),) = [
        (g, m)
        for g, m in effects.seat_pushes(game.pk, game=row, state=store.load_state(row))
        if g == push.seat_group(game.pk, 1)
    ]
    newer = dict(
        message, seq=shown + 3, html=message["html"].replace("Your hand", "Your hand, pushed later")
    )
    older = dict(
        message,
        seq=shown + 1,
        html=message["html"].replace("Your hand", "Your hand, pushed earlier"),
    )
    # Sent as a move's push is (Playwright's own event loop runs in this thread).
    push.deliver(push.layer(), [(group, newer)])
    page.get_by_role("heading", name="Your hand, pushed later").wait_for()
    assert seq_of(page) == shown + 3
    push.deliver(push.layer(), [(group, older)])  # crossed on the way: after the newer one
    page.wait_for_function("s => window.__messages.includes(s)", arg=shown + 1)  # handled
    # Past the 3 s after which the page used to resync: the page's own clock (Playwright's)
    # moved on, every timer it had set for then has run, and a fetch would be counted at once.
    page.clock.run_for(4_000)
    assert seq_of(page) == shown + 3
    assert page.get_by_role("heading", name="Your hand, pushed later").is_visible()
    assert f"/games/{game.pk}/" not in page.evaluate("window.__fetched")
    assert fetched == []
