"""Measures apply_decision: ms per applied decision early (move 10) and late (move 2000).

Only the call to apply_decision is timed (lock, load, engine, append,
snapshot, commit and the after-commit notification); choosing the move is
not. Runs against whatever DATABASE_URL / REDIS_URL configure.
"""

import statistics
import time
import uuid

from django.core.management.base import BaseCommand
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import services
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
                with CaptureQueriesContext(connection) as captured:
                    started = time.perf_counter()
                    services.apply_decision(game.pk, seat, action, "person",
                                            idempotency_key=uuid.uuid4().hex)
                    elapsed = time.perf_counter() - started
                if window is not None:
                    timings[window].append(elapsed * 1000)
                    queries.setdefault(window, set()).add(len(captured))
                move += 1
        finally:
            if not keep:
                Game.objects.filter(pk=game.pk).delete()

        vendor = connection.vendor
        self.stdout.write(f"apply_decision on {vendor}, {samples} decisions per point:")
        for at, values in timings.items():
            if not values:
                continue
            values.sort()
            p95 = values[int(len(values) * 0.95) - 1]
            self.stdout.write(
                f"  from move {at}: median {statistics.median(values):.2f} ms, "
                f"p95 {p95:.2f} ms, mean {statistics.fmean(values):.2f} ms, "
                f"queries {sorted(queries[at])}"
            )
