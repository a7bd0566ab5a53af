"""Chat secrecy over real sockets, by scanning every frame each socket receives: during
play a spectator never receives the players' room and a player never the spectators'; a
muted player's lines reach nobody; a person who turned the chat off receives no line. Then
the same scan over each reader's chat panel, during play and after the end."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from games.actions import chat
from games.models import ChatMessage
from games.moderation import actions as moderation
from games.moderation import chat as chat_moderation
from games.routing import websocket_urlpatterns
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)
PLAYER, SPECTATOR, MUTED = "PLAYERS-ROOM-SECRET", "SPECTATORS-ROOM-SECRET", "MUTED-SECRET"


def communicator(game, user):
    comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
    comm.scope["user"] = user
    return comm


async def drain(comm, frames):
    while not await comm.receive_nothing(timeout=0.4):
        frames.append(await comm.receive_json_from(timeout=5))


def secrets_in(frames_or_html):
    text = frames_or_html if isinstance(frames_or_html, str) else json.dumps(frames_or_html)
    return {secret for secret in (PLAYER, SPECTATOR, MUTED) if secret in text}


def panel(game, user):
    client = Client()
    client.force_login(user)
    return client.get(reverse("games:chat", args=[game.pk]), headers={"HX-Request": "true"}).text


def test_each_socket_and_page_gets_only_the_rooms_its_reader_may_read(ana, bo, cy, di, ed):
    game = make_started_game([ana, bo, cy], spectators=True)  # a bot at seat 3
    mod = make_user("mod", is_staff=True, is_superuser=True)
    chat_moderation.mute(cy, mod, "abuse")
    chat.set_off(di, True)  # a spectator who turned the chat off
    people = {"ana": ana, "bo": bo, "cy": cy, "di": di, "ed": ed}
    frames = {name: [] for name in people}

    async def scenario():
        comms = {name: communicator(game, user) for name, user in people.items()}
        for comm in comms.values():
            ok, _ = await comm.connect()
            assert ok
            assert (await comm.receive_json_from(timeout=5))["type"] == "hello"
        await comms["ana"].send_json_to({"type": "chat", "text": f"{PLAYER} 1", "key": "a1"})
        await comms["bo"].send_json_to({"type": "chat", "text": f"{PLAYER} 2", "key": "b1"})
        await comms["ed"].send_json_to({"type": "chat", "text": f"{SPECTATOR} 1", "key": "e1"})
        await comms["cy"].send_json_to({"type": "chat", "text": f"{MUTED} 1", "key": "c1"})
        for name, comm in comms.items():
            await drain(comm, frames[name])
        for comm in comms.values():
            await comm.disconnect()

    async_to_sync(scenario)()

    def lines(name):
        return sorted(f["html"] for f in frames[name] if f["type"] == "chat")

    # The players' sockets: both players' lines, nothing of the spectators', nothing muted.
    for name in ("ana", "bo"):
        assert secrets_in(frames[name]) == {PLAYER}, frames[name]
        assert len(lines(name)) == 2
    assert secrets_in(frames["ed"]) == {SPECTATOR}, frames["ed"]
    assert len(lines("ed")) == 1
    assert secrets_in(frames["di"]) == set(), frames["di"]  # chat off: no line at all
    # The muted player is told why; their text reaches no socket, their own included.
    assert secrets_in(frames["cy"]) == {PLAYER}
    refusal = [f for f in frames["cy"] if f["type"] == "chat_error"]
    assert refusal == [
        {"type": "chat_error", "message": "A moderator has muted you in chat.", "key": "c1"}
    ]
    assert not ChatMessage.objects.filter(text__contains=MUTED).exists()
    # Senders hear that their line was stored.
    assert {"type": "chat_ok", "key": "a1"}.items() <= next(
        f for f in frames["ana"] if f["type"] == "chat_ok"
    ).items()

    # The panels, during play.
    assert secrets_in(panel(game, ana)) == {PLAYER}
    assert secrets_in(panel(game, ed)) == {SPECTATOR}
    assert secrets_in(panel(game, di)) == set()
    assert secrets_in(Client().get(reverse("games:chat", args=[game.pk])).text) == set()
    for user in (ana, ed):  # the table page itself holds no line (the panel is read apart)
        client = Client()
        client.force_login(user)
        assert secrets_in(client.get(reverse("games:play", args=[game.pk])).text) == set()

    # Once the game is over the spectators read the players' room; players never theirs.
    moderation.abort_table(game.pk, mod, "over")
    assert secrets_in(panel(game, ed)) == {PLAYER, SPECTATOR}
    assert secrets_in(panel(game, ana)) == {PLAYER}


def test_bad_chat_frames_get_an_answer_in_words_and_the_socket_stays_open(ana, bo, settings):
    settings.CHAT_RATE_LIMIT = 2
    game = make_started_game([ana, bo])
    answers = []

    async def scenario():
        comm = communicator(game, ana)
        ok, _ = await comm.connect()
        assert ok
        await comm.receive_json_from(timeout=5)
        for frame in (
            {"type": "chat", "text": "", "key": "k0"},
            {"type": "chat", "text": "z" * 301, "key": "k1"},
            {"type": "chat", "text": "hi", "key": ""},
            {"type": "chat", "text": {"nested": 1}, "key": "k2"},
            {"type": "chat", "text": "one", "key": "k3"},
            {"type": "chat", "text": "two", "key": "k4"},
            {"type": "chat", "text": "three", "key": "k5"},
            {"type": "chat", "text": "one", "key": "k3"},
        ):
            await comm.send_json_to(frame)
            await drain(comm, answers)
        await comm.send_json_to({"type": "sync"})
        assert (await comm.receive_json_from(timeout=5))["type"] == "hello"  # still open
        await comm.disconnect()

    async_to_sync(scenario)()
    errors = [f["message"] for f in answers if f["type"] == "chat_error"]
    assert errors[0].startswith("Write something first")
    assert errors[1].startswith("That message is too long: at most 300 characters")
    assert errors[2].startswith("Every chat message needs its key")
    assert errors[3] == "A chat message is text."
    assert errors[4].startswith("Too many messages: at most 2 in 10 seconds.")
    assert len(errors) == 5
    # The resent "one" (same key) is answered with the line stored the first time.
    oks = [f for f in answers if f["type"] == "chat_ok"]
    assert [f["key"] for f in oks] == ["k3", "k4", "k3"] and oks[0]["id"] == oks[2]["id"]
    assert list(ChatMessage.objects.order_by("pk").values_list("text", flat=True)) == ["one", "two"]


def test_turning_the_chat_off_stops_the_pushes_to_an_open_socket(ana, bo):
    game = make_started_game([ana, bo])
    frames = []

    async def scenario():
        comm = communicator(game, bo)
        ok, _ = await comm.connect()
        assert ok
        await comm.receive_json_from(timeout=5)
        await database_sync_to_async(chat.set_off)(bo, True)
        await drain(comm, frames)
        await database_sync_to_async(chat.send)(game.pk, ana, "anyone?", "a1")
        await drain(comm, frames)
        await comm.disconnect()

    async_to_sync(scenario)()
    assert frames == [{"type": "chat_setting", "off": True}]
