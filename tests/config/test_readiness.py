"""/healthz and /readyz (config/health.py): ready only while the database and the channel
layer answer and a Celery worker and beat have shown a heartbeat recently, and 503 naming
what is wrong otherwise; neither writes a log line per probe."""

import logging
import socket

import pytest
import time_machine
from django.db import connection

from config import health
from config.celery import BeatScheduler, heartbeat_task
from config.celery import app as celery_app

pytestmark = pytest.mark.django_db


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def beat_ticks(tmp_path):
    """One tick of the site's beat scheduler, as `celery beat` runs it."""
    BeatScheduler(app=celery_app, schedule_filename=str(tmp_path / "beat")).tick()


@pytest.fixture
def heartbeats(tmp_path):
    """A worker has run its heartbeat task and beat has ticked, just now."""
    heartbeat_task()
    beat_ticks(tmp_path)


def readyz(client):
    response = client.get("/readyz")
    return response.status_code, response.json()["checks"]


def test_healthz_answers_while_the_process_serves_even_asked_by_an_address_not_in_allowed_hosts(
    client, settings
):
    """A load balancer asks each Daphne by its address, which ALLOWED_HOSTS does not list,
    and over plain HTTP while the site redirects to HTTPS."""
    settings.ALLOWED_HOSTS = ["cards.example.org"]
    settings.SECURE_SSL_REDIRECT = True

    response = client.get("/healthz", HTTP_HOST="10.0.0.7:8001")

    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert client.get("/", HTTP_HOST="10.0.0.7:8001").status_code == 400  # the rest still checks


def test_not_ready_until_a_worker_and_beat_have_shown_a_heartbeat(client, tmp_path):
    status, checks = readyz(client)
    assert status == 503
    assert checks == {
        "database": "ok",
        "channel_layer": "ok",
        "worker": "no heartbeat recorded",
        "beat": "no heartbeat recorded",
    }

    heartbeat_task()  # what a worker runs when beat sends it
    status, checks = readyz(client)
    assert (status, checks["worker"], checks["beat"]) == (503, "ok", "no heartbeat recorded")

    beat_ticks(tmp_path)
    assert readyz(client) == (
        200,
        {"database": "ok", "channel_layer": "ok", "worker": "ok", "beat": "ok"},
    )


def test_a_worker_silent_longer_than_the_limit_makes_it_not_ready_until_it_runs_again(
    client, settings, tmp_path
):
    settings.HEARTBEAT_MAX_AGE = 60
    with time_machine.travel("2026-03-02 09:00:00 +0000", tick=False) as clock:
        heartbeat_task()
        beat_ticks(tmp_path)
        assert readyz(client)[0] == 200

        clock.shift(61)
        beat_ticks(tmp_path)  # beat goes on; the worker is silent
        status, checks = readyz(client)
        assert status == 503
        assert checks["worker"] == "no heartbeat for 61 s (at most 60 s)"
        assert checks["beat"] == "ok"

        heartbeat_task()
        assert readyz(client)[0] == 200


def test_the_database_down_makes_it_not_ready_and_back_up_ready_again(
    client, heartbeats, monkeypatch
):
    assert readyz(client)[0] == 200
    # The connections the probe opens are made from these settings; this test's own stays
    # open on the real database.
    if connection.vendor == "postgresql":
        monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        monkeypatch.setitem(connection.settings_dict, "PORT", str(closed_port()))
    else:
        monkeypatch.setitem(connection.settings_dict, "NAME", "/nonexistent/wct/db.sqlite3")

    status, checks = readyz(client)
    assert status == 503
    assert checks["database"].startswith("no answer: ")
    assert (checks["channel_layer"], checks["worker"], checks["beat"]) == ("ok", "ok", "ok")

    monkeypatch.undo()
    assert readyz(client)[0] == 200


def test_a_channel_layer_that_does_not_answer_makes_it_not_ready(client, heartbeats, settings):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.ChannelLayer",
            "CONFIG": {"hosts": [{"address": f"redis://127.0.0.1:{closed_port()}/0"}]},
        }
    }

    status, checks = readyz(client)

    assert status == 503
    assert checks["channel_layer"].startswith("no answer: ")
    assert checks["database"] == "ok"


def test_probes_write_no_log_line_each_only_a_change_of_readiness(
    client, tmp_path, caplog, monkeypatch
):
    """A load balancer asks every few seconds: Django's request log would write a line for
    each 503, and a refused /metrics a line for each 403."""
    monkeypatch.setattr(health, "_was_ready", None)  # a process just started
    caplog.set_level(logging.DEBUG)
    for _ in range(5):
        assert client.get("/readyz").status_code == 503
        assert client.get("/healthz").status_code == 200
        assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 403
    heartbeat_task()
    beat_ticks(tmp_path)
    for _ in range(5):
        assert client.get("/readyz").status_code == 200

    lines = [
        (r.name, r.levelname, r.getMessage())
        for r in caplog.records
        if r.name.startswith(("django", "config.health"))
    ]
    assert lines == [
        (
            "config.health",
            "WARNING",
            "not ready: worker: no heartbeat recorded; beat: no heartbeat recorded",
        ),
        ("config.health", "INFO", "ready again"),
    ]
