"""A form that arrived over the socket can be sent without htmx too: its CSRF token is
filled in by the page (static/js/table.js), since fragments pushed over the socket are
rendered without a request and carry none. Real Daphne, real Chromium."""

import json
import re

import pytest

from games.models import GameEvent
from lobby import services as lobby
from tests.conftest import make_user
from tests.e2e.conftest import logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_pushed_form_sent_without_htmx_passes_the_csrf_check(daphne_url, chromium_browser):
    ana, bo = make_user("ana"), make_user("bo")
    cy, di = make_user("cy"), make_user("di")
    game = lobby.create_table(ana, seed=11)
    for number, user in ((1, bo), (2, cy), (3, di)):
        lobby.take_seat(game.pk, user, number)
    lobby.start_table(game.pk, ana)
    ana_page = logged_in_page(chromium_browser, daphne_url, ana)
    bo_page = logged_in_page(chromium_browser, daphne_url, bo)
    frames = []

    def listen(ws):
        ws.on("framereceived", lambda payload: frames.append(payload))

    bo_page.on("websocket", listen)
    for page in (ana_page, bo_page):
        page.goto(f"{daphne_url}/games/{game.pk}/")
        page.locator("#connection[data-state=live]").wait_for()

    # Ana passes her setup card: Bo's page gets every fragment pushed, his hand form too.
    ana_page.locator("#hand-form .choosable:not([disabled])").first.click()
    ana_page.get_by_role("button", name="Pass card").click()
    bo_page.wait_for_function(
        "() => parseInt(document.getElementById('table-page').dataset.seq) >= 2"
    )
    messages = [json.loads(f) for f in frames if isinstance(f, str)]
    pushed = [
        m["html"]
        for m in messages
        if m.get("type") == "fragments" and 'id="hand-form"' in m["html"]
    ]
    assert pushed, "Bo's page got no pushed hand"
    # What the server pushed has no token (no request to take it from)...
    assert all("csrfmiddlewaretoken" not in f for f in pushed)
    # ...and the page filled one into every form it shows.
    tokens = bo_page.eval_on_selector_all(
        "form[method=post]",
        "fs => fs.map(f => (f.querySelector('input[name=csrfmiddlewaretoken]') || {}).value || '')",
    )
    assert tokens and all(tokens), tokens

    # Bo chooses a card and the form is sent the plain way, past htmx.
    bo_page.locator("#hand-form .choosable:not([disabled])").first.click()
    with bo_page.expect_navigation():  # the page the post answers with, loaded
        bo_page.evaluate("""() => {
            const form = document.getElementById('hand-form');
            const pick = document.createElement('input');
            pick.type = 'hidden'; pick.name = 'pick'; pick.value = '1'; form.appendChild(pick);
            HTMLFormElement.prototype.submit.call(form);
        }""")
    bo_page.locator("#table-page").wait_for()
    body = bo_page.content()
    assert "CSRF verification failed" not in body
    assert re.search(r"/games/\d+/$", bo_page.url)
    assert GameEvent.objects.filter(game=game, seat=1, kind="pass").exists()
