"""Past one machine: two Daphne processes and a Celery worker sharing one PostgreSQL and one
Redis. Two players on different processes see each other's moves live, and a bot move made
by the worker reaches both.

Each player is a websocket client that speaks the page's protocol (static/js/table.js):
`hello` on connect, then `fragments` pushes numbered by event, and `act` to move.
"""

import asyncio
import json

import pytest
import websockets

from games import store
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.faults.support import session_cookie
from tests.games.presenters.test_describe import MoveLog

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


class Player:
    def __init__(self, name, url, cookie, game_id):
        self.name = name
        self.url = url
        self.cookie = cookie
        self.game_id = game_id
        self.pushes = {}  # seq -> html
        self.replies = {}

    async def run(self, ready):
        ws_url = self.url.replace("http://", "ws://") + f"/ws/games/{self.game_id}/"
        async with websockets.connect(
            ws_url, additional_headers={"Cookie": f"sessionid={self.cookie}", "Origin": self.url}
        ) as socket:
            self.socket = socket
            hello = json.loads(await socket.recv())
            assert hello["type"] == "hello"
            self.seat = hello["seat"]
            ready.set()
            async for raw in socket:
                message = json.loads(raw)
                if message["type"] == "fragments":
                    self.pushes[message["seq"]] = message["html"]
                elif message["type"] in ("ok", "error"):
                    self.replies[message["key"]] = message

    async def act(self, action, key):
        await self.socket.send(json.dumps({"type": "act", "action": action, "key": key}))

    async def answered(self, key, timeout=10):
        async def until():
            while key not in self.replies:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(until(), timeout)

    async def wait_for(self, seq, timeout=30):
        async def until():
            while seq not in self.pushes:
                await asyncio.sleep(0.02)
            return self.pushes[seq]

        return await asyncio.wait_for(until(), timeout)


def _pass(game_id, seat):
    game = Game.objects.select_related("snapshot").get(pk=game_id)
    card = store.load_state(game).legal_actions(seat)[0]["card"]
    return {"type": "pass", "card": card}


def test_two_players_on_two_daphnes_see_each_others_moves_and_the_workers_bot_move(stack):
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    first = stack.daphne("daphne-1")
    second = stack.daphne("daphne-2")
    assert first != second
    # Ana at seat 0, Bo at seat 1, an easy bot at seats 2 and 3; turn by turn, so that no
    # clock runs out while the test looks.
    game = make_started_game([ana, bo], bots=["easy"], pace=Game.Pace.TURN_BASED, turn_hours=24)
    players = {
        "ana": Player("ana", first, session_cookie(ana), game.pk),
        "bo": Player("bo", second, session_cookie(bo), game.pk),
    }
    # A setup card is chosen from one's own hand, which the others' choices do not change.
    ana_move, bo_move = _pass(game.pk, 0), _pass(game.pk, 1)

    async def scenario():
        readies = {name: asyncio.Event() for name in players}
        tasks = [asyncio.create_task(p.run(readies[n])) for n, p in players.items()]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies.values())), 15)
        try:
            # Both pages are open before the worker starts on the bots' queued moves.
            await asyncio.to_thread(stack.worker)
            # The worker plays both bots' setup cards (seq 2 and 3): each push reaches both
            # pages, through both Daphne processes.
            for seq in (2, 3):
                for player in players.values():
                    await player.wait_for(seq)
            # Ana moves on Daphne 1: Bo sees it live on Daphne 2...
            await players["ana"].act(ana_move, "ana-1")
            bo_sees = await players["bo"].wait_for(4)
            # ...and Bo moves on Daphne 2: Ana sees it live on Daphne 1.
            await players["bo"].act(bo_move, "bo-1")
            ana_sees = await players["ana"].wait_for(5)
            # A mover's answer may come after the other page's push (two processes).
            for name, key in (("ana", "ana-1"), ("bo", "bo-1")):
                await players[name].answered(key)
            return bo_sees, ana_sees
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    bo_sees, ana_sees = asyncio.run(scenario())

    events = {e.seq: e for e in GameEvent.objects.filter(game=game)}
    assert {events[2].actor, events[3].actor} == {"bot"}
    assert {events[2].seat, events[3].seat} == {2, 3}
    assert (events[4].seat, events[4].actor, events[5].seat) == (0, "person", 1)
    assert players["ana"].replies["ana-1"] == {
        "type": "ok",
        "seq": 4,
        "key": "ana-1",
        "replayed": False,
    }
    assert players["bo"].replies["bo-1"] == {
        "type": "ok",
        "seq": 5,
        "key": "bo-1",
        "replayed": False,
    }
    # What each saw is the other's move, in that seat's own words (never the card).
    assert "Ana has chosen a card to pass." in _log_lines(bo_sees)
    assert "Bo has chosen a card to pass." in _log_lines(ana_sees)
    for seq in (2, 3, 4, 5):
        assert f'data-seq="{seq}"' in players["ana"].pushes[seq]
        assert f'data-seq="{seq}"' in players["bo"].pushes[seq]
    # Both processes served: each Daphne logged its own websocket.
    assert "WSCONNECT" in stack.log("daphne-1") or "/ws/games/" in stack.log("daphne-1")
    assert "WSCONNECT" in stack.log("daphne-2") or "/ws/games/" in stack.log("daphne-2")


def _log_lines(html):
    log = html.split('id="table-log"', 1)[1].split("</section>", 1)[0]
    return [line for _seq, lines in MoveLog(log).moves for line in lines]
