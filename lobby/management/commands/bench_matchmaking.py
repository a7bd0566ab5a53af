"""Measures Find a game's matcher: what a search costs the person who makes it, and what one
run of the matcher costs with a long queue.

Two figures, each over the database DATABASE_URL configures (run it on PostgreSQL for the
site's figure; the embedded SQLite writes one transaction at a time anyway):

- "seat": `--people` searches for 4 players, made one after another as the find page
  makes them (`start_search`, whose commit runs the matcher): the wall time of each call,
  the fourth of each four seating, dealing and starting its table. Median and 95th
  percentile of the calls that seated a table and of those that did not.
- "queue": `--queue` rated searches that cannot be seated together (their ratings far
  apart, so the matcher weighs each against all the others and seats nobody), then one run
  of `match()`: its wall time and SQL statements, the cost beat's sweep pays every two
  seconds with that many people waiting.

The accounts, searches and games it makes are named `benchmm-<run>-...` and deleted at
the end.
"""

import statistics
import time
import uuid

from django.core.management.base import BaseCommand
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.models import Game
from lobby import matchmaking
from lobby.models import Search


def _ms(seconds):
    return round(seconds * 1000, 1)


def _summary(samples):
    if not samples:
        return "none"
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {_ms(statistics.median(ordered))} ms, p95 {_ms(p95)} ms (n={len(ordered)})"


class Command(BaseCommand):
    help = "Times Find a game: a search's own cost, and one matcher run over a long queue."

    def add_arguments(self, parser):
        parser.add_argument("--people", type=int, default=40, help="searches seated by fours")
        parser.add_argument("--queue", type=int, default=300, help="searches left waiting")

    def handle(self, *args, people, queue, **options):
        run = uuid.uuid4().hex[:6]
        made = []
        try:
            self._seat(run, people, made)
            self._queue(run, queue, made)
        finally:
            games = Game.objects.filter(seats__user__in=made).distinct()
            games.delete()
            Search.objects.filter(user__in=made).delete()
            User.objects.filter(pk__in=[u.pk for u in made]).delete()

    def _user(self, run, n, made):
        name = f"benchmm-{run}-{n}"
        user = User.objects.create_user(
            name, email=f"{name}@example.invalid", email_confirmed=True, password=None
        )
        made.append(user)
        return user

    def _seat(self, run, people, made):
        seated, waiting = [], []
        for n in range(people):
            user = self._user(run, f"s{n}", made)
            started = time.perf_counter()
            search = matchmaking.start_search(
                user,
                players=4,
                pace=Search.REALTIME,
                move_seconds=30,
                turn_hours=24,
                rated=False,
                bots_after=None,
            )
            took = time.perf_counter() - started
            search.refresh_from_db()
            (seated if search.status == Search.Status.MATCHED else waiting).append(took)
        tables = Game.objects.filter(seats__user__in=made).distinct().count()
        self.stdout.write(
            f"seat: {people} searches for 4 players, {tables} tables dealt and started\n"
            f"  a search that seated its table: {_summary(seated)}\n"
            f"  a search that waited: {_summary(waiting)}"
        )

    def _queue(self, run, queue, made):
        for n in range(queue):
            user = self._user(run, f"q{n}", made)
            # One rated bucket whose ratings lie 250 points apart, past the gap: the run
            # weighs every anchor against every other search, and seats no one.
            Search.objects.create(
                user=user,
                players=4,
                pace=Search.REALTIME,
                move_seconds=30,
                rated=True,
                rating=1000 + 250 * n,
            )
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            games = matchmaking.match()
            took = time.perf_counter() - started
        self.stdout.write(
            f"queue: one matcher run over {queue} waiting searches: {_ms(took)} ms, "
            f"{len(queries)} SQL statements, {len(games)} tables"
        )
