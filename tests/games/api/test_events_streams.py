"""The account's events followed live: the NDJSON answer of GET /api/bot/events under ASGI
(Django's async client reading the streaming body) and the websocket
/api/bot/events/stream (games.account_stream): what is there first, a new event as it is
committed, resuming with `since`, the account's stream limit, and revocation ending both."""

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient

from accounts import bot_tokens
from games.account_stream import CLOSE_BAD_REQUEST, CLOSE_BAD_TOKEN, CLOSE_TOO_MANY
from games.actions import account_events
from games.models import AccountEvent
from games.routing import websocket_urlpatterns
from lobby import services as lobby
from tests.conftest import make_table
from tests.games.api.conftest import make_bot

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)


@pytest.fixture(autouse=True)
def quick_checks(settings):
    settings.ACCOUNT_EVENTS_HEARTBEAT_SECONDS = 0.5
    settings.BOT_STREAM_RECHECK_SECONDS = 0.5


def bot_with_token(name):
    bot = make_bot(name)
    return bot, bot_tokens.issue(bot, "test")[1]


def invite(host, table, seat, name):
    return lobby.invite_bot(table.pk, host, seat, name)


async def next_line(lines, timeout=5):
    """The next event of an NDJSON body, passing over the blank keep-alive lines."""
    while True:
        chunk = await asyncio.wait_for(anext(lines), timeout)
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.strip():
            return json.loads(text)


async def follow(raw, query="since=0"):
    response = await AsyncClient().get(
        f"/api/bot/events?{query}", headers={"Authorization": f"Bearer {raw}"}
    )
    return response


# --- NDJSON ------------------------------------------------------------------------------


def test_the_ndjson_answer_sends_what_is_there_then_each_new_event_as_it_commits(ana):
    robo, raw = bot_with_token("robo")
    token = robo.api_tokens.get()
    table = make_table(ana)
    invite(ana, table, 1, "robo")

    async def scenario():
        response = await follow(raw)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson"
        lines = aiter(response.streaming_content)
        first = await next_line(lines)
        assert (first["type"], first["seat"]) == ("invitation", 1)
        await database_sync_to_async(lobby.cancel_invitation)(table.pk, ana, 1)
        second = await next_line(lines)
        assert (second["type"], second["reason"]) == ("invitation_closed", "cancelled")
        assert second["id"] > first["id"]
        # Quiet now: blank keep-alive lines only, then revoking the token ends the answer.
        keep_alive = await asyncio.wait_for(anext(lines), 5)
        assert keep_alive in (b"\n", "\n")
        await database_sync_to_async(bot_tokens.revoke)(token)
        rest = []
        async with asyncio.timeout(5):
            async for chunk in lines:
                rest.append(chunk)
        assert all(not (c.decode() if isinstance(c, bytes) else c).strip() for c in rest)

    async_to_sync(scenario)()
    assert bot_tokens.open_streams(robo.pk) == 0  # its slot freed as it ended


def test_resuming_with_since_sends_only_what_came_after(ana):
    robo, raw = bot_with_token("robo")
    for seat in (1, 2):
        invite(ana, make_table(ana), seat, "robo")
    first = AccountEvent.objects.filter(user=robo).order_by("id").first()

    async def scenario():
        response = await follow(raw, f"since={first.pk}")
        lines = aiter(response.streaming_content)
        event = await next_line(lines)
        assert event["seat"] == 2 and event["id"] > first.pk

    async_to_sync(scenario)()


def test_a_second_bot_accounts_answer_never_carries_the_firsts_events(ana):
    robo, _ = bot_with_token("robo")
    rita, rita_raw = bot_with_token("rita")
    table = make_table(ana)
    invite(ana, table, 1, "robo")

    async def scenario():
        response = await follow(rita_raw)
        lines = aiter(response.streaming_content)
        await database_sync_to_async(lambda: invite(ana, make_table(ana), 2, "robo"))()
        await database_sync_to_async(lambda: invite(ana, make_table(ana), 3, "rita"))()
        event = await next_line(lines)
        assert (event["type"], event["seat"]) == ("invitation", 3)

    async_to_sync(scenario)()
    assert AccountEvent.objects.filter(user=robo).count() == 2


def test_an_event_stream_counts_among_the_accounts_streams(ana, settings):
    settings.API_STREAMS_PER_BOT = 1
    robo, raw = bot_with_token("robo")

    async def scenario():
        first = await follow(raw)
        assert first.status_code == 200
        lines = aiter(first.streaming_content)
        await asyncio.wait_for(anext(lines), 5)  # open: its slot is taken
        second = await follow(raw)
        assert second.status_code == 429 and "streams open" in json.loads(second.content)["detail"]
        code, reason = await closed_with(stream(raw))
        assert code == CLOSE_TOO_MANY and "too many streams" in reason

    async_to_sync(scenario)()


# --- the websocket ------------------------------------------------------------------------


def stream(raw=None, query=""):
    headers = [(b"authorization", f"Bearer {raw}".encode())] if raw else []
    path = "/api/bot/events/stream" + (f"?{query}" if query else "")
    return WebsocketCommunicator(application, path, headers=headers)


async def closed_with(comm):
    """(code, reason) of a stream closed at the handshake: accepted, told why in a
    `closing` frame, then closed with the same code and reason."""
    connected, _ = await comm.connect()
    assert connected
    said = await comm.receive_json_from(timeout=5)
    message = await comm.receive_output(timeout=5)
    assert message["type"] == "websocket.close"
    assert (said["type"], said["code"], said["reason"]) == (
        "closing",
        message["code"],
        message["reason"],
    )
    return message["code"], message["reason"]


def test_the_websocket_refuses_a_missing_or_bad_token_and_a_bad_since_with_reasons(ana):
    _, raw = bot_with_token("robo")

    async def scenario():
        for comm in (stream(), stream("wct_not-a-token")):
            code, reason = await closed_with(comm)
            assert code == CLOSE_BAD_TOKEN and "Bearer" in reason
        code, reason = await closed_with(stream(raw, "since=-4"))
        assert code == CLOSE_BAD_REQUEST and "since" in reason

    async_to_sync(scenario)()


def test_the_websocket_sends_what_is_there_then_new_events_and_closes_when_revoked(ana):
    robo, raw = bot_with_token("robo")
    table = make_table(ana)
    invite(ana, table, 1, "robo")
    [old] = AccountEvent.objects.filter(user=robo)
    token = robo.api_tokens.get()

    async def scenario():
        comm = stream(raw, "since=0")
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_json_from(timeout=5)
        assert first == account_events.as_message(old)
        await database_sync_to_async(lobby.cancel_invitation)(table.pk, ana, 1)
        second = await comm.receive_json_from(timeout=5)
        assert (second["type"], second["reason"]) == ("invitation_closed", "cancelled")
        # Nothing twice: the re-checks read again and find nothing newer.
        assert await comm.receive_nothing(timeout=1.2)
        await database_sync_to_async(bot_tokens.revoke)(token)
        said = await comm.receive_json_from(timeout=5)
        closed = await comm.receive_output(timeout=5)
        assert (said["type"], said["code"]) == ("closing", CLOSE_BAD_TOKEN)
        assert (closed["type"], closed["code"]) == ("websocket.close", CLOSE_BAD_TOKEN)

    async_to_sync(scenario)()


def test_the_websocket_without_since_starts_after_the_newest_event(ana):
    robo, raw = bot_with_token("robo")
    invite(ana, make_table(ana), 1, "robo")

    async def scenario():
        comm = stream(raw)
        connected, _ = await comm.connect()
        assert connected
        assert await comm.receive_nothing(timeout=0.3)
        await database_sync_to_async(lambda: invite(ana, make_table(ana), 2, "robo"))()
        event = await comm.receive_json_from(timeout=5)
        assert (event["type"], event["seat"]) == ("invitation", 2)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_lost_push_delays_an_event_until_the_next_recheck_only(ana, monkeypatch):
    """The push is only a wake-up call: with every push lost, the re-check still reads the
    new event from the table."""
    robo, raw = bot_with_token("robo")
    monkeypatch.setattr(account_events, "_wake", lambda user_id: None)

    async def scenario():
        comm = stream(raw, "since=0")
        connected, _ = await comm.connect()
        assert connected
        await database_sync_to_async(lambda: invite(ana, make_table(ana), 1, "robo"))()
        event = await comm.receive_json_from(timeout=5)
        assert event["type"] == "invitation"
        await comm.disconnect()

    async_to_sync(scenario)()


def test_banning_the_account_closes_its_open_event_stream(ana):
    robo, raw = bot_with_token("robo")

    async def scenario():
        comm = stream(raw, "since=0")
        connected, _ = await comm.connect()
        assert connected

        def ban():
            robo.banned_at = robo.date_joined
            robo.save(update_fields=["banned_at"])

        await database_sync_to_async(ban)()
        said = await comm.receive_json_from(timeout=5)
        closed = await comm.receive_output(timeout=5)
        assert (said["type"], said["code"]) == ("closing", CLOSE_BAD_TOKEN)
        assert (closed["type"], closed["code"]) == ("websocket.close", CLOSE_BAD_TOKEN)

    async_to_sync(scenario)()


def test_a_message_sent_to_the_stream_is_answered_in_words_and_changes_nothing(ana):
    robo, raw = bot_with_token("robo")

    async def scenario():
        comm = stream(raw, "since=0")
        connected, _ = await comm.connect()
        assert connected
        await comm.send_to(text_data='{"type": "act", "action": {"type": "concede"}}')
        answer = await comm.receive_json_from(timeout=5)
        assert answer["type"] == "error" and "takes no messages" in answer["message"]
        await comm.disconnect()

    async_to_sync(scenario)()
    assert not AccountEvent.objects.exists()
