"""In Chromium against a real Daphne: a table of four says in plain words whom it waits for
in the setup pass, marks the card received from the partner, and after a concession says
that the team conceded, with the way back to the lobby, and who won."""

import re
import uuid

import pytest
from playwright.sync_api import expect

from games import store
from games.actions import decisions
from games.models import Game
from lobby import services as lobby
from tests.conftest import make_user
from tests.e2e.conftest import logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"wide": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def shots(page, name):
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.screenshot(path=f"/tmp/words-{name}-{size}.png")
    page.set_viewport_size(SIZES["wide"])


def test_the_setup_pass_a_received_card_and_a_concession_in_plain_words(
    daphne_url, chromium_browser
):
    ana = make_user("ana", display_name="Ana")
    bo = make_user("bo", display_name="Bo")
    game = lobby.create_table(ana, seed=11)
    lobby.take_seat(game.pk, bo, 1)
    lobby.add_bot(game.pk, ana, 2, "easy")
    lobby.add_bot(game.pk, ana, 3, "easy")
    lobby.start_table(game.pk, ana)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    expect(page.locator("#table-status .your-turn")).to_have_text(
        "Choose a card to pass to your partner"
    )
    # No jargon in the status bar, no empty watch count.
    expect(page.locator("#table-status .round")).not_to_contain_text("commitment")
    expect(page.locator("#table-status .watchers")).to_be_hidden()

    # Ana picks; Bo has not: the status line says whom the table waits for, and for what.
    page.locator("#hand-form .choosable").first.click()
    page.get_by_role("button", name="Pass card").click()
    expect(page.locator("#waiting-line")).to_have_text("Waiting for Bo to pick a card to pass")
    shots(page, "mid-pass")

    # Bo picks: the pass is done, and the card Ana received is marked in her hand.
    state = store.load_state(Game.objects.get(pk=game.pk))
    bo_card = state.view(1)["hand"][0]
    decisions.apply_decision(
        game.pk, 1, {"type": "pass", "card": bo_card}, "person", idempotency_key=uuid.uuid4().hex
    )
    page.reload()
    page.locator("#connection[data-state=live]").wait_for()
    received = page.locator("#hand-form .hand-card.received")
    expect(received).to_have_count(1)
    expect(received).to_have_attribute("aria-describedby", "received-note")
    expect(page.locator("#received-note")).to_have_text("received from your partner")

    # Ana concedes: at four the game ends, and the page says what happened and who won.
    page.get_by_role("button", name="Concede").click()
    page.get_by_role("button", name="Yes, concede").click()
    note = page.locator("#conceded-note")
    expect(note).to_contain_text("Your team conceded this game.")
    link = note.get_by_role("link", name="Back to the lobby")
    expect(link).to_have_attribute("href", "/")
    expect(page.locator("#result-headline")).to_have_text(
        "Your team conceded this game. Your team lost the game."
    )
    expect(page.locator("#table-status")).to_contain_text("Game over")
    expect(page.locator("#connection")).to_be_hidden()  # no "Live" once the game is over
    shots(page, "end")
    link.click()
    page.wait_for_url(re.compile(r"/$"))
