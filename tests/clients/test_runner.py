"""The client package's runner and HTTP client against a stand-in site: a websocket server
and an HTTP server in this process that play the site's part exactly as a test needs it
(a dropped stream, a refusal, a 503), so that each of the runner's promises is shown on
its own. The real site plays them in test_end_to_end.py."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from websockets.asyncio.server import serve
from wildcards_bot import ApiError, Bot, Client, key_for, play_seat

GAME, SEAT = 12, 1


def state(seq, your_turn=True, status="active", legal=None):
    return {
        "type": "state",
        "game": GAME,
        "seat": SEAT,
        "seq": seq,
        "status": status,
        "view": None,
        "legal": legal if legal is not None else [{"type": "draw"}],
        "your_turn": your_turn,
        "deadline_at": None,
        "site_bot": False,
    }


FINISHED = state(99, your_turn=False, status="finished", legal=[])


class Recorder(Bot):
    """Decides the first legal action, and remembers each state it was asked about."""

    def __init__(self):
        self.asked = []
        self.over = []

    def decide(self, state):
        self.asked.append(state["seq"])
        return state["legal"][0]

    def game_over(self, state):
        self.over.append(state["seq"])


async def _play(connections, bot=None):
    """Serves the stream once per item of `connections` (each a coroutine function taking
    the socket and the list of frames every connection received), and plays the seat."""
    received = []
    served = iter(connections)

    async def handler(socket):
        await next(served)(socket, received)

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        bot = bot or Recorder()
        result = await asyncio.wait_for(
            play_seat(Client(f"http://127.0.0.1:{port}", "wct_test"), bot, GAME, SEAT), 20
        )
    return result, bot, received


async def _frame(socket, received):
    frame = json.loads(await socket.recv())
    received.append(frame)
    return frame


def test_a_decision_lost_with_its_stream_is_sent_again_with_the_same_key_and_replayed():
    async def drops_before_answering(socket, received):
        await socket.send(json.dumps(state(5)))
        await _frame(socket, received)
        await socket.close(1011)  # the server went away: no answer

    async def answers_the_retry(socket, received):
        frame = await _frame(socket, received)  # sent before any state: the retry
        await socket.send(
            json.dumps({"type": "ok", "seq": 6, "key": frame["key"], "replayed": True})
        )
        await socket.send(json.dumps(FINISHED))
        await socket.wait_closed()

    result, bot, received = asyncio.run(_play([drops_before_answering, answers_the_retry]))

    assert [frame["key"] for frame in received] == [key_for(GAME, SEAT, 5)] * 2
    assert received[0] == received[1]  # the same action too, with the seq it was decided at
    assert received[0]["seq"] == 5
    assert bot.asked == [5]  # decided once
    assert (result.status, result.decisions, result.replayed, result.reconnects) == (
        "finished",
        1,
        1,
        1,
    )
    assert bot.over == [99]


def test_after_a_refusal_it_waits_for_a_newer_state_before_deciding_again():
    async def refuses_then_moves_on(socket, received):
        await socket.send(json.dumps(state(5)))
        frame = await _frame(socket, received)
        await socket.send(
            json.dumps({"type": "error", "message": "The game has moved on.", "key": frame["key"]})
        )
        # The same state again (a re-check): no new decision may come of it.
        await socket.send(json.dumps(state(5)))
        await socket.send(json.dumps(state(7)))
        frame = await _frame(socket, received)
        await socket.send(json.dumps({"type": "ok", "seq": 8, "key": frame["key"]}))
        await socket.send(json.dumps(FINISHED))
        await socket.wait_closed()

    result, bot, received = asyncio.run(_play([refuses_then_moves_on]))

    assert [frame["seq"] for frame in received] == [5, 7]
    assert bot.asked == [5, 7]
    assert result.refused == ["The game has moved on."]
    assert result.decisions == 1


def test_one_decision_is_in_flight_and_only_the_newest_state_is_acted_on():
    async def states_while_deciding(socket, received):
        await socket.send(json.dumps(state(5)))
        frame = await _frame(socket, received)
        # Two states come before the answer: the first is stale once the answer is in.
        await socket.send(json.dumps(state(6)))
        await socket.send(json.dumps(state(8)))
        await asyncio.sleep(0.2)
        assert len(received) == 1  # nothing more was sent while the first was unanswered
        await socket.send(json.dumps({"type": "ok", "seq": 7, "key": frame["key"]}))
        frame = await _frame(socket, received)
        await socket.send(json.dumps({"type": "ok", "seq": 9, "key": frame["key"]}))
        await socket.send(json.dumps(FINISHED))
        await socket.wait_closed()

    result, bot, received = asyncio.run(_play([states_while_deciding]))

    assert [frame["key"] for frame in received] == [key_for(GAME, SEAT, 5), key_for(GAME, SEAT, 8)]
    assert bot.asked == [5, 8]
    assert result.decisions == 2


def test_a_bot_that_raises_loses_that_state_not_its_seat():
    class Buggy(Recorder):
        def decide(self, state):
            super().decide(state)
            if state["seq"] == 5:
                raise KeyError("hand")
            return state["legal"][0]

    async def moves_on(socket, received):
        await socket.send(json.dumps(state(5)))
        await asyncio.sleep(0.2)
        await socket.send(json.dumps(state(6)))
        frame = await _frame(socket, received)
        await socket.send(json.dumps({"type": "ok", "seq": 7, "key": frame["key"]}))
        await socket.send(json.dumps(FINISHED))
        await socket.wait_closed()

    result, bot, received = asyncio.run(_play([moves_on], Buggy()))

    assert bot.asked == [5, 6]
    assert [frame["seq"] for frame in received] == [6]
    assert (result.status, result.decisions) == ("finished", 1)


@pytest.mark.parametrize("code", [4401, 4404, 4410])
def test_a_close_that_ends_the_seat_is_not_retried(code):
    async def closes(socket, received):
        await socket.close(code)

    result, bot, received = asyncio.run(_play([closes]))  # a second connection would fail

    assert (result.status, result.close_code, result.reconnects) == ("closed", code, 0)
    assert bot.asked == []


def test_a_close_4503_is_retried():
    async def server_error(socket, received):
        await socket.close(4503)

    async def finished(socket, received):
        await socket.send(json.dumps(FINISHED))
        await socket.wait_closed()

    result, _, _ = asyncio.run(_play([server_error, finished]))

    assert (result.status, result.reconnects) == ("finished", 1)


class _Site(BaseHTTPRequestHandler):
    """Answers POSTs from a script of (status, headers, body); records what it was sent."""

    script: list = []
    sent: list = []

    def do_POST(self):
        self.sent.append(self.rfile.read(int(self.headers["Content-Length"])))
        status, headers, body = self.script.pop(0)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(json.dumps(body).encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Site.sent = []
    yield server
    server.shutdown()


def test_a_decision_answered_503_or_429_is_sent_again_with_the_same_body(site):
    _Site.script = [
        (503, {}, {"detail": "The server lost its database: send it again."}),
        (429, {"Retry-After": "3"}, {"detail": "Too many requests."}),
        (200, {"X-RateLimit-Remaining": "7"}, {"seq": 10, "replayed": False}),
    ]
    slept = []
    client = Client(f"http://127.0.0.1:{site.server_port}", "wct_test", sleep=slept.append)

    answer = client.decide(GAME, {"type": "draw"}, "g12-s1-q9", seq=9)

    assert answer == {"seq": 10, "replayed": False}
    assert len(_Site.sent) == 3 and len(set(_Site.sent)) == 1
    assert json.loads(_Site.sent[0]) == {"action": {"type": "draw"}, "key": "g12-s1-q9", "seq": 9}
    assert slept == [0.5, 3.0]  # the backoff, then the Retry-After
    assert client.rate_limit["X-RateLimit-Remaining"] == "7"


def test_another_refusal_raises_with_the_sites_reason(site):
    _Site.script = [(409, {}, {"detail": "That seat is taken."})]
    client = Client(f"http://127.0.0.1:{site.server_port}", "wct_test", sleep=lambda s: None)

    with pytest.raises(ApiError) as refused:
        client.join(GAME, 1)

    assert (refused.value.status, refused.value.detail) == (409, "That seat is taken.")
    assert len(_Site.sent) == 1
