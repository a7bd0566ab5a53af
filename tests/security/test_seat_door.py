"""One rule for a seat (games.actions.access): a reader let in for a seat never reads it once
it has changed hands, whichever of the four ways it came in by.

The attacks are the ones an audit reproduced against the Bot API's stream: a bot account's
program opens its stream while the table is still open, then loses the seat (the host
removes it, it moves itself to another seat, or it hops in and out of empty seats), a
person sits down there, the game is dealt, and the program is sent that person's hand.
Each stream and socket here is real (the site's ASGI stack with a real token or a real
log-in's session), and everything each one receives is scanned for card codes.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts import bot_tokens
from config.asgi import application
from games import store
from games.bot_stream import CLOSE_SEAT_LOST
from games.consumers import CLOSE_SEAT_LOST as SOCKET_SEAT_LOST
from games.models import Game
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.presenters.test_table_secrecy import codes_in

pytestmark = pytest.mark.django_db(transaction=True)


def make_bot(username):
    user = make_user(username, display_name=username.title())
    user = bot_tokens.make_bot_account(user)
    return user, bot_tokens.issue(user, "laptop")[1]


def stream(game_id, raw):
    return WebsocketCommunicator(
        application,
        f"/api/bot/games/{game_id}/stream",
        headers=[(b"origin", b"http://testserver"), (b"authorization", f"Bearer {raw}".encode())],
    )


def table_socket(game_id, user):
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    return WebsocketCommunicator(
        application,
        f"/ws/games/{game_id}/",
        headers=[(b"origin", b"http://testserver"), (b"cookie", cookie.encode())],
    )


async def drain(comm, timeout=1.0):
    """Everything the socket sends until it closes or falls silent: (messages, close code).
    Silence ends the socket's consumer too (the test communicator cancels it on a
    time-out), so a drained socket needs no disconnect."""
    messages = []
    while True:
        try:
            output = await comm.receive_output(timeout=timeout)
        except TimeoutError:
            return messages, None
        if output["type"] == "websocket.close":
            return messages, output["code"]
        messages.append(output.get("text", ""))


def hand_codes(game, seat):
    state = store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))
    return codes_in(state.view(seat)["hand"])


def deal(game, host, bot_seats):
    for number in bot_seats:
        lobby.add_bot(game.pk, host, number, "easy")
    lobby.start_table(game.pk, host)


def _codes(text):
    """The card codes anywhere in a JSON message (a state's view, a socket's fragments)."""
    try:
        return codes_in(json.loads(text))
    except ValueError:
        return set()


def leaked(messages, forbidden):
    return sorted(set().union(set(), *(_codes(text) for text in messages)) & forbidden)


@pytest.fixture
def open_table(ana):
    return lobby.create_table(ana, players=4, bot_accounts=True, seed=4101)


def test_a_bot_the_host_removed_is_sent_nothing_of_the_person_who_takes_its_seat(
    open_table, ana, bo
):
    """The host removes the bot from seat 1 while its stream listens there; Bo sits down and
    the game is dealt: the stream closes as "seat lost" and carries none of Bo's cards."""
    robo, raw = make_bot("robo")
    lobby.take_seat(open_table.pk, robo, 1)

    async def scenario():
        comm = stream(open_table.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_json_from(timeout=5)
        assert first["type"] == "state" and first["view"] is None  # nothing dealt yet
        await database_sync_to_async(lobby.remove_from_seat)(open_table.pk, ana, 1)
        await database_sync_to_async(lobby.take_seat)(open_table.pk, bo, 1)
        await database_sync_to_async(deal)(open_table, ana, [2, 3])
        messages, code = await drain(comm)
        return messages, code

    messages, code = async_to_sync(scenario)()
    assert not leaked(messages, hand_codes(open_table, 1))
    assert code == CLOSE_SEAT_LOST
    assert not [m for m in messages if '"type": "state"' in m]


def test_a_bot_that_moves_to_another_seat_no_longer_reads_the_one_it_left(open_table, ana, bo):
    """The bot listens at seat 1, moves itself to seat 3, and Bo takes seat 1: the stream
    opened for seat 1 closes, and neither it nor a stream opened for seat 3 gets Bo's hand."""
    robo, raw = make_bot("robo")
    lobby.take_seat(open_table.pk, robo, 1)

    async def scenario():
        old = stream(open_table.pk, raw)
        connected, _ = await old.connect()
        assert connected
        assert (await old.receive_json_from(timeout=5))["seat"] == 1
        await database_sync_to_async(lobby.take_seat)(open_table.pk, robo, 3)
        await database_sync_to_async(lobby.take_seat)(open_table.pk, bo, 1)
        new = stream(open_table.pk, raw)
        connected, _ = await new.connect()
        assert connected
        await database_sync_to_async(deal)(open_table, ana, [2])
        old_messages, old_code = await drain(old)
        new_messages, new_code = await drain(new)
        return old_messages, old_code, new_messages

    old_messages, old_code, new_messages = async_to_sync(scenario)()
    bo_hand = hand_codes(open_table, 1)
    assert not leaked(old_messages + new_messages, bo_hand)
    assert old_code == CLOSE_SEAT_LOST
    # It plays its new seat: the new stream was sent seat 3's own dealt state.
    assert any('"seat": 3' in m and '"view": {' in m for m in new_messages)


def test_a_bot_hopping_through_an_empty_seat_gets_nothing_of_who_sits_down_there(
    open_table, ana, bo
):
    """The bot takes the empty seat 2, opens its stream, leaves; Bo sits there and the game
    is dealt: nothing of Bo's hand reaches the stream the bot left listening."""
    robo, raw = make_bot("robo")
    lobby.take_seat(open_table.pk, robo, 2)

    async def scenario():
        comm = stream(open_table.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_json_from(timeout=5)
        await database_sync_to_async(lobby.leave_table)(open_table.pk, robo)
        await database_sync_to_async(lobby.take_seat)(open_table.pk, bo, 2)
        await database_sync_to_async(deal)(open_table, ana, [1, 3])
        messages, code = await drain(comm)
        return messages, code

    messages, code = async_to_sync(scenario)()
    assert not leaked(messages, hand_codes(open_table, 2))
    assert code == CLOSE_SEAT_LOST


def test_the_lobby_closes_a_stream_as_soon_as_its_seat_changes_hands(open_table, ana):
    """No deal needed: the host's removal alone tells the stream of that seat to check again,
    and it closes at once instead of at its next periodic check."""
    robo, raw = make_bot("robo")
    lobby.take_seat(open_table.pk, robo, 1)

    async def scenario():
        comm = stream(open_table.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_json_from(timeout=5)
        await database_sync_to_async(lobby.remove_from_seat)(open_table.pk, ana, 1)
        said = await comm.receive_json_from(timeout=3)
        message = await comm.receive_output(timeout=3)
        await comm.disconnect()
        return said, message

    said, message = async_to_sync(scenario)()
    # It says why, in a frame and in the close's reason.
    assert said == {"type": "closing", "code": CLOSE_SEAT_LOST, "reason": said["reason"]}
    assert "no longer" in said["reason"]
    assert message == {"type": "websocket.close", "code": CLOSE_SEAT_LOST, "reason": said["reason"]}


def test_a_persons_table_socket_from_a_seat_they_left_gets_nothing_of_its_next_holder(
    open_table, ana, bo, cy
):
    """The table socket accepts an open table's seat holder, as the stream does: Bo listens
    at seat 1, moves to seat 3, Cy takes seat 1 and the game is dealt. Bo's socket for seat 1
    closes as "seat lost" and carries none of Cy's cards."""
    lobby.take_seat(open_table.pk, bo, 1)
    comm = table_socket(open_table.pk, bo)

    async def scenario():
        connected, _ = await comm.connect()
        assert connected
        assert (await comm.receive_json_from(timeout=5))["seat"] == 1
        await database_sync_to_async(lobby.take_seat)(open_table.pk, bo, 3)
        await database_sync_to_async(lobby.take_seat)(open_table.pk, cy, 1)
        await database_sync_to_async(deal)(open_table, ana, [2])
        messages, code = await drain(comm)
        return messages, code

    messages, code = async_to_sync(scenario)()
    assert not [m for m in messages if '"fragments"' in m]
    assert code == SOCKET_SEAT_LOST


def test_the_http_route_reads_only_a_seat_the_bot_holds_now(open_table, ana, bo):
    """GET /api/bot/games/<id> after the host removed the bot and Bo took the dealt seat:
    404, and nothing of Bo's hand."""
    robo, raw = make_bot("robo")
    lobby.take_seat(open_table.pk, robo, 1)
    client = Client()
    headers = {"Authorization": f"Bearer {raw}"}
    assert client.get(f"/api/bot/games/{open_table.pk}", headers=headers).status_code == 200
    lobby.remove_from_seat(open_table.pk, ana, 1)
    lobby.take_seat(open_table.pk, bo, 1)
    deal(open_table, ana, [2, 3])
    response = client.get(f"/api/bot/games/{open_table.pk}", headers=headers)
    assert response.status_code == 404
    assert not _codes(response.content.decode()) & hand_codes(open_table, 1)


def test_an_open_tables_page_sends_its_seated_player_to_the_lobby_and_others_away(
    open_table, ana, ed
):
    """Nothing is dealt at an open table: its seat holder is sent to its lobby page, where
    seats are taken; an outsider is refused."""
    client = Client()
    client.force_login(ana)
    response = client.get(f"/games/{open_table.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{open_table.pk}/"
    client.force_login(ed)
    assert client.get(f"/games/{open_table.pk}/").status_code == 403
