"""Socket handshakes at paths no route answers: refused with a close code, not a 500.

Channels' URLRouter raised "No route found" for them, which Daphne answered with a 500 and
a traceback in the log. config/sockets.py closes such a handshake before accepting it:
4404 where no socket lives, 4400 for a path no route can hold (a NUL, a control character,
bytes that are not UTF-8, too long), the rule of the pages (config.middleware).
These go through the whole application (config.asgi), origin check and all.
"""

import logging

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from config.sockets import CLOSE_NO_ROUTE, CLOSE_UNROUTABLE_PATH
from games.consumers import CLOSE_FORBIDDEN
from tests.security.world import build_world, fingerprint

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://testserver")]


def handshake(path, user=None):
    """(accepted, close code) of a handshake at `path` (as the server decoded it)."""
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user

    async def run():
        result = await communicator.connect(timeout=10)
        # A refused handshake's application is still waiting for the disconnect: left
        # pending, its cancellation when the loop closes can hang the test run.
        await communicator.disconnect()
        return result

    return async_to_sync(run)()


def server_errors(caplog):
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    "path",
    [
        "/ws/nowhere/",
        "/ws/",
        "/",
        "/ws/games/",
        "/ws/games/abc/",
        "/ws/games/1/extra/",
        "/ws/games/-1/",
        "/games/1/",
        "/ws/games/%E2%99%A0/",
    ],
)
def test_a_handshake_where_no_socket_lives_is_closed_with_4404_not_a_server_error(path, caplog):
    build_world()
    before = fingerprint()
    caplog.set_level(logging.INFO)
    assert handshake(path) == (False, CLOSE_NO_ROUTE)
    assert not server_errors(caplog)
    assert fingerprint() == before


@pytest.mark.parametrize(
    "path",
    [
        "/ws/games/%00/",
        "/ws/games/1%00/",
        "/ws/%00",
        "/ws/games/%0A/",
        "/ws/games/%7F/",
        # As Daphne decodes bytes that are not UTF-8: U+FFFD.
        "/ws/games/%FF/",
        "/ws/games/1%C3%28/",
        # A game id of ten thousand digits: no route could hold it anyway.
        "/ws/games/" + "9" * 10_000 + "/",
    ],
)
def test_a_handshake_whose_path_no_route_can_hold_is_closed_with_4400(path, caplog):
    world = build_world()
    before = fingerprint()
    caplog.set_level(logging.INFO)
    for user in (None, world.bo):
        assert handshake(path, user) == (False, CLOSE_UNROUTABLE_PATH), path
    assert not server_errors(caplog)
    assert fingerprint() == before


def test_a_game_id_beyond_any_game_is_refused_like_a_table_one_may_not_join(caplog):
    world = build_world()
    caplog.set_level(logging.INFO)
    for game_id in (2**63, 10**30, 10**899, world.game.pk + 1000):
        assert handshake(f"/ws/games/{game_id}/", world.bo) == (False, CLOSE_FORBIDDEN)
    assert not server_errors(caplog)


def test_the_game_socket_still_opens_at_its_own_path():
    world = build_world()
    assert handshake(f"/ws/games/{world.game.pk}/", world.bo) == (True, None)


def test_a_foreign_origin_is_refused_before_the_path_is_looked_at():
    communicator = WebsocketCommunicator(
        application, "/ws/nowhere/", headers=[(b"origin", b"http://evil.example")]
    )

    async def run():
        result = await communicator.connect(timeout=10)
        await communicator.disconnect()
        return result

    accepted, code = async_to_sync(run)()
    assert not accepted and code not in (CLOSE_NO_ROUTE, CLOSE_UNROUTABLE_PATH)
