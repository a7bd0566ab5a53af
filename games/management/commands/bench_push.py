"""Measures one push's rendering: `effects.seat_pushes` with every seat of a table listening.

For tables of 4, 6 and 8 people (every seat a person, so every seat's group is rendered;
`--spectators` adds the public group), plays seeded random legal moves and, after each one,
times `seat_pushes` once for the position just committed, handed the game row and state as
the writer hands them, with the seats and last events its write read (store.TableReads: on
PostgreSQL; elsewhere the push reads them itself, two statements). That is what a move costs
the writer after its commit, the sends aside: the renderings. Each push follows one move, so the
move log's per-row cache is as warm as in play.

Prints, per table size, the median and p95 in ms of wall time and of this process's CPU
time, and the size of what one push sends. Runs against whatever DATABASE_URL configures
(PostgreSQL is what production pushes read from); the games it makes are deleted after.
"""

import os
import random
import statistics
import time
import uuid

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from accounts.models import User
from games import effects, push, store
from games.actions import decisions
from games.engine.random_moves import random_action
from games.models import Game
from games.push import changes
from games.store import seats
from lobby import services as lobby


class Command(BaseCommand):
    help = "Benchmarks effects.seat_pushes for 4, 6 and 8 listening seats."

    def add_arguments(self, parser):
        parser.add_argument(
            "--positions", type=int, default=300, help="positions (moves) timed per table size"
        )
        parser.add_argument("--sizes", default="4,6,8")
        parser.add_argument("--seed", type=int, default=11)
        parser.add_argument(
            "--spectators", action="store_true", help="the public group listens too"
        )
        parser.add_argument(
            "--remembered",
            action="store_true",
            help="each push cut down to what changed since the last (games.push.changes), "
            "against the site's memory of its pushes (Redis's with REDIS_URL, this "
            "process's otherwise); whole pushes otherwise",
        )

    def handle(self, *args, positions, sizes, seed, spectators, remembered, **options):
        users = [
            User.objects.get_or_create(
                username=f"benchpush{n}",
                defaults={"email": f"benchpush{n}@example.invalid", "display_name": f"Player {n}"},
            )[0]
            for n in range(8)
        ]
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        self.stdout.write(
            f"seat_pushes on {connection.vendor}{' remembered' if remembered else ''}, "
            f"{positions} positions per size, "
            f"load average before {load}; ms median/p95"
        )
        for players in (int(s) for s in sizes.split(",")):
            wall, cpu, sizes_sent = self._measure(
                users[:players], players, positions, seed, spectators, remembered
            )
            self.stdout.write(
                f"  {players} listening seats{' + spectators' if spectators else ''}: "
                f"wall {_summary(wall)}  cpu {_summary(cpu)}  "
                f"({statistics.median(sizes_sent) / 1024:.1f} KiB sent per push, median)"
            )
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        self.stdout.write(f"load average after {load}")

    def _measure(self, users, players, positions, seed, spectators, remembered):
        rng = random.Random(seed * 100 + players)
        wall, cpu, sent = [], [], []
        games = []
        layer = push.layer()
        memory = (push.memory(layer) if layer is not None else changes.HERE) if remembered else None
        try:
            game = None
            warm = 3  # the first pushes pay template compiling and the first queries
            while len(wall) < positions:
                if game is None or game.status != Game.Status.ACTIVE:
                    game = _new_game(users, players, rng.randrange(10**6), spectators)
                    games.append(game.pk)
                state = store.load_state(game)
                waiting = seats.waiting(game)
                seat = waiting[int(rng.random() * len(waiting))]
                with transaction.atomic():
                    decisions.apply_decision(
                        game.pk,
                        seat,
                        random_action(state, seat, rng),
                        "person",
                        idempotency_key=uuid.uuid4().hex,
                    )
                    reads = _push_reads()
                game = Game.objects.select_related("snapshot").get(pk=game.pk)
                state = store.load_state(game)
                started, started_cpu = time.perf_counter(), time.process_time()
                pushes = effects.seat_pushes(
                    game.pk,
                    game=game,
                    state=state,
                    listening=None,
                    memory=memory,
                    reads=reads,
                )
                elapsed = time.perf_counter() - started
                elapsed_cpu = time.process_time() - started_cpu
                if warm:
                    warm -= 1
                    continue
                wall.append(elapsed * 1000)
                cpu.append(elapsed_cpu * 1000)
                sent.append(sum(len(message["html"]) for _, message in pushes))
        finally:
            Game.objects.filter(pk__in=games).delete()
        return wall, cpu, sent


def _push_reads():
    """The TableReads the decision's write filled for its push: the push it registered to
    run on commit carries them (effects.game_changed_on_commit)."""
    for _savepoints, callback, _robust in connection.run_on_commit:
        if getattr(callback, "func", None) is effects.game_changed:
            return callback.keywords["reads"]
    return None


def _new_game(users, players, seed, spectators):
    # A target of 5000 points keeps a game going for hundreds of moves.
    game = lobby.create_table(
        users[0], players=players, target_score=5000, seed=seed, spectators=spectators
    )
    for n in range(1, players):
        lobby.take_seat(game.pk, users[n], n)
    lobby.start_table(game.pk, users[0])
    return Game.objects.select_related("snapshot").get(pk=game.pk)


def _summary(values):
    values = sorted(values)
    p95 = values[max(0, int(len(values) * 0.95) - 1)]
    return f"{statistics.median(values):.2f}/{p95:.2f}"
