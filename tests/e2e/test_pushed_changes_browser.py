"""A table built from pushes that carry only what changed (the embedded site's in-process
layer; with Redis every push is whole) is the table a fresh page shows (Chromium, Daphne):
over a whole game no push needed a resync, and at the end every piece of the page (its
version), the discard pile's list and the move log equal a fresh load's."""

import pytest
from django.conf import settings

from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_table_browser import seq_of
from tests.e2e.test_table_fit_browser import play_measuring

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What the page holds: each piece's version, the discard pile's list, the log's events (the
# log's and the live region's own versions say nothing: a push sends them afresh).
HELD = """() => ({
  versions: Object.fromEntries(Array.from(document.querySelectorAll('[data-v][id]'))
    .filter((el) => !['table-log', 'table-announce'].includes(el.id))
    .map((el) => [el.id, el.dataset.v])),
  discard: Array.from(document.querySelectorAll('#discard-cards li'), (li) => li.textContent),
  moves: Array.from(document.querySelectorAll('#table-log li.move[data-seq]'),
    (li) => li.dataset.seq),
  hand: document.getElementById('table-hand').innerText,
  felt: document.getElementById('table-seats').innerText,
})"""


def test_a_whole_game_of_pushes_leaves_the_page_a_reload_shows(daphne_url, chromium_browser):
    ana = make_user("ana")
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=57)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    table_url = f"{daphne_url}/games/{game.pk}/"
    synced = []  # the page's loads and resyncs
    page.on(
        "request", lambda r: synced.append(r) if r.method == "GET" and r.url == table_url else 0
    )
    pushes = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda f: pushes.append(f) if "fragments" in f else 0),
    )
    page.goto(table_url)
    loaded = len(synced)

    seen, made = play_measuring(page, lambda page, when: None, moves=30)

    assert made >= 10 and len(pushes) > 20
    assert len(synced) == loaded, "a push was not whole: the page resynced"
    cut = sum('"keep": {}' not in p for p in pushes)
    if settings.REDIS_URL:
        # Pushes come from several processes there: each carries the whole table.
        assert cut == 0
    else:
        # Most pushes left something out: the page held it already.
        assert cut > len(pushes) / 2
    # Compared with the same table loaded afresh in a second tab, at a position that holds
    # still: the bots move on after Ana's last move, and a load in the middle of that would
    # show a later one; and a push with no new event (the second tab's socket arriving) may
    # land between the two reads. The first tab stays the page the pushes built: one that
    # differs from a fresh load for good differs at every try.
    fresh = page.context.new_page()
    live = "#connection[data-state=live]"
    for _ in range(10):
        fresh.goto(table_url)
        fresh.locator(live).wait_for(state="attached")
        page.locator(live).wait_for(state="attached")
        shown, held = seq_of(page), page.evaluate(HELD)
        if seq_of(fresh) == shown and fresh.evaluate(HELD) == held:
            break
    assert seq_of(fresh) == shown
    assert fresh.evaluate(HELD) == held
    assert held["moves"] and held["discard"]
