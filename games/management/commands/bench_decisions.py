"""Measures apply_decision: ms per applied decision early (move 10) and late (move 2000).

Only the call to apply_decision is timed; choosing the move is not. Each call is split in
three, each with its wall time (perf_counter) and this process's CPU time (process_time):

- "core": the transaction (lock, load, engine, append, snapshot, commit), i.e. the call
  minus the two after-commit side effects below. The figure the decision door is held to.
- "countdown": the after-commit sends of Celery tasks (effects._send_task): the real-time
  clock's countdown, sent only when the game's pending one would not fire in time
  (docs/clocks.md), so mostly 0. It is paid by the same call, after the commit; it is
  reported apart, not hidden: "call" is core + countdown + notify.
- "notify": the after-commit push to the table's sockets (effects.game_changed), as if every
  seat had its page open: each seat group gets a listening channel of this command's (a push
  renders only the groups somebody listens to); nobody reads it, and what it was sent
  expires with the channel layer's message expiry (60 s on Redis) or with this process.

SQL statements are counted for the core (BEGIN and COMMIT included) and for notify apart.

With --floor, every other decision of each window runs with `SET synchronous_commit = off`
on this benchmark's own database session (and RESET after it): the commit then does not
wait for the WAL flush, so the difference between the two core medians is the commit's
flush. This is a measurement device of this command only; the real path never turns it
off (an applied decision is never lost).

Runs against whatever DATABASE_URL / REDIS_URL / CELERY_BROKER_URL configure.
"""

import os
import statistics
import time
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import effects, push, store
from games.actions import decisions
from games.models import Game
from games.store import seats
from lobby import services as lobby


class Command(BaseCommand):
    help = "Benchmarks apply_decision at move 10 and at move 2000 of one long game."

    def add_arguments(self, parser):
        parser.add_argument("--early", type=int, default=10)
        parser.add_argument("--late", type=int, default=2000)
        parser.add_argument("--samples", type=int, default=100)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--floor",
            action="store_true",
            help="alternate with synchronous_commit=off (this session only) "
            "to show the commit flush's share",
        )
        parser.add_argument("--keep", action="store_true", help="keep the game afterwards")

    def handle(self, *args, early, late, samples, seed, floor, keep, **options):
        game = _bench_game(seed)
        layer = get_channel_layer()
        listening = _listen(layer, game)
        # Each after-commit side effect is wrapped to time it (wall and CPU) and count
        # its statements. games.effects binds the function when the callback is
        # registered, so replacing the module attribute is enough.
        spent = {"notify": [0.0, 0.0, 0], "countdown": [0.0, 0.0, 0]}
        real_notify, real_countdown = effects.game_changed, effects._send_task
        effects.game_changed = _timed(spent, "notify", real_notify)
        effects._send_task = _timed(spent, "countdown", real_countdown)
        # {(window, floor?): {"core": [(wall, cpu)], ..., "core_sql": set(), "notify_sql": set()}}
        results = {}
        windows = {early: range(early, early + samples), late: range(late, late + samples)}
        try:
            self._play(game.pk, windows, late + samples, floor, spent, results)
        finally:
            effects.game_changed, effects._send_task = real_notify, real_countdown
            for group, channel in listening:
                async_to_sync(layer.group_discard)(group, channel)
            if not keep:
                Game.objects.filter(pk=game.pk).delete()
        self._report(results, windows, samples, floor)

    def _play(self, game_pk, windows, end, floor, spent, results):
        """Plays moves 1 to `end` - 1, recording those in a window into `results`."""
        for move in range(1, end):
            game = Game.objects.select_related("snapshot").get(pk=game_pk)
            if game.status != Game.Status.ACTIVE:
                self.stderr.write(f"the game ended at move {move}; use another --seed")
                return
            window = next((w for w, moves in windows.items() if move in moves), None)
            no_flush = floor and window is not None and move % 2 == 1
            wall, cpu, statements = _timed_decision(game, no_flush, spent)
            if window is None:
                continue
            r = results.setdefault(
                (window, no_flush),
                {
                    "core": [],
                    "countdown": [],
                    "notify": [],
                    "call": [],
                    "core_sql": set(),
                    "notify_sql": set(),
                },
            )
            n, c = spent["notify"], spent["countdown"]
            r["call"].append((wall, cpu))
            r["notify"].append((n[0], n[1]))
            r["countdown"].append((c[0], c[1]))
            r["core"].append((wall - n[0] - c[0], cpu - n[1] - c[1]))
            r["core_sql"].add(statements - n[2] - c[2])
            r["notify_sql"].add(n[2])

    def _report(self, results, windows, samples, floor):
        layer = "redis" if settings.REDIS_URL else "in-memory"
        broker = settings.CELERY_BROKER_URL.split(":", 1)[0]
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        per_point = samples // 2 if floor else samples
        self.stdout.write(
            f"apply_decision on {connection.vendor} ({layer} channel layer, Celery broker "
            f"{broker}), ~{per_point} decisions per line, load average {load}; ms, median/p95:"
        )
        for (at, no_flush), r in sorted(results.items()):
            label = f"move {at}" + (" [synchronous_commit=off, floor only]" if no_flush else "")
            self.stdout.write(
                f"  {label}: core wall {_summary(r['core'], 0)} cpu {_summary(r['core'], 1)}; "
                f"SQL {sorted(r['core_sql'])}"
            )
            self.stdout.write(
                f"      after commit, in the same call: countdown wall "
                f"{_summary(r['countdown'], 0)} "
                f"cpu {_summary(r['countdown'], 1)}; notify wall {_summary(r['notify'], 0)} "
                f"cpu {_summary(r['notify'], 1)}, SQL {sorted(r['notify_sql'])}; "
                f"whole call wall {_summary(r['call'], 0)}"
            )
        if floor:
            self._report_flush(results, windows)

    def _report_flush(self, results, windows):
        for at in windows:
            on, off = results.get((at, False)), results.get((at, True))
            if on and off:
                flush = _median(on["core"], 0) - _median(off["core"], 0)
                self.stdout.write(
                    f"  move {at}: the commit's WAL flush is ~{flush:.2f} ms of the "
                    f"{_median(on['core'], 0):.2f} ms core median"
                )


def _bench_game(seed):
    """A started four-player game of bench accounts."""
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
    return game


def _listen(layer, game):
    """A listening channel in every seat group, as if every seat had its page open."""
    listening = []
    if layer is not None:
        for n in range(4):
            channel = async_to_sync(layer.new_channel)()
            async_to_sync(layer.group_add)(push.seat_group(game.pk, n), channel)
            listening.append((push.seat_group(game.pk, n), channel))
    return listening


def _timed(spent, name, real):
    """`real`, adding its wall time, CPU time and statements to `spent[name]`."""

    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        statements = len(connection.queries_log)
        try:
            return real(*args, **kwargs)
        finally:
            s = spent[name]
            s[0] += time.perf_counter() - wall
            s[1] += time.process_time() - cpu
            s[2] += len(connection.queries_log) - statements

    return wrapper


def _timed_decision(game, no_flush, spent):
    """Applies the waiting seat's automatic move; returns (wall, cpu, statements) of the
    call, after zeroing `spent` for its after-commit effects to fill."""
    state = store.load_state(game)
    seat = seats.waiting(game)[0]
    action = state.auto_action(seat)
    if no_flush:
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit = off")
    for s in spent.values():
        s[:] = [0.0, 0.0, 0]
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as captured:
        wall, cpu = time.perf_counter(), time.process_time()
        decisions.apply_decision(game.pk, seat, action, "person", idempotency_key=uuid.uuid4().hex)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if no_flush:
        with connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
    return wall, cpu, len(captured)


def _median(pairs, i):
    return statistics.median(p[i] for p in pairs) * 1000


def _summary(pairs, i):
    values = sorted(p[i] * 1000 for p in pairs)
    p95 = values[max(0, int(len(values) * 0.95) - 1)]
    return f"{statistics.median(values):.2f}/{p95:.2f}"
