"""Personas and plain make_* helpers shared by the tests.

Ana hosts; Bo, Cy and Di join; Ed is an outsider who never sits down.
"""

import itertools
import os
import re
import socket
import threading
import uuid
import zlib
from pathlib import Path

import pytest
from channels.layers import channel_layers
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.cache.backends import locmem
from django.core.cache.backends.redis import RedisCache
from django.db import connection

from accounts.models import User
from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from games.push import changes
from lobby import services as lobby

# Bots move at once in the tests (and in the workers and servers they start), unless a test
# of the bots' human pace sets it: a game of bots at a person's pace takes minutes.
os.environ["BOT_PACE_MS"] = "0"


# The fault tests restart servers, kill processes and judge each recovery against a window of
# seconds: `make test` runs them after the rest, one at a time, with the machine to
# themselves (the rest run in parallel).
ALONE = (Path(__file__).parent / "faults", Path(__file__).parent / "e2e" / "faults")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if any(item.path.is_relative_to(folder) for folder in ALONE):
            item.add_marker(pytest.mark.alone)


@pytest.fixture(autouse=True)
def bots_move_at_once(settings):
    settings.BOT_PACE_MS = 0


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A channel layer of its own for each test. channels keeps one layer a process, and the
    Redis layer keeps a lock bound to the event loop it last read on: a test whose consumer
    was cancelled in the middle of a read leaves that lock held on a loop that is gone, and
    the next test to read the layer fails ("bound to a different event loop"). On several
    processes, which test comes before which changes from run to run."""
    channel_layers.backends = {}


def clear_the_cache():
    """Empties what the Django cache holds for the site: every in-process store (those a
    test configures under a LOCATION of its own too), and on Redis the keys under this
    site's KEY_PREFIX only. RedisCache.clear() would FLUSHDB, and that database also holds
    the channel layer and Celery's queues (of servers a test may have started)."""
    for alias in django_settings.CACHES:
        backend = caches[alias]
        if isinstance(backend, RedisCache):
            if not backend.key_prefix:
                pytest.fail(
                    "The tests clear the Redis cache by its KEY_PREFIX: set "
                    "CACHE_KEY_PREFIX to something not empty."
                )
            client = backend._cache.get_client(None, write=True)
            pattern = re.sub(r"([*?\[\]\\])", r"\\\1", backend.key_prefix) + ":*"
            keys = list(client.scan_iter(match=pattern, count=1000))
            if keys:
                client.delete(*keys)
    for name in list(locmem._caches):
        locmem.LocMemCache(name, {}).clear()


@pytest.fixture(autouse=True)
def fresh_cache():
    """Rate-limit counts and cached answers left by one test must not decide another's:
    the database is rolled back between tests (and SQLite hands out the same ids again),
    the cache is not."""
    clear_the_cache()


PASSWORD = "wild-cards-correct-horse-9"
# Fixed seeds, so that a failing test deals the same cards when run again: each test's games
# are dealt from seeds of its own, taken from its name, not from how many games the tests
# before it on its process made (which pytest-xdist changes from run to run).
_seeds = itertools.count(20240)


@pytest.fixture(autouse=True)
def deals_of_its_own(request):
    global _seeds
    _seeds = itertools.count(zlib.crc32(request.node.nodeid.encode()) % 10_000_000 * 100)


def make_user(username, **fields):
    fields.setdefault("email", f"{username}@example.com")
    return User.objects.create_user(username, password=PASSWORD, **fields)


def race(calls):
    """Runs the callables at once in threads; returns each one's result or exception."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what happened
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def make_table(host, **options):
    return lobby.create_table(host, **options)


def make_started_game(users, *, bots=(), **options):
    """A started table: users[0] hosts at seat 0, users fill the next seats, bots the rest."""
    players = options.setdefault("players", 4)
    options.setdefault("seed", next(_seeds))
    game = make_table(users[0], **options)
    for number, user in enumerate(users[1:], start=1):
        lobby.take_seat(game.pk, user, number)
    levels = itertools.cycle(bots or ["normal"])
    for number in range(len(users), players):
        lobby.add_bot(game.pk, users[0], number, next(levels))
    lobby.start_table(game.pk, users[0])
    game.refresh_from_db()
    return game


def pending(game):
    game.refresh_from_db()
    return list(game.waiting_on)


def play_one(game, actor=GameEvent.Actor.PERSON):
    """Applies the table's plain move for the first seat with a decision."""
    game.refresh_from_db()
    state = store.load_state(game)
    seat = game.waiting_on[0]
    return decisions.apply_decision(
        game.pk, seat, state.auto_action(seat), actor, idempotency_key=uuid.uuid4().hex
    )


def play_until(game, seq):
    """Plays plain moves until event `seq` is recorded (or the game ends)."""
    while True:
        game.refresh_from_db()
        if game.last_seq >= seq or game.status != Game.Status.ACTIVE:
            return game
        play_one(game)


@pytest.fixture
def ana(db):
    return make_user("ana", display_name="Ana")


@pytest.fixture
def bo(db):
    return make_user("bo", display_name="Bo")


@pytest.fixture
def cy(db):
    return make_user("cy")


@pytest.fixture
def di(db):
    return make_user("di")


@pytest.fixture
def ed(db):
    return make_user("ed")


@pytest.fixture
def four(ana, bo, cy, di):
    return [ana, bo, cy, di]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's, plus: psycopg's pool is closed before the test database is dropped.
    Its idle connections were the "other session" that made the drop fail with a warning."""
    yield
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.close()
    for conn in connections.all():
        if conn.alias in getattr(conn, "_connection_pools", {}):
            conn.close_pool()


@pytest.fixture(autouse=True)
def _no_remembered_pushes():
    """Each test's pushes start from nothing remembered (games.push.changes): a game id
    used again by a later test must not be taken for the same game."""
    changes.forget()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _isolated_cache(settings):
    """Each test gets its own cache space (rate limits), on Redis when it is configured."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    if django_settings.REDIS_URL:
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": django_settings.REDIS_URL,
                "KEY_PREFIX": prefix,
            }
        }
    else:
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": prefix,
            }
        }


@pytest.fixture
def require_postgres():
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL (set DATABASE_URL=postgres://...): SQLite has no row locks, "
            "so a race test there could not lose"
        )


@pytest.fixture
def smtp_server():
    """A real SMTP server (aiosmtpd) on a free port: (port, list of received envelopes)."""
    from aiosmtpd.controller import Controller

    received = []

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            received.append(envelope)
            return "250 OK"

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, received
    finally:
        controller.stop()
