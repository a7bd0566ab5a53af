"""A bot driven by its account's events alone, against the real site: a Daphne process, a
real Celery worker and beat, PostgreSQL and Redis. It reads `GET /api/bot/events` as an
NDJSON stream over plain HTTP, accepts the invitation it is told of, and on each
`your_turn` reads its seat and decides over HTTP, until `game_finished`; no polling of
/invitations or /seats, and no game stream.
"""

import json
import random
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

from accounts import bot_tokens
from games.models import Game, GameEvent
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.api.test_example_bot import (  # noqa: F401 (fixtures)
    _ana_plays,
    daphne_fixture,
    sandbox_rate_limit,
)
from tests.games.presenters.test_table_secrecy import codes_in
from tests.games.tasks.test_realtime_clock import (  # noqa: F401 (fixtures)
    _database_url,
    own_queue_fixture,
    worker_and_beat_fixture,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


class EventBot:
    """The program: one thread reading the NDJSON lines, acting on each as it comes."""

    def __init__(self, url, raw):
        self.url, self.raw = url, raw
        self.events, self.blank_lines, self.content_type = [], 0, None
        self.decided, self.errors = 0, []
        self.done = threading.Event()

    def call(self, method, path, body=None):
        request = urllib.request.Request(
            f"{self.url}/api/bot{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.raw}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def run(self):
        request = urllib.request.Request(
            f"{self.url}/api/bot/events?since=0", headers={"Authorization": f"Bearer {self.raw}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as stream:
                self.content_type = stream.headers["Content-Type"]
                for raw_line in stream:
                    if not raw_line.strip():
                        self.blank_lines += 1
                        continue
                    event = json.loads(raw_line)
                    self.events.append(event)
                    self.handle(event)
                    if event["type"] == "game_finished":
                        return
        except Exception as exc:  # noqa: BLE001 - the test reports it
            self.errors.append(repr(exc))
        finally:
            self.done.set()

    def handle(self, event):
        if event["type"] == "invitation":
            status, answer = self.call("POST", f"/invitations/{event['invitation']}/accept")
            assert status == 200, answer
        elif event["type"] == "your_turn":
            self.play(event["game"])

    def play(self, game):
        """Decides while the seat has a decision: its own decision may leave it one more
        (its answer, not an event, says so)."""
        for _ in range(10):
            status, state = self.call("GET", f"/games/{game}")
            if status != 200 or not state["your_turn"]:
                return
            view = state["view"]
            if view.get("must_give"):
                action = {"type": "give", "cards": random.sample(view["hand"], view["must_give"])}
            elif state["legal"]:
                action = random.choice(state["legal"])
            else:
                return
            body = {"action": action, "key": uuid.uuid4().hex, "seq": state["seq"]}
            status, answer = self.call("POST", f"/games/{game}/decisions", body)
            if status == 200:
                self.decided += 1


def test_a_bot_plays_a_whole_game_from_its_ndjson_events_over_real_daphne(
    daphne, worker_and_beat, settings
):
    ana = make_user("ana", display_name="Ana")
    robo = make_user("robo", is_bot=True)
    _, raw = bot_tokens.issue(robo, "events")
    bot = EventBot(daphne, raw)
    reader = threading.Thread(target=bot.run)
    reader.start()
    game = lobby.create_table(ana, players=4, pace=Game.Pace.REALTIME, move_seconds=45, seed=7)
    for number in (2, 3):
        lobby.add_bot(game.pk, ana, number, "easy")
    lobby.invite_bot(game.pk, ana, 1, "robo")
    stop = threading.Event()
    ana_thread = None
    try:
        accepted = time.monotonic() + 30
        while not game.seats.filter(number=1, user=robo).exists():
            assert time.monotonic() < accepted and not bot.errors, (bot.events, bot.errors)
            time.sleep(0.2)
        lobby.start_table(game.pk, ana)
        ana_thread = threading.Thread(target=_ana_plays, args=(game.pk, stop))
        ana_thread.start()
        assert bot.done.wait(300), (bot.events[-5:], bot.errors)
    finally:
        stop.set()
        if ana_thread is not None:
            ana_thread.join(timeout=30)
        reader.join(timeout=30)

    game.refresh_from_db()
    assert not bot.errors, bot.errors
    assert game.status == Game.Status.FINISHED
    assert bot.content_type == "application/x-ndjson"
    kinds = [e["type"] for e in bot.events]
    assert kinds[:4] == ["invitation", "seated", "game_started", "your_turn"], kinds
    assert kinds[-1] == "game_finished" and bot.events[-1]["result"]["rank"] >= 1
    assert kinds.count("your_turn") >= 3
    ids = [e["id"] for e in bot.events]
    assert ids == sorted(set(ids))  # in order, none twice
    assert codes_in(bot.events) == set()
    # Its moves were its own, from the events: none left to its move timer.
    made = GameEvent.objects.filter(game=game, seat=1, user=robo, actor="person").count()
    assert made >= 3 and made == bot.decided
    assert not GameEvent.objects.filter(game=game, seat=1, actor="timeout").exists()
