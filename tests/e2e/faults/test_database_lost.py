"""The database connection lost in the middle of a move: the player is told clearly, nothing
of the move is stored, and the same move sent again (same idempotency key) counts once.

The loss is real: a Daphne started with the fault point `decision.written:person`
(tests/faults/points.py) has PostgreSQL end its own connection (pg_terminate_backend) once
the move's event, snapshot and columns are written and before they are committed.
"""

import asyncio
import json

import pytest
import websockets

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.e2e.faults.conftest import page_for
from tests.faults.support import session_cookie, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _four_people():
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = make_started_game(people, pace=Game.Pace.TURN_BASED, turn_hours=24)
    return people, game


def _stored(game):
    """Everything a half-applied move could have touched."""
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    return (
        game.last_seq,
        game.waiting_on,
        game.clocks,
        game.snapshot.seq,
        game.snapshot.state,
        list(GameEvent.objects.filter(game=game).values_list("seq", flat=True)),
    )


async def _talk(url, cookie, messages):
    """Opens the table's socket as the page does, sends each message, returns the replies."""
    ws_url = url.replace("http://", "ws://") + messages[0]
    replies = []
    async with websockets.connect(
        ws_url, additional_headers={"Cookie": f"sessionid={cookie}", "Origin": url}
    ) as socket:
        hello = json.loads(await asyncio.wait_for(socket.recv(), 10))
        replies.append(hello)
        for message in messages[1:]:
            await socket.send(json.dumps(message))
            while True:
                reply = json.loads(await asyncio.wait_for(socket.recv(), 10))
                if reply["type"] in ("ok", "error"):
                    replies.append(reply)
                    break
    return replies


def test_a_socket_move_whose_database_connection_dies_is_refused_clearly_and_stores_nothing(stack):
    (ana, *_), game = _four_people()
    fault = stack.fault("decision.written:person", action="disconnect")
    url = stack.daphne(fault=fault)
    card = store.load_state(game).legal_actions(0)[0]["card"]
    move = {"type": "act", "action": {"type": "pass", "card": card}, "key": "first-try"}
    before = _stored(game)

    hello, refused = asyncio.run(_talk(url, session_cookie(ana), [f"/ws/games/{game.pk}/", move]))

    assert hello["type"] == "hello" and hello["seat"] == 0
    assert not fault.arm.exists()  # the connection really was cut
    assert refused == {"type": "error", "key": "first-try", "message": decisions.NOT_SAVED}
    assert _stored(game) == before  # no event, no snapshot, no column changed

    # The player sends the same move again (same key), twice: it is applied once.
    _, first, again = asyncio.run(
        _talk(url, session_cookie(ana), [f"/ws/games/{game.pk}/", move, move])
    )
    assert first == {"type": "ok", "seq": 2, "key": "first-try", "replayed": False}
    assert again == {"type": "ok", "seq": 2, "key": "first-try", "replayed": True}
    (event,) = GameEvent.objects.filter(game=game, seq__gt=1)
    assert (event.seat, event.action, event.idempotency_key) == (
        0,
        {"type": "pass", "card": card},
        f"u{ana.pk}-first-try",
    )
    game.refresh_from_db()
    assert store.replay(game).to_dict() == game.snapshot.state
    assert "Traceback" not in stack.log("daphne").split("decision not saved")[-1]


@pytest.mark.browser
def test_a_clicked_move_whose_database_connection_dies_shows_an_error_and_can_be_made_again(
    stack, chromium_browser
):
    (ana, *_), game = _four_people()
    fault = stack.fault("decision.written:person", action="disconnect")
    url = stack.daphne(fault=fault)
    page = page_for(chromium_browser, url, ana)
    page.goto(f"{url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    before = _stored(game)

    page.locator("#hand-form .choosable:not([disabled])").first.click()
    page.get_by_role("button", name="Pass card").click()

    page.locator("#table-status [role=alert]", has_text=decisions.NOT_SAVED).wait_for()
    assert not fault.arm.exists()
    assert _stored(game) == before
    # The page still offers the same choice, the card still chosen; sent again, it goes through.
    assert page.locator("#hand-form .choosable[aria-pressed=true]").count() == 1
    page.get_by_role("button", name="Pass card").click()
    wait_until(lambda: GameEvent.objects.filter(game=game, seat=0).exists(), 60, "the move")
    page.get_by_text("You chose").first.wait_for()
    assert page.locator("#table-status [role=alert]").count() == 0
    assert GameEvent.objects.filter(game=game).count() == 2
    assert page.locator("#table-page").get_attribute("data-seq") == "2"
