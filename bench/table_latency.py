"""Benchmark: a player's action -> every seat's socket has its new fragments.

    pip install -e '.[bench]'      # websockets: the benchmark's client, nothing else uses it
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/wct_table_bench \\
    REDIS_URL='redis://127.0.0.1:6379/5?socket_timeout=30' \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 \\
        .venv/bin/python -m bench.table_latency --tables 1 --moves-per-table 100 --think 0.3
    ... --tables 100                 # 11 moves per table, one move every ~3 s at each table

(socket_timeout: see docs/table.md; without it idle sockets die after 5 s.)
BENCH_TRACE=1 prints every move: time to commit and push, then each socket's arrival.

It migrates the database named in DATABASE_URL, starts a Daphne process on
config.asgi, creates `--tables` started 4-person tables and opens one
websocket per seat (logged in with a session cookie, like a browser) from a
separate client process, so that the sockets never wait for this process's
GIL. Every table is played at once at a human pace: after each move a table
waits `--think` seconds (uniformly 0.5x-1.5x, so tables drift apart) before
its next one; `--writers` threads apply the moves through
decisions.apply_decision, the same function a form post or socket message
calls, so the render and the sends of the after-commit step are measured too.
For each move it measures from just before apply_decision to the moment the
last of the table's four sockets has received the fragments numbered with
the new event (one monotonic clock, shared by both processes on Linux).
Not a test: it prints median, p95, p99 and max in ms, the errors (moves that
raised, pushes that did not reach all four sockets within 5 s, sockets that
closed) and the load average before and after, since other processes on the
machine change the figures.
"""

import argparse
import asyncio
import atexit
import heapq
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEATS = 4
TIMEOUT = 5.0


def main():
    args = _arguments()
    _set_up_django()
    from django.db import connection

    started = time.monotonic()
    tables = _make_tables(args.tables)
    connection.close()
    print(f"set up {len(tables)} tables in {time.monotonic() - started:.1f} s", flush=True)

    port = _free_port()
    daphne, daphne_log = _start_daphne(port)
    _wait_for(port)

    # The client process: every socket, reporting (game, seq, time) per fragments message.
    ctx = multiprocessing.get_context("spawn")
    reports, child_end = ctx.Pipe(duplex=False)
    client = ctx.Process(target=_client_main, args=(port, tables, child_end), daemon=True)
    client.start()
    child_end.close()

    arrivals = _Arrivals(reports)
    arrivals.wait_open(len(tables) * SEATS, daphne_log.name)
    time.sleep(0.5)

    moves = _Moves(args, tables, arrivals)
    load_before = os.getloadavg()
    elapsed = moves.play()
    load_after = os.getloadavg()
    closed = arrivals.status["closed"]
    daphne.terminate()
    daphne.wait(10)
    client.terminate()
    client.join(5)
    daphne_log.close()
    if os.path.getsize(daphne_log.name) == 0:
        os.unlink(daphne_log.name)
    else:
        print(f"Daphne wrote errors to {daphne_log.name}")
    _print_results(
        args, moves, elapsed, closed, arrivals.status.get("why"), load_before, load_after
    )


def _arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument(
        "--moves-per-table", type=int, default=11, help="the first is a warm-up, reported apart"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=3.0,
        help="mean seconds between two moves at one table (human pace)",
    )
    parser.add_argument("--writers", type=int, default=8, help="threads applying moves")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL", "").startswith(
        "postgres"
    ):
        sys.exit("Set DATABASE_URL (PostgreSQL) and REDIS_URL: this measures the real stack.")
    try:
        import websockets  # noqa: F401
    except ImportError:
        sys.exit("pip install -e '.[bench]' (websockets: the benchmark's socket client)")
    return args


def _set_up_django():
    """Sets Django up on the project's settings and migrates the database."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _make_tables(count):
    """`count` started 4-person tables: [(game id, [session cookie per seat])]."""
    from django.test import Client

    from accounts.models import User
    from lobby import services as lobby

    run = uuid.uuid4().hex[:6]
    tables = []
    for t in range(count):
        users = [
            User.objects.create_user(f"b{run}-{t}-{s}", email=f"b{run}-{t}-{s}@example.com")
            for s in range(SEATS)
        ]
        game = lobby.create_table(users[0])
        for s in range(1, SEATS):
            lobby.take_seat(game.pk, users[s], s)
        lobby.start_table(game.pk, users[0])
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
        tables.append((game.pk, cookies))
    return tables


def _start_daphne(port):
    """A Daphne on `port`, terminated when this process ends: (process, its log file)."""
    # Kept after the run when Daphne wrote anything (closed and removed otherwise, in main).
    daphne_log = tempfile.NamedTemporaryFile(  # noqa: SIM115
        "w+", prefix="bench-daphne-", suffix=".log", delete=False
    )
    daphne = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "config.asgi:application",
        ],
        cwd=ROOT,
        env=dict(os.environ, LOG_LEVEL="WARNING"),
        stdout=subprocess.DEVNULL,
        stderr=daphne_log,
    )
    # Never leave Daphne behind, whichever way this process ends.
    atexit.register(lambda: daphne.poll() is None and daphne.terminate())
    return daphne, daphne_log


class _Arrivals:
    """What the client process reports, read by a thread of its own: sockets opened and
    closed, and when each (game, seq) reached each socket."""

    def __init__(self, reports):
        self.reports = reports
        self.arrivals = {}  # (game, seq) -> [arrival time per socket]
        self.cond = threading.Condition()
        self.status = {"open": 0, "closed": 0}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        status = self.status
        while True:
            try:
                item = self.reports.recv()
            except (EOFError, OSError):
                return
            with self.cond:
                if item[0] == "open":
                    status["open"] += 1
                elif item[0] == "closed":
                    status["closed"] += 1
                    status.setdefault("why", item[1])
                else:
                    _, game_id, seq, when = item
                    self.arrivals.setdefault((game_id, seq), []).append(when)
                self.cond.notify_all()

    def wait_open(self, sockets, log_name):
        """Waits for every socket to open; exits when one could not."""
        status = self.status
        with self.cond:
            if (
                not self.cond.wait_for(
                    lambda: status["open"] + status["closed"] == sockets, timeout=300
                )
                or status["closed"]
            ):
                sys.exit(
                    f"only {status['open']} of {sockets} sockets opened "
                    f"({status['closed']} failed, first: {status.get('why')}; "
                    f"Daphne's log: {log_name})"
                )

    def wait(self, key):
        """Waits for event `key` to reach every seat: (whether it did in time, the arrival
        times that came)."""
        with self.cond:
            ok = self.cond.wait_for(
                lambda: len(self.arrivals.get(key, ())) >= SEATS, timeout=TIMEOUT
            )
            got = self.arrivals.pop(key, [])
        return ok, got


class _Moves:
    """The writer threads: each takes the table due soonest, applies its move and measures
    it; after a move a table waits `--think` seconds (0.5x-1.5x) before its next."""

    def __init__(self, args, tables, arrivals):
        self.args = args
        self.arrivals = arrivals
        self.rng = random.Random(args.seed)
        self.latencies, self.warmups, self.errors = [], [], []
        self.due = [
            (time.monotonic() + self.rng.uniform(0, args.think), game_id, 0)
            for game_id, _ in tables
        ]
        heapq.heapify(self.due)
        self.schedule = threading.Condition()
        self.pending = len(tables)  # tables still playing
        self.began = None

    def play(self):
        """Runs the writers until every table is done; returns the seconds it took."""
        self.began = time.monotonic()
        threads = [threading.Thread(target=self._writer) for _ in range(self.args.writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return time.monotonic() - self.began

    def _next(self):
        """(game id, moves done) of the table due soonest, once it is due; None when every
        table is done."""
        due = self.due
        with self.schedule:
            while True:
                if self.pending == 0:
                    return None
                if due and due[0][0] <= time.monotonic():
                    _, game_id, done = heapq.heappop(due)
                    return game_id, done
                self.schedule.wait(max(0.001, due[0][0] - time.monotonic()) if due else 0.05)

    def _writer(self):
        from django.db import connection

        try:
            while (turn := self._next()) is not None:
                game_id, done = turn
                again = self._one_move(game_id, warmup=done == 0)
                with self.schedule:
                    if again and done + 1 < self.args.moves_per_table:
                        think = self.args.think * self.rng.uniform(0.5, 1.5)
                        heapq.heappush(self.due, (time.monotonic() + think, game_id, done + 1))
                    else:
                        self.pending -= 1
                    self.schedule.notify_all()
        finally:
            connection.close()

    def _one_move(self, game_id, warmup=False):
        """True if the table can go on. A table's first move is a warm-up, reported apart:
        it pays for this process's first template compile and database connections."""
        from games import store
        from games.actions import decisions
        from games.models import Game, GameEvent

        game = Game.objects.select_related("snapshot").get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            return False
        state = store.load_state(game)
        seat = game.waiting_on[0]
        action = state.auto_action(seat)
        start = time.monotonic()
        try:
            result = decisions.apply_decision(
                game_id, seat, action, GameEvent.Actor.PERSON, idempotency_key=uuid.uuid4().hex
            )
        except Exception as exc:  # noqa: BLE001 -- counted, not fatal: the figures say how many
            self.errors.append(f"game {game_id}: {type(exc).__name__}: {exc}")
            return True
        applied = time.monotonic()  # the push is in Redis by now (after-commit step done)
        key = (game_id, result.event.seq)
        ok, got = self.arrivals.wait(key)
        if ok:
            (self.warmups if warmup else self.latencies).append((max(got[:SEATS]) - start) * 1000)
            if os.environ.get("BENCH_TRACE"):
                print(
                    f"{start - self.began:8.3f} game {game_id} seq {key[1]}: "
                    f"applied+pushed {(applied - start) * 1000:.0f}, sockets "
                    + " ".join(f"{(t - start) * 1000:.0f}" for t in got),
                    flush=True,
                )
        else:
            self.errors.append(
                f"game {game_id} event {key[1]}: reached {len(got)} of {SEATS} sockets"
            )
        return True


def _print_results(args, moves, elapsed, closed, why, load_before, load_after):
    latencies, warmups, errors = moves.latencies, moves.warmups, moves.errors
    print(
        f"tables={args.tables} moves/table<={args.moves_per_table} think={args.think}s "
        f"writers={args.writers} cpus={os.cpu_count()}: "
        f"{len(latencies)} moves in {elapsed:.1f} s ({len(latencies) / elapsed:.1f}/s)"
    )
    if latencies:
        latencies.sort()
        print(
            f"  median {statistics.median(latencies):.1f} ms, p95 {_pct(latencies, 95):.1f} ms, "
            f"p99 {_pct(latencies, 99):.1f} ms, max {latencies[-1]:.1f} ms"
        )
    if warmups:
        print(
            f"  not counted above: each table's first move (warm-up), {len(warmups)} moves, "
            f"median {statistics.median(warmups):.1f} ms, max {max(warmups):.1f} ms"
        )
    print(
        f"  errors: {len(errors)} (sockets closed early: {closed}"
        f"{', first: ' + why if closed else ''})"
    )
    for line in errors[:10]:
        print("   ", line)
    print(
        "  load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
            *load_before, *load_after
        )
    )
    if not latencies:
        sys.exit("no measurements")


def _pct(values, p):
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def _client_main(port, tables, out):
    """Runs in its own process: one websocket per seat, reporting every fragments message."""
    import websockets

    async def listen(game_id, cookie, opening):
        try:
            # A few handshakes at a time: 400 at once overrun Daphne's 5 s connect timeout
            # on two cores, and pages do not all open in the same instant anyway.
            async with opening:
                ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
                    max_size=None,
                    open_timeout=60,
                    additional_headers={
                        "Cookie": f"sessionid={cookie}",
                        "Origin": f"http://127.0.0.1:{port}",
                    },
                )
            async with ws:
                out.send(("open",))
                async for payload in ws:
                    now = time.monotonic()
                    msg = json.loads(payload)
                    if msg.get("type") == "fragments":
                        out.send(("push", game_id, msg["seq"], now))
        except Exception as exc:  # noqa: BLE001 -- reported to the parent, which counts it
            out.send(("closed", f"{type(exc).__name__}: {exc}"))
            return
        out.send(("closed", "closed by the server"))

    async def run():
        opening = asyncio.Semaphore(8)
        await asyncio.gather(
            *(listen(game_id, cookie, opening) for game_id, cookies in tables for cookie in cookies)
        )

    asyncio.run(run())


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(port):
    for _ in range(150):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit("Daphne did not start")


if __name__ == "__main__":
    main()
