"""Find a game's races, on PostgreSQL with real threads and two processes: nobody is seated
twice or at two tables, nobody is lost from the queue, and a cancel and a match never both
win (lobby.matchmaking: matcher runs take turns under an advisory lock, open searches are
locked FOR UPDATE SKIP LOCKED, one open search per person by a unique constraint).

SQLite has no row locks, so there these races could not lose: the tests skip.
"""

import os
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection

from games.models import Game, Seat
from lobby import matchmaking
from lobby.models import Search
from tests.conftest import make_user, race
from tests.faults.support import database_url

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("require_postgres"),
]

REALTIME = {"pace": "realtime", "move_seconds": 30, "turn_hours": 24}


def queue(users, **options):
    return [
        matchmaking.start_search(
            user, players=4, rated=False, bots_after=None, **{**REALTIME, **options}
        )
        for user in users
    ]


def no_one_seated_twice(someone=True):
    """Each person sits at one seat of one table, and each matched search names that table
    (and, unless `someone` is False, somebody was seated at all)."""
    seats = Counter(Seat.objects.filter(user__isnull=False).values_list("user_id", flat=True))
    assert seats or not someone
    assert not seats or max(seats.values()) == 1, seats
    for s in Search.objects.filter(status=Search.Status.MATCHED):
        assert Seat.objects.filter(game_id=s.game_id, user_id=s.user_id).exists()
    assert not Search.objects.filter(status=Search.Status.MATCHED, game__isnull=True).exists()


def late(call, seconds=0.005):
    def run():
        time.sleep(seconds)
        return call()

    return run


@pytest.fixture
def no_matcher_on_commit(monkeypatch):
    """The searches queue up without the matcher that runs after each one, so that the
    test's matchers race over the whole queue."""
    monkeypatch.setattr(matchmaking, "match_soon", lambda: None)


def test_eight_matchers_at_once_seat_eight_people_at_two_tables_each_once(no_matcher_on_commit):
    users = [make_user(f"p{i}") for i in range(8)]
    queue(users)
    results = race([matchmaking.match] * 8)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(len(r) for r in results) == 2
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 2
    no_one_seated_twice()
    assert not Search.objects.open().exists()  # nobody lost from the queue


def test_a_cancel_racing_the_matcher_either_cancels_or_seats_never_both(no_matcher_on_commit):
    outcomes = Counter()
    for round_ in range(12):
        users = [make_user(f"r{round_}-{i}") for i in range(4)]
        (mine, *_) = queue(users)
        # Either may reach the row first: each round gives the other a head start of a few
        # milliseconds, so that both orders are tried, and the two still overlap.
        match, cancel = (
            matchmaking.match,
            lambda u=users[0], s=mine: matchmaking.cancel_search(u, s.pk),
        )
        if round_ % 2:
            cancel = late(cancel)
        else:
            match = late(match)
        _, answer = race([match, cancel])
        mine.refresh_from_db()
        seated = Seat.objects.filter(user=users[0]).exists()
        # What the cancel answered is what happened: a person told "cancelled" is not seated.
        assert answer.status == mine.status
        assert (mine.status, seated) in {("cancelled", False), ("matched", True)}
        outcomes[mine.status] += 1
        # What the matcher left open waits for the next run; nobody is seated without a match.
        for user in users[1:]:
            status = Search.objects.get(user=user).status
            assert status in {"open", "matched"}
            assert (status == "matched") == Seat.objects.filter(user=user).exists()
        Search.objects.open().update(status=Search.Status.CANCELLED)
    no_one_seated_twice(someone=False)


def test_two_submits_at_once_by_one_person_leave_one_open_search():
    user = make_user("double")
    results = race([lambda: queue([user])] * 2)
    assert Search.objects.open().filter(user=user).count() == 1
    refused = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(r, matchmaking.SearchRefused) for r in refused), refused


def test_two_friends_racing_for_one_link_make_one_pair():
    host, a, b = (make_user(n) for n in ("host", "a", "b"))
    (mine,) = queue([host])
    results = race(
        [
            lambda: matchmaking.join_search(a, mine.token),
            lambda: matchmaking.join_search(b, mine.token),
        ]
    )
    assert sum(isinstance(r, matchmaking.SearchRefused) for r in results) == 1
    mine.refresh_from_db()
    partner = Search.objects.get(pk=mine.partner_id)
    assert partner.partner_id == mine.pk
    assert Search.objects.filter(partner__isnull=False).count() == 2


# --- Two processes ------------------------------------------------------------------------------

# One web process's part: it starts its people's searches one by one (each runs the matcher
# as it commits, as the find form does), keeps them alive, then runs the sweep a while, as
# beat does.
PROCESS = textwrap.dedent(
    """
    import random, sys, time
    import django
    django.setup()
    from django.db import connection
    from accounts.models import User
    from lobby import matchmaking
    from lobby.models import Search

    ids = [int(n) for n in sys.argv[1].split(",")]
    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.005)
    for user in User.objects.filter(pk__in=ids).order_by("?"):
        matchmaking.start_search(user, players=4, pace="realtime", move_seconds=30,
                                 turn_hours=24, rated=False, bots_after=None)
        time.sleep(random.random() / 50)
    end = time.time() + 2
    while time.time() < end:
        for s in Search.objects.open().filter(user_id__in=ids):
            matchmaking.page_here(s.user_id, s.pk)
        matchmaking.sweep()
    connection.close()
    """
)


def test_two_web_processes_and_threads_matching_at_once_seat_nobody_twice():
    users = [make_user(f"w{i}") for i in range(24)]
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_TASK_ALWAYS_EAGER",)}
    env.update(DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE="config.settings")
    env.pop("REDIS_URL", None)

    start = time.time() + 4  # both processes have imported the site by then
    halves = [users[0::2], users[1::2]]
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS, ",".join(str(u.pk) for u in half), str(start)],
            cwd=settings.BASE_DIR,
            env=env,
            stderr=subprocess.PIPE,
        )
        for half in halves
    ]
    while time.time() < start:
        time.sleep(0.01)
    # This process's matchers race theirs meanwhile.
    for _ in range(10):
        results = race([matchmaking.match] * 3)
        assert not [r for r in results if isinstance(r, Exception)], results
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()[-3000:]
    connection.close()
    no_one_seated_twice()
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 6
    assert Search.objects.filter(status=Search.Status.MATCHED).count() == 24
