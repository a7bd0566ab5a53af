"""A flood of socket handshakes (every page reconnecting at once, or someone opening sockets
in a loop): past SOCKET_HANDSHAKES_WAITING waiting at once, one more is closed with 4503 at
once instead of queueing behind them (config.sockets.HandshakeLimit); the ones let in are
answered as before, and a place frees as soon as a handshake is answered or given up."""

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from config.sockets import CLOSE_BUSY, HandshakeLimit


class Slow:
    """A socket application whose handshakes wait until `go` is set, then accept; one
    whose path says so ends without answering (its client gave up, or it failed)."""

    def __init__(self):
        self.go = asyncio.Event()
        self.started = 0

    async def __call__(self, scope, receive, send):
        await receive()  # websocket.connect
        self.started += 1
        if scope["path"] == "/gives-up/":
            return
        await self.go.wait()
        await send({"type": "websocket.accept"})
        await receive()  # until the client leaves


def test_handshakes_past_the_limit_are_turned_away_at_once_and_places_free_again(caplog):
    slow = Slow()
    limited = HandshakeLimit(slow, 2)

    async def scenario():
        first = WebsocketCommunicator(limited, "/")
        second = WebsocketCommunicator(limited, "/")
        waiting = [asyncio.ensure_future(c.connect(timeout=5)) for c in (first, second)]
        await asyncio.sleep(0.1)
        assert limited.waiting == 2

        third = WebsocketCommunicator(limited, "/")
        assert await third.connect(timeout=1) == (True, None)  # accepted, then at once:
        assert (await third.receive_output(timeout=1)) == {
            "type": "websocket.close",
            "code": CLOSE_BUSY,
        }
        assert slow.started == 2  # the third never reached the application

        slow.go.set()
        assert [await w for w in waiting] == [(True, None), (True, None)]
        assert limited.waiting == 0  # answered: their places are free

        gives_up = WebsocketCommunicator(limited, "/gives-up/")
        await gives_up.send_input({"type": "websocket.connect"})
        await gives_up.wait(timeout=1)
        assert limited.waiting == 0  # ended unanswered: its place is free too

        fourth = WebsocketCommunicator(limited, "/")
        assert await fourth.connect(timeout=1) == (True, None)
        assert slow.started == 4
        for communicator in (first, second, fourth):
            await communicator.disconnect()

    with caplog.at_level(logging.WARNING, logger="config.sockets"):
        async_to_sync(scenario)()
    assert "1 socket handshakes turned away (4503): 2 were waiting already" in caplog.text


def test_the_site_s_sockets_go_through_the_limit():
    assert isinstance(application.application_mapping["websocket"], HandshakeLimit)


def test_a_stranger_s_flood_does_not_lock_out_later_handshakes():
    """Handshakes that are closed at once by the limit hold no place: a burst of them leaves
    the count where it was, so the next handshake after the burst is let in."""
    slow = Slow()
    slow.go.set()
    limited = HandshakeLimit(slow, 1)

    async def scenario():
        holder = WebsocketCommunicator(limited, "/")
        slow.go.clear()
        holding = asyncio.ensure_future(holder.connect(timeout=5))
        await asyncio.sleep(0.05)
        for _ in range(20):
            flood = WebsocketCommunicator(limited, "/")
            assert await flood.connect(timeout=1) == (True, None)
            assert (await flood.receive_output(timeout=1))["code"] == CLOSE_BUSY
        assert limited.waiting == 1
        slow.go.set()
        assert await holding == (True, None)
        after = WebsocketCommunicator(limited, "/")
        assert await after.connect(timeout=1) == (True, None)
        await holder.disconnect()
        await after.disconnect()

    async_to_sync(scenario)()
