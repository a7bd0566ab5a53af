"""Measures apply_decision: ms per applied decision early (move 10) and late (move 2000).

Only the call to apply_decision is timed; choosing the move is not. "core" is
the transaction (lock, load, engine, append, snapshot, commit); "notify" is
the after-commit channel-layer send that the same call also pays. Runs
against whatever DATABASE_URL / REDIS_URL configure.
"""

import statistics
import time
import uuid

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import notify, services
from games.models import Game
from lobby import services as lobby


class Command(BaseCommand):
    help = "Benchmarks apply_decision at move 10 and at move 2000 of one long game."

    def add_arguments(self, parser):
        parser.add_argument("--early", type=int, default=10)
        parser.add_argument("--late", type=int, default=2000)
        parser.add_argument("--samples", type=int, default=100)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--keep", action="store_true", help="keep the game afterwards")

    def handle(self, *args, early, late, samples, seed, keep, **options):
        users = []
        for n in range(4):
            user, _ = User.objects.get_or_create(
                username=f"bench{n}", defaults={"email": f"bench{n}@example.invalid"}
            )
            users.append(user)
        # A target of 5000 points keeps one game going for thousands of moves.
        game = lobby.create_table(users[0], players=4, target_score=5000, seed=seed)
        for n in range(1, 4):
            lobby.take_seat(game.pk, users[n], n)
        lobby.start_table(game.pk, users[0])

        timings = {early: [], late: []}
        notify_timings = {early: [], late: []}
        spent_notifying = []
        real_notify = notify.game_changed

        def timed_notify(*args):
            started = time.perf_counter()
            real_notify(*args)
            spent_notifying.append(time.perf_counter() - started)

        # services binds the function when the callback is registered.
        notify.game_changed = timed_notify
        queries = {}
        windows = {early: range(early, early + samples), late: range(late, late + samples)}
        move = 1
        try:
            while move < late + samples:
                game = Game.objects.select_related("snapshot").get(pk=game.pk)
                if game.status != Game.Status.ACTIVE:
                    self.stderr.write(f"the game ended at move {move}; use another --seed")
                    break
                state = services.load_state(game)
                seat = game.waiting_on[0]
                action = state.auto_action(seat)
                window = next((w for w, moves in windows.items() if move in moves), None)
                connection.queries_log.clear()
                spent_notifying.clear()
                with CaptureQueriesContext(connection) as captured:
                    started = time.perf_counter()
                    services.apply_decision(game.pk, seat, action, "person",
                                            idempotency_key=uuid.uuid4().hex)
                    elapsed = time.perf_counter() - started
                if window is not None:
                    notified = sum(spent_notifying)
                    timings[window].append((elapsed - notified) * 1000)
                    notify_timings[window].append(notified * 1000)
                    queries.setdefault(window, set()).add(len(captured))
                move += 1
        finally:
            notify.game_changed = real_notify
            if not keep:
                Game.objects.filter(pk=game.pk).delete()

        vendor = connection.vendor
        layer = "redis" if settings.REDIS_URL else "in-memory"
        self.stdout.write(
            f"apply_decision on {vendor} ({layer} channel layer), {samples} decisions per point:"
        )
        for at, values in timings.items():
            if not values:
                continue
            self.stdout.write(
                f"  from move {at}: core {_summary(values)}; notify {_summary(notify_timings[at])}; "
                f"SQL statements {sorted(queries[at])}"
            )


def _summary(values):
    values = sorted(values)
    p95 = values[max(0, int(len(values) * 0.95) - 1)]
    return f"median {statistics.median(values):.2f} ms, p95 {p95:.2f} ms"
