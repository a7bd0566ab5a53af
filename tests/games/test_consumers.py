"""The game socket: who may listen, and what it carries (only event numbers)."""

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games import services
from games.routing import websocket_urlpatterns
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)


def communicator(game, user):
    comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
    comm.scope["user"] = user
    return comm


def move(game, seat):
    state = services.load_state(type(game).objects.select_related("snapshot").get(pk=game.pk))
    services.apply_decision(game.pk, seat, state.legal_actions(seat)[0], "person")


def test_a_seat_hears_of_each_new_event_and_of_nothing_else(four):
    game = make_started_game(four)

    async def scenario():
        comm = communicator(game, four[1])
        connected, _ = await comm.connect()
        assert connected
        await database_sync_to_async(move)(game, 3)
        assert await comm.receive_json_from(timeout=5) == {"type": "changed", "seq": 2}
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_an_outsider_is_refused_at_a_table_without_spectators(four, ed):
    game = make_started_game(four)

    async def scenario():
        comm = communicator(game, ed)
        connected, code = await comm.connect()
        assert not connected
        assert code == 4403

    async_to_sync(scenario)()


def test_a_spectator_joins_the_public_group_when_watching_is_allowed(four):
    game = make_started_game(four, spectators=True)

    async def scenario():
        comm = communicator(game, AnonymousUser())
        connected, _ = await comm.connect()
        assert connected
        await database_sync_to_async(move)(game, 0)
        assert await comm.receive_json_from(timeout=5) == {"type": "changed", "seq": 2}
        await comm.disconnect()

    async_to_sync(scenario)()
