"""A page reload, a second tab and a tab opened later all show the same table: the same
event number, hand, seats, status and move log, whether a tab got there by live pushes, by
its first rendering or by a reload. A real Chromium on a real Daphne (production settings).
"""

import pytest

from games import store
from games.models import Game
from tests.conftest import make_started_game, make_user, play_one
from tests.e2e.faults.conftest import page_for

pytestmark = [pytest.mark.postgres, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREEN = """() => {
  const text = (el) => el ? el.innerText.replace(/\\s+/g, ' ').trim() : null;
  return {
    seq: document.getElementById('table-page').dataset.seq,
    hand: Array.from(document.querySelectorAll('#hand-form .hand-card'),
                     (b) => b.querySelector('.visually-hidden').textContent
                            + (b.disabled ? ' (off)' : '')),
    seats: Array.from(document.querySelectorAll('#table-seats .plate'), text),
    turn: text(document.querySelector('#table-status .turn-line')).replace(/Time left.*/, ''),
    scores: text(document.querySelector('#table-status .scores')),
    log: Array.from(document.querySelectorAll('#table-log li'), text),
    mode: document.getElementById('hand-form') && document.getElementById('hand-form').dataset.mode,
  };
}"""


def screen(page):
    return page.evaluate(SCREEN)


def at_seq(page, seq):
    page.wait_for_function(
        "s => document.getElementById('table-page').dataset.seq === String(s)", arg=seq
    )


def test_a_reload_a_second_tab_and_a_new_tab_show_the_same_table(stack, chromium_browser):
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    url = stack.daphne()
    game = make_started_game(people, pace=Game.Pace.TURN_BASED, turn_hours=24)
    first = page_for(chromium_browser, url, people[0])
    second = page_for(chromium_browser, url, people[0], context=first.context)  # same session
    for tab in (first, second):
        tab.goto(f"{url}/games/{game.pk}/")
        tab.locator("#connection[data-state=live]").wait_for()
        tab.evaluate("window.__notReloaded = true")
    assert screen(first) == screen(second)

    # Ana chooses in the first tab: the second follows live.
    first.locator("#hand-form .choosable:not([disabled])").first.click()
    first.get_by_role("button", name="Pass card").click()
    at_seq(second, 2)
    at_seq(first, 2)
    assert screen(first) == screen(second)
    assert not screen(second)["mode"]  # no second choice offered in the other tab

    # The others choose and play on (through apply_decision here; pushed over Redis).
    for _ in range(8):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        play_one(game)
    game.refresh_from_db()
    for tab in (first, second):
        at_seq(tab, game.last_seq)
    live = screen(second)
    assert live == screen(first)
    assert live["log"] and len(live["seats"]) == 4 and live["turn"]
    assert second.evaluate("window.__notReloaded") and first.evaluate("window.__notReloaded")
    # What the tabs show is the seat's own view of the stored game.
    state = store.load_state(game)
    assert len(live["hand"]) == len(state.view(0)["hand"])

    # A reload, and a tab opened now, show exactly what the live tab shows.
    second.reload()
    second.locator("#connection[data-state=live]").wait_for()
    assert second.evaluate("window.__notReloaded") is None
    assert screen(second) == live
    third = page_for(chromium_browser, url, people[0], context=first.context)
    third.goto(f"{url}/games/{game.pk}/")
    third.locator("#connection[data-state=live]").wait_for()
    assert screen(third) == live

    # And all three go on together.
    game.refresh_from_db()
    if game.status == Game.Status.ACTIVE:
        play_one(game)
        game.refresh_from_db()
        for tab in (first, second, third):
            at_seq(tab, game.last_seq)
        assert screen(first) == screen(second) == screen(third)
