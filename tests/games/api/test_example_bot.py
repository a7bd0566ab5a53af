"""The first example bot (the example as it was before the client package, kept verbatim as
tests/games/api/legacy_random_bot.py) plays a whole game against the real site: a Daphne
process, a real Celery worker and beat, PostgreSQL and Redis, all subprocesses.

Ana hosts (this test clicks her moves, through the same door as her page would), site bots
sit at the other seats, and the bot account she invites to seat 1 is played by the example,
run as a subprocess with its token: it accepts the invitation, opens its stream and sends
random legal moves on it until the game ends. tests/clients/ runs today's example (on the
client package) through the same fixtures and `run_example`.
"""

import os
import socket
import subprocess
import sys
import threading
import time
import uuid

import pytest
from django.conf import settings
from django.db import connection

from accounts import bot_tokens
from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.tasks.test_realtime_clock import (  # noqa: F401 (two register fixtures)
    _database_url,
    own_queue_fixture,
    worker_and_beat_fixture,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# Registered under a name of its own, as the worker's (tests/clients/ imports it).
@pytest.fixture(name="daphne")
def daphne_fixture(worker_and_beat, own_queue):
    """The site under Daphne, sending its tasks to the worker's queue."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_QUEUE": own_queue,
        "DEBUG": "true",
        "PYTHONUNBUFFERED": "1",
    }
    log = open(worker_and_beat / "daphne.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "config.asgi:application",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        ready = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < ready, (
                    worker_and_beat / "daphne.log"
                ).read_text()
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        connection.close()


def _ana_plays(game_id, stop):
    """Ana's clicks: the plain move whenever her seat has a decision."""
    try:
        while not stop.is_set():
            game = Game.objects.select_related("snapshot").get(pk=game_id)
            if game.status != Game.Status.ACTIVE:
                return
            if 0 in game.waiting_on:
                try:
                    decisions.apply_decision(
                        game_id,
                        0,
                        store.load_state(game).auto_action(0),
                        "person",
                        user=game.host,
                        idempotency_key=uuid.uuid4().hex,
                    )
                except decisions.DecisionRefused:
                    pass  # the game moved meanwhile: look again
            time.sleep(0.1)
    finally:
        connection.close()


@pytest.fixture(autouse=True)
def sandbox_rate_limit(monkeypatch):
    """The site's subprocesses take a bot account's decisions at a sandbox's rate. Site bots
    answer at once here (BOT_PACE_MS=0, tests/conftest.py), so a seat is asked several
    decisions a second, above the default API_RATE_LIMIT of 120 a minute: a refused act
    frame would leave the seat to its move timer. The limit itself is tested in
    test_account_limits.py; here the clients are."""
    monkeypatch.setenv("API_RATE_LIMIT", "2000")


def run_example(daphne, logs, script, players=4, seed=20241):
    """Ana hosts a table of `players` seats, invites the bot account robo to seat 1 and fills
    the others with site bots; `script` (an example client, as a subprocess with robo's
    token) plays seat 1 to the end while this test clicks Ana's moves. Returns the game, the
    client's exit status, its output and the seconds from the start to the end."""
    ana = make_user("ana", display_name="Ana")
    robo = make_user("robo", is_bot=True)
    _, raw = bot_tokens.issue(robo, "example")
    game = lobby.create_table(
        ana, players=players, pace=Game.Pace.REALTIME, move_seconds=45, seed=seed
    )
    for number in range(2, players):
        lobby.add_bot(game.pk, ana, number, "easy")
    lobby.invite_bot(game.pk, ana, 1, "robo")
    log_path = logs / f"{script.rsplit('/', 1)[-1]}.log"
    bot_log = open(log_path, "w")
    bot = subprocess.Popen(
        [sys.executable, script, "--url", daphne, "--token", raw, "--wait", "60", "--poll", "0.5"],
        cwd=settings.BASE_DIR,
        stdout=bot_log,
        stderr=subprocess.STDOUT,
    )
    stop = threading.Event()
    ana_thread = None
    try:
        accepted = time.monotonic() + 60
        while not game.seats.filter(number=1, user=robo).exists():
            assert bot.poll() is None and time.monotonic() < accepted, log_path.read_text()
            time.sleep(0.2)
        lobby.start_table(game.pk, ana)
        started = time.monotonic()
        ana_thread = threading.Thread(target=_ana_plays, args=(game.pk, stop))
        ana_thread.start()
        code = bot.wait(timeout=400)
        seconds = time.monotonic() - started
    finally:
        stop.set()
        if ana_thread is not None:
            ana_thread.join(timeout=30)
        if bot.poll() is None:
            bot.kill()
        bot_log.close()
    game.refresh_from_db()
    return game, code, log_path.read_text(), seconds


def assert_played_to_the_end(game, code, output, daphne_log):
    robo = game.seats.get(number=1).user
    assert code == 0, output[-4000:]
    assert game.status == Game.Status.FINISHED
    assert "over (finished)" in output
    # Its decisions went through the write door as the bot account's, a person's seat.
    made = GameEvent.objects.filter(game=game, seat=1, user=robo, actor="person")
    assert made.count() >= 3, output[-4000:]
    assert not GameEvent.objects.filter(game=game, seat=1, actor="timeout").exists(), output[-4000:]
    # Its HTTP calls stayed inside the token's rate limit: a 429 is a Retry-After to sleep
    # while the move timer runs.
    assert '" 429 ' not in daphne_log
    bots = set(GameEvent.objects.filter(game=game, actor="bot").values_list("seat", flat=True))
    assert bots >= set(range(2, game.players))


def test_the_first_example_bot_still_plays_a_whole_game_against_the_real_site(
    daphne, worker_and_beat
):
    """Today's clients keep working: the example as it was before the client package
    (kept verbatim as legacy_random_bot.py) plays its seat to the end."""
    game, code, output, _ = run_example(
        daphne, worker_and_beat, "tests/games/api/legacy_random_bot.py"
    )
    assert_played_to_the_end(game, code, output, (worker_and_beat / "daphne.log").read_text())
