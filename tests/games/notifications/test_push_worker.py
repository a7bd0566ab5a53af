"""The whole path with a real Celery worker and beat (subprocesses, on Redis and
PostgreSQL, as tests/games/tasks/test_realtime_clock.py starts them): nothing in this
process sends a push. The writes commit here; the tasks they send on commit reach the
worker through Redis, and the worker signs, encrypts and posts to the local push service
in this process, which decrypts what arrives."""

import time

import pytest
from django.db import transaction

from accounts import vapid
from accounts.models import PushSubscription
from games.actions import webpush
from games.models import Game
from tests.conftest import make_started_game
from tests.games.notifications.conftest import KEY, SITE
from tests.games.notifications.push_service import b64url
from tests.games.tasks.test_realtime_clock import (  # noqa: F401 - fixtures
    own_queue_fixture,
    worker_and_beat_fixture,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(name="push_env")
def push_env_fixture(monkeypatch, push_service):
    """What the worker subprocesses need to send to the local push service: the same key
    and the same allowances as this process (push_service sets them here)."""
    monkeypatch.setenv("VAPID_PRIVATE_KEY", KEY)
    monkeypatch.setenv("VAPID_SUBJECT", "mailto:admin@cards.example")
    monkeypatch.setenv("WEBPUSH_ALLOW_HTTP", "true")
    monkeypatch.setenv("WEBPUSH_HOSTS", "127.0.0.1")
    monkeypatch.setenv("SITE_URL", SITE)
    return push_service


def device_of(user, service):
    browser = service.browser(vapid.public_key())
    PushSubscription.objects.create(
        user=user, endpoint=browser.endpoint, p256dh=browser.p256dh, auth=b64url(browser.auth)
    )
    return browser


def wait_for(service, browser, count, seconds=30):
    end = time.monotonic() + seconds
    while len(service.messages(browser)) < count:
        assert time.monotonic() < end, (service.messages(), service.refused)
        time.sleep(0.1)
    return service.messages(browser)


def test_a_worker_delivers_your_turn_and_game_starting(push_env, worker_and_beat, four):
    service = push_env
    ana, bo = four[0], four[1]
    phone, bo_phone = device_of(ana, service), device_of(bo, service)

    game = make_started_game(four, pace=Game.Pace.TURN_BASED, turn_hours=24)
    (message,) = wait_for(service, phone, 1)
    assert message["title"] == f"Your turn at table {game.pk}"
    assert message["url"] == f"{SITE}/games/{game.pk}/"

    found = make_started_game(four, pace=Game.Pace.REALTIME)
    with transaction.atomic():
        webpush.table_found(found, [bo.pk])
    messages = wait_for(service, bo_phone, 2)
    assert messages[-1] == {
        "title": "Your game is starting",
        "body": f"You are seated at table {found.pk} (4 players, real time).",
        "url": f"{SITE}/games/{found.pk}/",
        "tag": f"game-{found.pk}",
    }
