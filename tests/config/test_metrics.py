"""/metrics (games/metrics.py, config/health.py): each family moves when its event happens,
through the site's own path, and is served only to this machine or with METRICS_TOKEN."""

import json
import socket
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from celery.contrib.testing.worker import start_worker
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from accounts import bot_tokens
from config.celery import app as celery_app
from config.celery import heartbeat_task
from games import store, tasks
from games.actions import outbox
from games.models import EmailOutbox, Game
from games.routing import websocket_urlpatterns
from lobby import services as lobby
from tests.config.metrics_support import Moved, scrape, value
from tests.conftest import make_started_game, make_table, make_user
from tests.games.clock_support import at, travel

pytestmark = pytest.mark.django_db

application = URLRouter(websocket_urlpatterns)


def post_move(client, user, game, action, key):
    client.force_login(user)
    return client.post(
        reverse("games:act", args=[game.pk]),
        {"action": json.dumps(action), "key": key},
        headers={"HX-Request": "true"},
    )


# --- Who may read them -------------------------------------------------------------------------


def test_metrics_are_refused_to_another_address_without_the_token_and_served_with_it(
    client, settings
):
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    elsewhere = {"REMOTE_ADDR": "203.0.113.9"}

    refused = client.get("/metrics", **elsewhere)
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token", **elsewhere)
    served = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape-token", **elsewhere)

    assert (refused.status_code, wrong.status_code, served.status_code) == (403, 403, 200)
    assert b"wct_decisions_applied" not in refused.content + wrong.content
    assert b"# TYPE wct_decisions_applied_total counter" in served.content


def test_metrics_are_served_to_this_machine_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""

    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 403


@pytest.mark.parametrize("header", ["HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP"])
def test_a_request_through_a_proxy_claiming_to_be_this_machine_is_refused(client, settings, header):
    """Behind nginx every request comes from 127.0.0.1, and Daphne's --proxy-headers takes
    the client's address from the first X-Forwarded-For entry, which the client may have
    written itself ("X-Forwarded-For: 127.0.0.1"): a proxied request never counts as local."""
    settings.METRICS_TOKEN = ""

    response = client.get("/metrics", REMOTE_ADDR="127.0.0.1", **{header: "127.0.0.1"})

    assert response.status_code == 403


# --- Each family moves with its event ------------------------------------------------------------


def test_an_applied_decision_is_counted_with_its_time(client, four):
    game = make_started_game(four)
    action = store.load_state(game).legal_actions(1)[0]
    moved = Moved(
        client,
        ("wct_decisions_applied_total", {"actor": "person"}),
        ("wct_decision_seconds_count", {"actor": "person"}),
        ("wct_decisions_applied_total", {"actor": "bot"}),
    )

    assert post_move(client, four[1], game, action, "k1").status_code == 200
    # The same form again: the key's first result, nothing written, nothing counted.
    assert post_move(client, four[1], game, action, "k1").status_code == 200

    assert moved() == [1, 1, 0]


def test_refused_decisions_are_counted_by_reason(client, four, ed):
    game = make_started_game(four)
    moved = Moved(
        client,
        ("wct_decisions_refused_total", {"reason": "illegal"}),
        ("wct_decisions_refused_total", {"reason": "key_reused"}),
        ("wct_decisions_applied_total", {"actor": "person"}),
    )
    legal = store.load_state(game).legal_actions(1)

    assert post_move(client, four[1], game, {"type": "draw"}, "a").status_code == 400
    assert post_move(client, four[1], game, legal[0], "b").status_code == 200
    assert post_move(client, four[1], game, legal[1], "b").status_code == 409  # key reused

    assert moved() == [1, 1, 1]


@pytest.mark.django_db(transaction=True)
def test_a_push_to_an_open_socket_is_timed_and_measured(four):
    game = make_started_game(four)
    client = Client()
    moved = Moved(client, ("wct_push_seconds_count", {}), ("wct_push_bytes_count", {}))
    before_bytes = value(moved.before, "wct_push_bytes_sum")
    action = store.load_state(game).legal_actions(3)[0]

    async def scenario():
        comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
        comm.scope["user"] = four[1]
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from(timeout=5))["type"] == "hello"
        await sync_to_async(post_move)(Client(), four[3], game, action, "push")
        push = await comm.receive_json_from(timeout=5)
        assert push["type"] == "fragments"
        await comm.disconnect()
        return push["html"]

    html = async_to_sync(scenario)()

    assert moved() == [1, 1]
    assert value(scrape(client), "wct_push_bytes_sum") - before_bytes >= len(html.encode())


@pytest.mark.django_db(transaction=True)
def test_open_sockets_are_counted_by_kind_while_open(ana):
    robo = make_user("robo", is_bot=True, display_name="Robo")
    raw = bot_tokens.issue(robo, "test")[1]
    game = make_started_game([ana, robo], bot_accounts=True, bots=["easy"])
    client = Client()
    kinds = ("table", "site", "bot_stream")
    wanted = [("wct_sockets_open", {"kind": kind}) for kind in kinds]

    async def opened(path, user=None, headers=()):
        comm = WebsocketCommunicator(AuthMiddlewareStack(application), path, headers=list(headers))
        if user is not None:
            comm.scope["user"] = user
        assert (await comm.connect())[0]
        await comm.receive_json_from(timeout=5)  # hello, the waiting games, the state
        return comm

    async def scenario():
        moved = await sync_to_async(Moved)(client, *wanted)
        table = await opened(f"/ws/games/{game.pk}/", ana)
        site = await opened("/ws/me/", ana)
        stream = await opened(
            f"/api/bot/games/{game.pk}/stream",
            headers=[(b"authorization", f"Bearer {raw}".encode())],
        )
        while_open = await sync_to_async(moved)()
        for comm in (table, site, stream):
            await comm.disconnect()
        return while_open, await sync_to_async(moved)()

    while_open, after = async_to_sync(scenario)()

    assert while_open == [1, 1, 1]
    assert after == [0, 0, 0]


def test_a_bots_decision_is_timed_by_level(client, ana):
    game = make_started_game([ana], players=4, bots=["easy", "hard", "normal"])
    moved = Moved(
        client,
        ("wct_bot_decision_seconds_count", {"level": "hard"}),
        ("wct_decisions_applied_total", {"actor": "bot"}),
    )

    assert tasks.play_bot(game.pk, 2, 1) == "played"

    assert moved() == [1, 1]


def test_outbox_emails_are_counted_sent_and_failed(client, four, settings):
    with travel(at(0)):
        game = make_started_game(four, pace=Game.Pace.TURN_BASED, turn_hours=12)
    moved = Moved(
        client,
        ("wct_emails_total", {"kind": "turn", "result": "sent"}),
        ("wct_emails_total", {"kind": "turn", "result": "failed"}),
    )

    with travel(at(1)):
        assert outbox.deliver_outbox(game_id=game.pk) == 4
    assert moved() == [4, 0]

    # An SMTP server that cannot be reached: the row is given back for the retry.
    EmailOutbox.objects.filter(game=game).update(sent_at=None, skipped="")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed, 2
    with travel(at(2)):
        assert outbox.deliver_outbox(game_id=game.pk) == 0
    assert moved() == [4, 1]


def test_games_running_are_counted_by_pace_from_their_start(client, ana):
    table = make_table(ana, players=4, pace=Game.Pace.TURN_BASED, turn_hours=24)
    for number in (1, 2, 3):
        lobby.add_bot(table.pk, ana, number, "easy")
    moved = Moved(
        client, ("wct_games_running", {"pace": "turn"}), ("wct_games_running", {"pace": "realtime"})
    )
    client.force_login(ana)

    assert client.post(reverse("lobby:start", args=[table.pk])).status_code == 302

    assert moved() == [1, 0]
    assert value(scrape(client), "wct_scrape_failed", part="games") == 0


def test_tasks_waiting_in_the_queue_are_counted(client):
    queue = celery_app.conf.task_default_queue
    before = value(scrape(client), "wct_celery_queue_depth", queue=queue)
    try:
        for _ in range(3):
            heartbeat_task.delay()

        assert value(scrape(client), "wct_celery_queue_depth", queue=queue) - before == 3
    finally:
        celery_app.control.purge()


@pytest.mark.django_db(transaction=True)
def test_a_task_a_real_worker_runs_is_timed_by_task(client):
    """A real Celery worker (the settings' broker: Redis in CI) runs the heartbeat task."""
    name = "config.celery.heartbeat"
    moved = Moved(client, ("wct_celery_task_seconds_count", {"task": name, "state": "SUCCESS"}))
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        heartbeat_task.delay()
        deadline = time.monotonic() + 60
        while client.get("/readyz").json()["checks"]["worker"] != "ok":
            assert time.monotonic() < deadline, "the worker never ran the heartbeat task"
            time.sleep(0.05)
        while moved() == [0]:  # the worker counts once the task has returned
            assert time.monotonic() < deadline, "the task's time was never counted"
            time.sleep(0.05)

    assert moved() == [1]
