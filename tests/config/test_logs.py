"""Logs an operator can read (docs/deploy.md, "Logs"): the periodic sweeps say nothing at
INFO unless they changed something, and each event that matters (a game started or
finished, a time-out, a bot standing in or out, an email sent or failed, a socket refused)
is one line naming its game or user, in words and as a field of its own (`extra=`) for
LOG_FORMAT=json."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from celery.app.trace import LOG_RECEIVED
from celery.beat import ScheduleEntry, Scheduler
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from config.asgi import application
from config.celery import app as celery_app
from games import effects, tasks
from games.actions import presence
from games.models import Game
from tests.conftest import PASSWORD, make_started_game, make_user, play_one
from tests.games.clock_support import at, fresh, travel

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def said(caplog):
    """The lines logged at INFO and above, as (logger, level, message, record)."""
    caplog.set_level(logging.INFO)

    def lines():
        return [
            (r.name, r.levelname, r.getMessage(), r)
            for r in caplog.records
            if r.levelno >= logging.INFO
        ]

    return lines


@pytest.fixture
def no_tasks(monkeypatch):
    """Tasks sent after a commit (bot moves, countdowns) are not sent: the test looks at
    what its own step logs, and nothing goes to a broker another run may read."""
    sent = []
    monkeypatch.setattr(effects, "_send_task", lambda name, args, options: sent.append(name))
    return sent


def messages(lines):
    return [message for _, _, message, _ in lines]


def start_realtime(users, **options):
    options.setdefault("pace", Game.Pace.REALTIME)
    options.setdefault("move_seconds", 30)
    with travel(at(0)):
        return make_started_game(users, **options)


# --- the sweeps --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweeps_that_find_nothing_to_do_log_nothing_at_info(said, ana, no_tasks):
    """The beat sends the clock sweep every second and the stalled-bot sweep every ten
    seconds; with a game running and nothing due, neither the beat's sending, the worker's
    receiving, the run itself nor the countdown and email tasks write a line at INFO."""
    game = start_realtime([ana], bots=["easy"])
    scheduler = Scheduler(celery_app, lazy=True)
    scheduler.apply_async = lambda *args, **kwargs: None  # sends nothing to a broker
    strategy = logging.getLogger("celery.worker.strategy")
    said_before = said()

    with travel(at(5)):
        for name, entry in django_settings.CELERY_BEAT_SCHEDULE.items():
            # The beat's own code logs its "Sending due task" line...
            scheduler.apply_entry(
                ScheduleEntry(
                    name=name, task=entry["task"], schedule=entry["schedule"], app=celery_app
                )
            )
            # ...the worker its "received" line (celery/worker/strategy.py's call)...
            context = {"id": "1", "name": entry["task"], "args": "()", "kwargs": "{}", "eta": None}
            strategy.info(LOG_RECEIVED, context, extra={"data": context})
        # ...and Celery's tracer its "succeeded" line for each task it runs.
        assert tasks.sweep_clocks.apply().get() == 0
        assert tasks.wake_stalled_bots.apply().get() == 0
        assert tasks.fire_clock.apply(args=[game.pk]).get() is False
        assert tasks.deliver_emails.apply(args=[game.pk]).get() == 0

    assert said()[len(said_before) :] == []


@pytest.mark.django_db
def test_a_bot_sweep_that_sends_a_lost_move_again_says_so_in_one_line(
    said, ana, no_tasks, monkeypatch
):
    """A lost bot move (a worker killed, a broker restarted) is worth an operator's look."""
    game = start_realtime([ana], bots=["easy"])
    monkeypatch.setattr(tasks.play_bot, "delay", lambda *args: None)
    before = len(said())

    with travel(at(60)):
        assert tasks.wake_stalled_bots.apply().get() == 3

    lines = said()[before:]
    assert messages(lines) == [
        f"3 bot moves had waited over {django_settings.BOT_STALL_SECONDS} s and were sent "
        f"again (games {game.pk})"
    ]
    assert lines[0][1] == "WARNING" and lines[0][3].games == [game.pk]


# --- games -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_play_now_logs_one_line_naming_the_game_it_started(
    said, ana, no_tasks, django_capture_on_commit_callbacks
):
    client = Client()
    client.force_login(ana)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lobby:quick"))

    game = Game.objects.get()
    assert response.status_code == 302
    lines = said()
    assert messages(lines) == [f"game {game.pk} started: 4 players, real time"]
    assert lines[0][0] == "games.actions.decisions" and lines[0][3].game == game.pk


@pytest.mark.django_db
def test_the_last_move_logs_one_line_that_the_game_finished(
    said, four, no_tasks, django_capture_on_commit_callbacks
):
    game = make_started_game(four)
    before = len(said())

    with django_capture_on_commit_callbacks(execute=True):
        while fresh(game).status == Game.Status.ACTIVE:
            play_one(game)

    game = fresh(game)
    lines = said()[before:]
    assert messages(lines) == [f"game {game.pk} finished at event {game.last_seq}"]
    assert lines[0][3].game == game.pk


@pytest.mark.django_db
def test_a_time_out_logs_one_line_naming_the_game_and_the_seat(
    said, ana, no_tasks, django_capture_on_commit_callbacks
):
    game = start_realtime([ana], bots=["easy"])
    before = len(said())

    with travel(at(31)), django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_clocks.apply().get() == 1

    lines = said()[before:]
    assert messages(lines) == [f"game {game.pk}: seat 0 timed out"]
    assert (lines[0][3].game, lines[0][3].seat) == (game.pk, 0)


@pytest.mark.django_db
def test_the_time_out_that_hands_a_seat_to_a_bot_says_so(
    said, ana, no_tasks, settings, django_capture_on_commit_callbacks
):
    settings.TIMEOUTS_BEFORE_BOT = 1
    game = start_realtime([ana], bots=["easy"])
    before = len(said())

    with travel(at(31)), django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_clocks.apply()

    assert messages(said()[before:]) == [
        f"game {game.pk}: seat 0 timed out",
        f"game {game.pk}: seat 0 timed out 1 times, a bot plays it to the end",
    ]


@pytest.mark.django_db
def test_a_player_away_past_the_hold_gets_a_bot_and_coming_back_sends_it_away(
    said, ana, no_tasks, django_capture_on_commit_callbacks
):
    game = start_realtime([ana], bots=["easy"], move_seconds=600)
    with travel(at(1)):
        presence.seat_connected(game.pk, 0)
        presence.seat_disconnected(game.pk, 0)
    before = len(said())

    with django_capture_on_commit_callbacks(execute=True):
        with travel(at(1 + django_settings.DISCONNECT_HOLD_SECONDS)):
            tasks.sweep_clocks.apply()
        with travel(at(200)):
            presence.seat_connected(game.pk, 0)

    lines = said()[before:]
    assert messages(lines) == [
        f"game {game.pk}: seat 0 is away, a bot plays for it until its player is back",
        f"game {game.pk}: seat 0 is back, its bot stands down",
    ]
    assert all((r.game, r.seat) == (game.pk, 0) for *_, r in lines)


# --- emails ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_sign_up_logs_its_confirmation_email_naming_the_user_not_the_address(said):
    response = Client().post(
        reverse("accounts:signup"),
        {
            "username": "newcomer",
            "email": "newcomer@example.com",
            "display_name": "",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )

    assert response.status_code == 302 and len(mail.outbox) == 1
    user = User.objects.get(username="newcomer")
    lines = said()
    assert messages(lines) == [f"email confirm sent to user {user.pk}"]
    assert lines[0][3].user == user.pk
    assert "newcomer@example.com" not in lines[0][2]


@pytest.mark.django_db
def test_a_password_reset_email_is_logged_like_the_others(said, ana):
    response = Client().post(reverse("accounts:password_reset"), {"email": ana.email})

    assert response.status_code == 302 and len(mail.outbox) == 1
    assert messages(said()) == [f"email password_reset sent to user {ana.pk}"]


@pytest.mark.django_db
def test_game_emails_sent_and_refused_by_the_smtp_server_are_one_line_each(said, four, settings):
    """Turn-by-turn: the three players who must decide and are away get "your turn"; the
    first try meets an SMTP server that is not there, the next one goes."""
    with travel(at(0)):
        game = make_started_game(four, pace=Game.Pace.TURN_BASED, turn_hours=24)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # the discard port: closed
    before = len(said())

    with travel(at(1)):
        tasks.sweep_clocks.apply()
    failed = said()[before:]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with travel(at(1 + settings.OUTBOX_RETRY_SECONDS + 1)):
        tasks.sweep_clocks.apply()
    sent = said()[before + len(failed) :]

    assert len(failed) == 1 and failed[0][1] == "ERROR"
    assert (
        failed[0][2].startswith("email turn to user ")
        and f"(game {game.pk}) failed" in (failed[0][2])
    )
    assert failed[0][3].game == game.pk
    recipients = {m.to[0] for m in mail.outbox}
    assert len(sent) == len(mail.outbox) >= 3
    for user in four:
        if user.email in recipients:
            assert f"email turn sent to user {user.pk} (game {game.pk})" in messages(sent)


# --- sockets -----------------------------------------------------------------------------


def handshake(path, *, origin=b"http://127.0.0.1:8000", cookie=None):
    headers = [(b"host", b"127.0.0.1:8000"), (b"origin", origin)]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))

    async def run():
        comm = WebsocketCommunicator(application, path, headers=headers)
        connected, code = await comm.connect(timeout=10)
        await comm.disconnect()
        return connected, code

    return async_to_sync(run)()


@pytest.mark.django_db(transaction=True)
def test_a_refused_socket_is_one_line_naming_the_game_and_the_user(said, four, no_tasks):
    """An outsider's socket to a game, another site's page opening one with a player's
    cookie, and a made-up path: each refused, each in one line."""
    game = make_started_game(four)
    ed = make_user("ed")
    outsider, player = Client(), Client()
    outsider.force_login(ed)
    player.force_login(four[1])
    before = len(said())

    assert handshake(f"/ws/games/{game.pk}/", cookie=outsider.cookies["sessionid"].value) == (
        False,
        4403,
    )
    assert (
        handshake(
            f"/ws/games/{game.pk}/",
            origin=b"http://evil.example",
            cookie=player.cookies["sessionid"].value,
        )[0]
        is False
    )
    assert handshake("/ws/nothing-here/")[0] is False

    lines = said()[before:]
    assert messages(lines) == [
        f"socket of game {game.pk} refused to user {ed.pk}",
        "socket refused: its Origin 'http://evil.example' is not in ALLOWED_HOSTS",
        "socket '/ws/nothing-here/' refused (4404): no such socket",
    ]
    assert (lines[0][3].game, lines[0][3].user) == (game.pk, ed.pk)


# --- LOG_FORMAT --------------------------------------------------------------------------


def _python(code, **env):
    environment = {k: v for k, v in os.environ.items() if k not in ("LOG_FORMAT", "LOG_LEVEL")}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_log_format_json_writes_one_json_object_a_line_with_the_games_and_users_fields():
    result = _python(
        "import django, logging\n"
        "django.setup()\n"
        "log = logging.getLogger('games.actions.decisions')\n"
        "log.info('game %s started: %s players', 7, 4, extra={'game': 7})\n"
        "log.warning('two\\nlines', extra={'user': 3})\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError:\n"
        "    log.exception('game %s failed', 7, extra={'game': 7})\n",
        LOG_FORMAT="json",
    )

    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert [(d["level"], d["logger"], d["message"]) for d in lines] == [
        ("INFO", "games.actions.decisions", "game 7 started: 4 players"),
        ("WARNING", "games.actions.decisions", "two\nlines"),
        ("ERROR", "games.actions.decisions", "game 7 failed"),
    ]
    assert (lines[0]["game"], lines[1]["user"], lines[2]["game"]) == (7, 3, 7)
    assert "ZeroDivisionError" in lines[2]["exc"]
    assert all(d["time"].endswith("+00:00") for d in lines)


def test_a_celery_worker_logs_in_the_sites_format():
    """The worker's own lines (Celery's) go through settings.LOGGING too: JSON, one a line."""
    env = {k: v for k, v in os.environ.items() if k not in ("LOG_LEVEL", "REDIS_URL")}
    env.update(LOG_FORMAT="json", CELERY_BROKER_URL="memory://localhost/")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-P",
            "solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    try:
        for line in worker.stderr:  # until the worker says it is ready, or ends
            lines.append(line)
            if "ready." in line:
                break
    finally:
        worker.terminate()
        worker.wait(timeout=30)

    parsed = [json.loads(line) for line in lines]
    assert parsed[-1]["logger"] == "celery.apps.worker", "".join(lines)
    assert parsed[-1]["message"].endswith("ready.") and parsed[-1]["level"] == "INFO"


def test_an_unknown_log_format_is_refused_in_words():
    result = _python("import django\ndjango.setup()\n", LOG_FORMAT="xml")

    assert result.returncode != 0
    assert "LOG_FORMAT is 'text' or 'json', not 'xml'" in result.stderr
