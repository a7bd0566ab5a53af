"""In Chromium: the tab says when the game waits for the reader, and the discard pile's list
stays open across the pushes of other players' moves."""

import pytest

from games.models import Game
from tests.browser_support import wait_until
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_table_browser import act_once, seq_of, wait_past, waits_on_a_person

pytestmark = [pytest.mark.browser]


def test_the_tab_shows_your_turn_and_the_discard_list_stays_open(daphne_url, chromium_browser):
    player = make_user("tabby")
    game = make_started_game([player], players=4, seed=41)
    page = logged_in_page(chromium_browser, daphne_url, player)
    page.goto(f"{daphne_url}/games/{game.pk}/")
    # The setup pass waits for everyone, this reader included.
    page.wait_for_function("() => document.title.startsWith('Your turn')")
    assert page.locator('link[rel="icon"]').get_attribute("href").endswith("favicon-turn.svg")

    page.locator("#discard-list summary").click()
    assert page.locator("#discard-list").evaluate("d => d.open")
    seq = seq_of(page)
    assert act_once(page)  # the pass: the bots answer, and their moves are pushed
    wait_past(page, seq)
    # Every answer stored and shown: the list stayed open through each of their pushes.
    wait_until(lambda: waits_on_a_person(game, {0}), "the bots to answer")
    wait_past(page, game.last_seq - 1)
    assert page.locator("#discard-list").evaluate("d => d.open")
    # Once the game waits for others, the tab says nothing.
    page.wait_for_function(
        "() => !!document.querySelector('#table-status .your-turn')"
        " === document.title.startsWith('Your turn')"
    )


def test_play_again_opens_a_new_table_with_the_same_bots(daphne_url, chromium_browser):
    player = make_user("again")
    game = make_started_game([player], players=4, seed=42, bots=["hard", "easy", "normal"])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    page = logged_in_page(chromium_browser, daphne_url, player)
    page.goto(f"{daphne_url}/games/{game.pk}/")
    page.get_by_role("button", name="Play again").click()
    page.wait_for_url(f"{daphne_url}/tables/*/")
    new = Game.objects.get(rematch_of=game)
    assert page.url.endswith(f"/tables/{new.pk}/")
    assert [s.bot_level for s in new.seats.order_by("number")] == ["", "hard", "easy", "normal"]
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(f"{daphne_url}/games/{new.pk}/")
