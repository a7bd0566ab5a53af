"""Nothing is passed over: on PostgreSQL a transaction that took an event id may commit after
one that took a later id, and a reader that moved its cursor past the later one would never
see the earlier (games.actions.account_events.settled). Real threads, real PostgreSQL."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games.actions import account_events
from tests.games.api.conftest import make_bot

pytestmark = pytest.mark.django_db(transaction=True)


def record(user, seat):
    account_events._record([account_events._event(user.pk, "invitation", None, seat=seat)])


def test_an_event_committed_after_a_later_numbered_one_is_not_passed_over(require_postgres):
    robo = make_bot("robo")
    recorded, release = threading.Event(), threading.Event()

    def slow_writer():
        try:
            with transaction.atomic():
                record(robo, 1)  # takes the lower id, commits last
                recorded.set()
                release.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    try:
        assert recorded.wait(10)
        record(robo, 2)  # the higher id, committed first
        rows, held = account_events.read(robo.pk, 0)
        # The later event waits while the earlier may still commit: a cursor moved past it
        # would never come back for the earlier one.
        assert (rows, held) == ([], True)
    finally:
        release.set()
        writer.join(10)

    rows, held = account_events.read(robo.pk, 0)
    assert [row.data["seat"] for row in rows] == [1, 2] and not held


def test_an_id_of_a_rolled_back_write_holds_nothing_back(require_postgres):
    robo = make_bot("robo")
    with pytest.raises(RuntimeError), transaction.atomic():
        record(robo, 1)
        raise RuntimeError("rolled back")
    record(robo, 2)

    # The missing id's transaction is over (no writer is open): nothing to wait for.
    rows, held = account_events.read(robo.pk, 0)
    assert [row.data["seat"] for row in rows] == [2] and not held


def test_a_missing_id_before_an_old_event_is_taken_as_settled(require_postgres):
    """A writer open elsewhere does not hold back an event recorded long enough ago."""
    robo = make_bot("robo")
    with pytest.raises(RuntimeError), transaction.atomic():
        record(robo, 1)
        raise RuntimeError("rolled back")
    record(robo, 2)
    recorded, release = threading.Event(), threading.Event()

    def other_writer():
        try:
            with transaction.atomic():
                record(make_bot("rita"), 3)
                recorded.set()
                release.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=other_writer)
    writer.start()
    try:
        assert recorded.wait(10)
        assert account_events.read(robo.pk, 0) == ([], True)
        later = timezone.now() + timedelta(seconds=account_events.SETTLE_SECONDS + 1)
        rows, held = account_events.read(robo.pk, 0, now=later)
        assert [row.data["seat"] for row in rows] == [2] and not held
    finally:
        release.set()
        writer.join(10)
