"""Load tool: real websocket players at many tables at once, against a running site.

    pip install -e '.[bench]'      # websockets and psutil: the tool's client and its readings
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/wct_load REDIS_URL=redis://127.0.0.1:6379/6 \\
        python -m bench.load --tables 200 --players 4            # the game
    ... --tables 200 --players 4 --echo                          # the floor: a bare echo

It migrates the database, creates `--tables` started tables of `--players` people
(one user each, logged in with a session cookie like a browser) and starts the site
as `make run` does with Redis: `--daphnes` Daphne processes sharing one listening
socket (the kernel hands each new connection to one of them), a Celery worker and
beat on a queue of their own. Then `--clients` client processes open one websocket
per seat and play:

- Each seat reads only what its page gets: the page (GET), then the pushed fragments,
  and an HTTP resync as table.js does (after a reconnect; a push that skips numbers is
  shown at once, as table.js shows it, and one older than the page is ignored). From that markup it
  knows its choices exactly as a person would (the enabled card buttons, Draw a card,
  Pass, Take penalty, the cards to pass or give) and, after thinking `--pace` seconds
  (uniformly 0.5x-1.5x), sends one at random as a socket message
  `{"type": "act", "action": ..., "key": ...}`: a playable card when there is one
  (a Wild with a random colour), otherwise draw / pass / take. It never concedes.
- Latency: from sending the action to the moment every seat of the table has a page
  at least as new as the event the server answered with (`ok`, seq), on the client's
  own clock. Counted for actions sent inside the measured window (after `--warmup`
  seconds, for `--duration` seconds); pushes that do not reach every seat within 5 s,
  refused actions and sockets that close are errors.
- `--echo`: the same sockets at the same pace send a message of `--echo-bytes` to
  /ws/echo/<table>/ (bench/echo.py), which a group send returns to every seat of the
  table; latency is send -> every seat has it. This is the floor: Daphne, the session
  check, the Redis channel layer and the group send, without the game.

It prints decisions per second, latency median/p95/p99/max, errors, each server
process's CPU (% of one core, averaged over the window) and peak memory, the client
processes' CPU, the machine's CPU and the load average. Not a test: the figures
depend on what else runs on the machine, so quote the load average with them.

And the whole system's CPU per decision (per echo round): the Daphnes, the worker and
beat, the PostgreSQL backends of the load's database (read from /proc, so PostgreSQL on
this machine; the sessions that ended in the window from the postmaster's reaped
children, see bench/system_cpu.py) and the redis-server, with the split by group and the
sessions opened in the window.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.system_cpu import PostgresSampler, whole_system_lines

ROOT = Path(__file__).resolve().parents[1]
REACH_TIMEOUT = 5.0  # a push that has not reached every seat by then is an error
TRACE = bool(os.environ.get("LOAD_TRACE"))  # print every page, move and answer (small runs)
COLOURS = "RYGB"


# --- what a page offers (pure: tested in tests/bench/test_load.py) ----------------------------

_MODE = re.compile(r'id="hand-form"[^>]*data-mode="(\w*)"[^>]*data-need="(\d+)"')
# An enabled card button ends right after its label; a disabled one has " disabled" first.
# A card that may be played: a hand card's button that is not disabled (a received card's
# button names its note first).
_PLAY = re.compile(
    r'class="card hand-card[^"]*" id="card-\d+-[A-Z0-9]+" name="play" value="([A-Z0-9]+)"'
    r'(?: aria-describedby="[^"]*")?>'
)
_WILD = re.compile(r'data-wild="([A-Z0-9]+)"')
_DO = re.compile(r'name="do" value="(draw|pass_turn|take_penalty)"')
_CHOOSE = re.compile(r'aria-pressed="false" data-code="([A-Z0-9]+)">')
_SEQ = re.compile(r'data-seq="(\d+)"')


def choices(html):
    """The actions a seat's fragments offer, as engine actions grouped by kind:
    {"play": [...], "other": [...], "pick": [...], "give": (count, [codes])}.
    Built from the buttons the page shows enabled, nothing else."""
    found = {"play": [], "other": [], "pick": [], "give": None}
    mode = _MODE.search(html)
    if mode is None:
        return found
    kind, need = mode.group(1), int(mode.group(2))
    if kind == "play":
        found["play"] = [{"type": "play", "card": c} for c in _PLAY.findall(html)]
        found["play"] += [{"type": "play", "card": c, "color": None} for c in _WILD.findall(html)]
        found["other"] = [{"type": t} for t in _DO.findall(html)]
    elif kind == "pick":
        found["pick"] = [{"type": "pass", "card": c} for c in _CHOOSE.findall(html)]
    elif kind == "give":
        found["give"] = (need, _CHOOSE.findall(html))
    return found


def pick_action(html, rng):
    """One random action among what the page offers, or None: a playable card when there
    is one (a Wild gets a random colour), otherwise draw / pass / take the penalty."""
    found = choices(html)
    if found["play"]:
        action = dict(rng.choice(found["play"]))
        if "color" in action:
            action["color"] = rng.choice(COLOURS)
        return action
    if found["other"]:
        return rng.choice(found["other"])
    if found["pick"]:
        return rng.choice(found["pick"])
    if found["give"] and found["give"][0] <= len(found["give"][1]):
        need, codes = found["give"]
        return {"type": "give", "cards": rng.sample(codes, need)}
    return None


def page_seq(html):
    """The event number a set of fragments shows (each fragment carries it)."""
    match = _SEQ.search(html)
    return int(match.group(1)) if match else 0


# A piece of the table and its version, as a push or a page carries it (a piece sent alone
# has its out-of-band mark first).
_VERSION = re.compile(r'<[a-z]+ (?:hx-swap-oob="true" )?data-v="([0-9a-f]+)"[^>]*? id="([\w-]+)"')
_HAND = re.compile(r'<section [^>]*id="table-hand".*?</section>', re.S)
_DISCARD = re.compile(r'<ol [^>]*id="discard-cards">(.*?)</ol>', re.S)


class Page:
    """What a seat's page holds, as static/js/table.js keeps it: the event number shown,
    each piece's version, the hand (what a seat decides from) and how many cards the
    discard pile's list holds. A push that carries only what changed is applied only when
    the page holds what it says it must (games.push.changes); otherwise the seat resyncs."""

    def __init__(self):
        self.seq, self.versions, self.hand, self.discard = 0, {}, "", 0

    def load(self, html, seq):
        """A whole table: the page, or a resync."""
        self.versions = {}
        self.hand, self.discard = "", 0
        self._take(html)
        self.seq = seq

    def holds(self, msg):
        if self.seq < (msg.get("log_after") or 0):
            return False
        if any(self.versions.get(name) != v for name, v in (msg.get("keep") or {}).items()):
            return False
        return all(self.discard == more["after"] for more in (msg.get("append") or {}).values())

    def apply(self, msg):
        self._take(msg["html"])
        for name, more in (msg.get("append") or {}).items():
            self.discard += more["added"]
            self.versions[name] = more["v"]
        self.seq = msg["seq"]

    def _take(self, html):
        self.versions.update((name, v) for v, name in _VERSION.findall(html))
        hand = _HAND.search(html)
        if hand is not None:
            self.hand = hand.group(0)
        cards = _DISCARD.search(html)
        if cards is not None:
            self.discard = cards.group(1).count("<li")


def percentile(sorted_values, p):
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, round(p / 100 * (len(sorted_values) - 1)))]


def summarize(latencies_ms):
    values = sorted(latencies_ms)
    if not values:
        return None
    return {
        "n": len(values),
        "median": statistics.median(values),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": values[-1],
    }


# --- the server ------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    parser.add_argument(
        "--pace",
        type=float,
        default=3.0,
        help="mean seconds a seat thinks before each decision (0.5x-1.5x)",
    )
    parser.add_argument("--warmup", type=float, default=15.0, help="seconds not measured")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--echo", action="store_true", help="the bare echo instead of the game")
    parser.add_argument(
        "--echo-bytes", type=int, default=11000, help="echo payload, about one seat's fragments"
    )
    parser.add_argument(
        "--daphnes",
        type=int,
        default=4,
        help="server processes (two per core), Daphne unless --server says",
    )
    parser.add_argument(
        "--server",
        choices=["daphne", "uvicorn", "granian"],
        default="daphne",
        help="the ASGI server of the same application (uvicorn: uvloop, httptools; "
        "granian: one process of --daphnes workers, or one per port with --route table)",
    )
    parser.add_argument(
        "--route",
        choices=["none", "table"],
        default="none",
        help="table: a table's requests and sockets to one server process, by its id "
        "(as nginx's hash in docs/deploy.md); none: any process (one shared socket)",
    )
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--history",
        type=int,
        default=0,
        help="plain moves played at each table before the run (a long game's "
        "move log and state; not measured)",
    )
    args = parser.parse_args(argv)
    if not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL", "").startswith(
        "postgres"
    ):
        sys.exit("Set DATABASE_URL (PostgreSQL) and REDIS_URL: this measures the real stack.")
    try:
        import psutil  # noqa: F401
        import websockets  # noqa: F401
    except ImportError:
        sys.exit("pip install -e '.[bench]' (websockets and psutil)")

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # The site as in production (DEBUG off: no query log, no debug cursors), over plain HTTP
    # on 127.0.0.1. This process shares the settings, so its sessions work there.
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", f"load-{uuid.uuid4().hex}")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
    # The run's own Celery queue, this process's too: the countdowns its --history moves
    # send wait there for the run's worker (and go with the queue at the end).
    queue = f"load-{uuid.uuid4().hex[:8]}"
    os.environ["CELERY_QUEUE"] = queue
    import django

    django.setup()
    tables = _set_up(args)
    try:
        with _Site(args.daphnes, queue, args.server, args.route == "table") as site:
            _run(args, site, tables)
    finally:
        _end_tables([game_id for game_id, _ in tables])


# The tool's players: l<run>-<table>-<seat> (see _set_up).
LOAD_USERNAME = r"^l[0-9a-f]{6}-[0-9]+-[0-9]+$"


def _end_tables(game_ids=None):
    """Abandons the tool's tables: these ids, or (None) every table of the tool's players
    still running from an earlier run that did not end them (killed). Left running, an old
    run's tables would be played on by the next run's worker, time-out after time-out and
    bot move after bot move, and its figures would count that work too. Returns how many."""
    from django.db import connection
    from django.utils import timezone

    from games.models import Game

    running = Game.objects.filter(status__in=(Game.Status.ACTIVE, Game.Status.OPEN))
    if game_ids is None:
        running = running.filter(seats__user__username__regex=LOAD_USERNAME)
    else:
        running = running.filter(pk__in=game_ids)
    ended = Game.objects.filter(pk__in=list(running.values_list("pk", flat=True))).update(
        status=Game.Status.ABORTED,
        finished_at=timezone.now(),
        deadline_at=None,
        bot_due_at=None,
        wake_at=None,
        turn=None,
        waiting_on=[],
    )
    connection.close()
    return ended


def _set_up(args):
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    left = _end_tables()
    if left:
        print(f"abandoned {left} tables an earlier run left running", flush=True)
    started = time.monotonic()
    tables = make_tables([args.players] * args.tables, echo=args.echo, history=args.history)
    print(
        f"set up {len(tables)} tables of {args.players} in {time.monotonic() - started:.1f} s",
        flush=True,
    )
    return tables


def make_tables(sizes, echo=False, history=0):
    """A table of each size in `sizes`, its players logged in: [(game id, [session cookie
    per seat])]. Started unless `echo`, with `history` moves already played."""
    from django.db import connection
    from django.test import Client

    from accounts.models import User
    from lobby import services as lobby

    run = uuid.uuid4().hex[:6]
    tables = []
    for t, players in enumerate(sizes):
        users = [
            User.objects.create_user(f"l{run}-{t}-{s}", email=f"l{run}-{t}-{s}@example.com")
            for s in range(players)
        ]
        # A long game (to 1000 points), so that no table runs out of game during the run.
        game = lobby.create_table(users[0], players=players, target_score=1000)
        for s in range(1, players):
            lobby.take_seat(game.pk, users[s], s)
        if not echo:
            # The echo needs only the players and their sessions: a started table nobody
            # plays would time out seat after seat and keep the worker busy during the floor.
            lobby.start_table(game.pk, users[0])
            if history:
                _play_history(game.pk, users, history)
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
        tables.append((game.pk, cookies))
    connection.close()
    return tables


def _play_history(game_id, users, moves):
    """Plays `moves` plain moves at the table (the first seat with a decision, its
    auto_action), through apply_decision like any move, so that the run measures a game with
    a long past: a full move log, a used deck. Then its clocks are cleared: they would run
    out while the other tables are set up, and the run's worker would time the seats out.
    Each table's clocks start again at its first move in the run."""
    from games import store
    from games.actions import decisions
    from games.models import Game, GameEvent

    for _ in range(moves):
        game = Game.objects.select_related("snapshot").get(pk=game_id)
        if game.status != Game.Status.ACTIVE or not game.waiting_on:
            break
        seat = game.waiting_on[0]
        decisions.apply_decision(
            game_id,
            seat,
            store.load_state(game).auto_action(seat),
            GameEvent.Actor.PERSON,
            user=users[seat],
            idempotency_key=uuid.uuid4().hex,
        )
    _clear_clocks([game_id])


def _clear_clocks(game_ids):
    """No seat of these tables has a clock running: each table's clocks start again at its
    next move (actions.clock.plan gives every seat then waited on a new one)."""
    from games.models import Game

    Game.objects.filter(pk__in=game_ids).update(
        clocks={}, deadline_at=None, wake_at=None, countdown_at=None
    )


class _Site:
    """The processes `make run` starts with Redis (several Daphnes), on a Celery queue of
    their own; stopped whichever way the run ends. Their stderr goes to one log file."""

    def __init__(self, daphnes, queue, server="daphne", route=False):
        self.daphnes, self.queue, self.server, self.route = daphnes, queue, server, route
        self.children = {}

    def __enter__(self):
        # One listening socket that every server process shares (the kernel hands each new
        # connection to one of them), or with `route` one each: the clients then send a
        # table's requests and sockets to one process chosen by its id, as nginx's hash on
        # the path does (docs/deploy.md). This process keeps them open, so that a server
        # process killed and started again (bench/soak.py) takes the same socket.
        self.listeners = []
        for _ in range(self.daphnes if self.route else 1):
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", 0))
            listener.listen(1024)
            self.listeners.append(listener)
        self.ports = [listener.getsockname()[1] for listener in self.listeners]
        self.port = self.ports[0]
        if self.server == "granian":
            # Granian takes no inherited socket: it binds the ports picked here, freed for it,
            # and shares one port among its own worker processes.
            for listener in self.listeners:
                listener.close()
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 -- kept if anything was written
            "w+", prefix="bench-load-", suffix=".log", delete=False
        )
        self.env = dict(os.environ, LOG_LEVEL="WARNING", CELERY_QUEUE=self.queue)
        self.schedule = tempfile.mkdtemp(prefix="bench-load-beat-")
        processes = 1 if self.server == "granian" and not self.route else self.daphnes
        for n in range(processes):
            self.start(f"{self.server}-{n + 1}")
        self.start("celery-worker")
        self.start("celery-beat")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        for port in self.ports:
            _wait_for(port)
        return self

    def command(self, name):
        """The command line of the process called `name` and the socket it serves, if any."""
        python = sys.executable
        if name == "celery-worker":
            return [
                python, "-m", "celery", "-A", "config", "worker", "-l", "WARNING",
                "--concurrency", "1", "-Q", self.queue,
            ], None  # fmt: skip
        if name == "celery-beat":
            schedule = os.path.join(self.schedule, "schedule")
            return [
                python, "-m", "celery", "-A", "config", "beat", "-l", "WARNING",
                "--schedule", schedule,
            ], None  # fmt: skip
        n = int(name.rsplit("-", 1)[1]) - 1
        if self.server == "granian":
            workers = 1 if self.route else self.daphnes
            return [
                python, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1",
                "--port", str(self.ports[n]), "--workers", str(workers), "--no-access-log",
                "--log-level", "warning", "bench.asgi:application",
            ], None  # fmt: skip
        listener = self.listeners[n % len(self.listeners)]
        fd = str(listener.fileno())
        if self.server == "uvicorn":
            # The same application under uvicorn with its fast loop and HTTP parser; access
            # logs off as Daphne's are at LOG_LEVEL=WARNING.
            return [
                python, "-m", "uvicorn", "--fd", fd, "--loop", "uvloop", "--http", "httptools",
                "--ws", "websockets", "--lifespan", "off", "--no-access-log",
                "--log-level", "warning", "bench.asgi:application",
            ], listener  # fmt: skip
        return [python, "-m", "daphne", "--fd", fd, "bench.asgi:application"], listener

    def start(self, name):
        """Starts (or starts again) the process called `name`."""
        command, listener = self.command(name)
        self.children[name] = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            pass_fds=(listener.fileno(),) if listener else (),
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def kill(self, name):
        """SIGKILL: no goodbye to the broker, the database or the sockets it holds."""
        child = self.children[name]
        child.kill()
        child.wait(10)

    def __exit__(self, *exc):
        stop(self.children.values(), self.log)
        for listener in self.listeners:
            listener.close()
        self._drop_queue()
        shutil.rmtree(self.schedule, ignore_errors=True)  # beat's schedule, the run's only

    def _drop_queue(self):
        """The run's Celery queue goes with it (countdowns still waiting there are moot)."""
        import redis
        from django.conf import settings

        try:
            broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
            # The queue's list (and its priority lists) and kombu's bindings: every key
            # named after this run's queue, which no one else uses.
            keys = list(broker.scan_iter(match=f"*{self.queue}*"))
            if keys:
                broker.delete(*keys)
        except Exception as exc:  # noqa: BLE001 -- a leftover queue is harmless
            print(f"could not remove the Celery queue {self.queue}: {exc}")


def stop(children, log):
    """Stops the server processes (SIGTERM, then SIGKILL after 20 s) and closes their log,
    kept only if something was written to it."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(20)
        except subprocess.TimeoutExpired:
            child.kill()
    log.close()
    if os.path.getsize(log.name) == 0:
        os.unlink(log.name)
    else:
        print(f"the server processes wrote to {log.name}")


def _start_clients(args, site, tables):
    """The client processes, each with its share of the tables: (pipes, processes)."""
    ctx = multiprocessing.get_context("spawn")
    shares = [tables[i :: args.clients] for i in range(args.clients)]
    pipes, clients = [], []
    for n, share in enumerate(shares):
        mine, theirs = ctx.Pipe()
        config = {
            "ports": site.ports,
            "tables": share,
            "echo": args.echo,
            "pace": args.pace,
            "echo_bytes": args.echo_bytes,
            "seed": args.seed * 1000 + n,
        }
        proc = ctx.Process(target=_client_main, args=(config, theirs), daemon=True)
        proc.start()
        pipes.append(mine)
        clients.append(proc)
    return pipes, clients


def _wait_open(args, pipes, tables):
    """Waits for every client to open its sockets; exits when one could not."""
    opened = failed = 0
    first_failure = None
    for pipe in pipes:
        if not pipe.poll(600):
            sys.exit("a client process did not open its sockets within 10 minutes")
        _, ok, bad, why = pipe.recv()
        opened, failed = opened + ok, failed + bad
        first_failure = first_failure or why
    sockets = sum(len(cookies) for _, cookies in tables)
    print(
        f"{opened} of {sockets} sockets open"
        + (f", {failed} failed (first: {first_failure})" if failed else ""),
        flush=True,
    )
    if failed:
        sys.exit(1)


def _watched(site, clients):
    """The processes whose CPU and memory the run reports, by name."""
    import psutil

    servers = {name: psutil.Process(child.pid) for name, child in site.children.items()}
    redis = next(
        (p for p in psutil.process_iter(["name"]) if p.info["name"] == "redis-server"), None
    )
    watched = dict(
        servers, **{f"client-{n + 1}": psutil.Process(c.pid) for n, c in enumerate(clients)}
    )
    if redis is not None:
        watched["redis-server (shared)"] = redis
    return watched


def _run(args, site, tables):
    import psutil
    from django.db import connection

    pipes, clients = _start_clients(args, site, tables)
    _wait_open(args, pipes, tables)
    if not args.echo:
        # The deal started each table's first clocks while the other tables were being set
        # up and the pages opened (at 200 tables, half a move's time or more): a seat would
        # be timed out for the tool's own set-up.
        _clear_clocks([game_id for game_id, _ in tables])
        connection.close()

    start = time.monotonic() + 0.5
    window = (start + args.warmup, start + args.warmup + args.duration)
    for pipe in pipes:
        pipe.send(("go", start, window))
    watched = _watched(site, clients)
    postgres = PostgresSampler(_sql)
    time.sleep(max(0.0, window[0] - time.monotonic()))
    cpu_before = {name: _cpu(p) for name, p in watched.items()}
    postgres.start()
    machine_before = psutil.cpu_times()
    load_before = os.getloadavg()
    peak = {name: 0 for name in watched}
    while time.monotonic() < window[1]:
        for name, proc in watched.items():
            peak[name] = max(peak[name], _rss(proc))
        # Backends come and go: each one seen is read again at the end, or found reaped.
        postgres.poll()
        time.sleep(1.0)
    seconds = {name: _spent(cpu_before[name], _cpu(p)) for name, p in watched.items()}
    database = postgres.finish()
    cpu = {
        name: None if spent is None else spent / args.duration * 100
        for name, spent in seconds.items()
    }
    machine_after = psutil.cpu_times()
    load_after = os.getloadavg()
    busy = _busy(machine_before, machine_after)
    results = []
    for pipe in pipes:
        if not pipe.poll(REACH_TIMEOUT + 60):
            sys.exit("a client process did not report")
        results.append(pipe.recv()[1])
    for proc in clients:
        proc.join(10)
    dead = [name for name, child in site.children.items() if child.poll() is not None]
    system = (_groups(args, seconds, database), database)
    _report(args, results, cpu, peak, busy, load_before, load_after, dead, system)


def _sql(query):
    """Rows of a query on the load's database (the tool's own connection, autocommit)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(query)
        return cursor.fetchall() if cursor.description else []


def _groups(args, seconds, database):
    """CPU seconds in the window of each group of the whole system; None: not measured."""

    def total(names):
        spent = [seconds[name] for name in names]
        return None if not spent or None in spent else sum(spent)

    return {
        "web": total([name for name in seconds if name.startswith(f"{args.server}-")]),
        "worker+beat": total(
            [name for name in ("celery-worker", "celery-beat") if name in seconds]
        ),
        "PostgreSQL": database.seconds,
        "Redis": total([name for name in seconds if name.startswith("redis-server")]),
    }


def _cpu(proc):
    """User + system CPU seconds of a process and of its live descendants (a Celery worker's
    pool process does the work; `children_user` would count it only once it had ended), plus
    the children it has already waited for. 0 once it is gone; None when it may not be
    read (another user's process where /proc is closed to others)."""
    import psutil

    try:
        tree = [proc, *proc.children(recursive=True)]
        total = sum(p.cpu_times().user + p.cpu_times().system for p in tree)
        times = proc.cpu_times()
        return total + times.children_user + times.children_system
    except psutil.AccessDenied:
        return None
    except Exception:  # noqa: BLE001 -- a process that ended has no more CPU to count
        return 0.0


def _spent(before, after):
    return None if before is None or after is None else after - before


def _rss(proc):
    try:
        return proc.memory_info().rss
    except Exception:  # noqa: BLE001
        return 0


def _busy(before, after):
    """(% of the machine's CPU time busy, % of it stolen by the host's other guests)."""
    idle = (after.idle + getattr(after, "iowait", 0)) - (before.idle + getattr(before, "iowait", 0))
    steal = getattr(after, "steal", 0) - getattr(before, "steal", 0)
    total = sum(after) - sum(before)
    if not total:
        return 0.0, 0.0
    return 100 * (1 - idle / total), 100 * steal / total


def _report(args, results, cpu, peak, busy, load_before, load_after, dead, system=None):
    latencies = [x for r in results for x in r["latencies"]]
    decided = sum(r["decided"] for r in results)
    errors = [e for r in results for e in r["errors"]]
    error_count = sum(r["error_count"] for r in results)
    resyncs = sum(r["resyncs"] for r in results)
    late = sum(r["late"] for r in results)
    what = "echo" if args.echo else "game"
    print(
        f"{what}: tables={args.tables} players={args.players} "
        f"sockets={args.tables * args.players} pace={args.pace}s "
        f"{args.server}s={args.daphnes} route={getattr(args, 'route', 'none')} "
        f"clients={args.clients} cpus={os.cpu_count()} "
        f"window={args.duration:.0f}s after {args.warmup:.0f}s warm-up"
    )
    unit = "echoes" if args.echo else "decisions"
    print(f"  {unit}/s: {decided / args.duration:.1f} ({decided} in the window)")
    stats = summarize(latencies)
    if stats:
        print(
            f"  latency, action -> every seat has it (n={stats['n']}): "
            f"median {stats['median']:.1f} ms, p95 {stats['p95']:.1f} ms, "
            f"p99 {stats['p99']:.1f} ms, max {stats['max']:.1f} ms"
        )
    else:
        print("  latency: no measurement")
    print(
        f"  errors: {error_count}"
        + (
            ""
            if args.echo
            else (f" (HTTP resyncs: {resyncs}; pushes that came after a newer one: {late})")
        )
    )
    for line in errors[:10]:
        print("   ", line)
    sizes = summarize([x for r in results for x in r.get("push_sizes", ())])
    if sizes:
        # What a seat's socket carries per move: the frame's text as sent (JSON, its HTML
        # escaped in it), before any compression.
        print(
            f"  push per seat (n={sizes['n']}): median {sizes['median'] / 1000:.2f} KB, "
            f"p95 {sizes['p95'] / 1000:.2f} KB"
        )
    if dead:
        print(f"  server processes that stopped during the run: {', '.join(dead)}")
    print("  CPU (% of one core over the window) and peak memory:")
    for name in cpu:
        share = "not measured" if cpu[name] is None else f"{cpu[name]:6.1f} %"
        print(f"    {name:24s} {share}  {peak[name] / 2**20:7.1f} MiB")
    served = sum(value or 0.0 for name, value in cpu.items() if name.startswith(f"{args.server}-"))
    if decided:
        # The figure the game is held to against the echo: what a move (an echo round)
        # costs the server processes, whatever their number.
        print(
            f"    {args.server}s' CPU per {'echo round' if args.echo else 'decision'}: "
            f"{served / 100 * args.duration / decided * 1000:.2f} ms"
        )
    if system is not None:
        # What a move costs the machine: the server processes and the database and Redis
        # behind them, whose work grows with the moves too.
        groups, database = system
        unit = "echo round" if args.echo else "decision"
        for line in whole_system_lines(unit, decided, groups, database):
            print(f"    {line}")
    print(
        f"    machine: {busy[0]:.0f} % busy of {os.cpu_count()} cores"
        f" ({busy[1]:.0f} % stolen by the host's other guests)"
    )
    print(
        "  load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
            *load_before, *load_after
        )
    )
    if stats:
        verdict = "holds" if stats["p95"] < 150 and error_count == 0 else "does NOT hold"
        print(f"  target (p95 < 150 ms, no error): {verdict}")


def _wait_for(port, address="127.0.0.1"):
    for _ in range(150):
        try:
            socket.create_connection((address, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"nothing listens on {address}:{port}")


# --- the clients -----------------------------------------------------------------------------


def _client_main(config, pipe):
    """One client process: a socket per seat of its tables; plays when told, then reports."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    asyncio.run(_Clients(config, pipe).run())


_TABLE = re.compile(r"/(?:games|echo)/(\d+)/")


class _Clients:
    table_class: type["_GameTable"]  # set below: a table's seats, as this process plays them

    def __init__(self, config, pipe):
        self.ports = config["ports"]
        self.host = config.get(
            "host", "127.0.0.1"
        )  # the site's address (bench/soak.py --hosts: a proxy)
        self.tables = config["tables"]
        self.echo = config["echo"]
        self.pace = config["pace"]
        self.pad = "x" * config["echo_bytes"]
        self.rng = random.Random(config["seed"])
        self.pipe = pipe
        self.window = (float("inf"), float("inf"))
        self.stop_at = float("inf")
        self.latencies, self.errors = [], []
        self.error_count = self.decided = self.resyncs = self.late = 0
        # The size of each push a seat received in the window: its websocket frame's text.
        self.push_sizes = []
        self.tasks = set()

    def error(self, text):
        if self.in_window(time.monotonic()):
            self.error_count += 1
            if len(self.errors) < 20:
                self.errors.append(text)

    def in_window(self, when):
        return self.window[0] <= when < self.window[1]

    async def run(self):
        loop = asyncio.get_running_loop()
        opening = asyncio.Semaphore(16)  # a few handshakes at a time, as pages open
        if self.echo:
            tables = [_EchoTable(self, game_id, cookies) for game_id, cookies in self.tables]
        else:
            tables = [self.table_class(self, game_id, cookies) for game_id, cookies in self.tables]
        results = await asyncio.gather(*(t.open(opening) for t in tables), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        opened = sum(r for r in results if isinstance(r, int))
        bad = sum(len(cookies) for _, cookies in self.tables) - opened
        self.pipe.send(("ready", opened, bad, repr(failures[0]) if failures else None))
        _, start, self.window = await loop.run_in_executor(None, self.pipe.recv)
        self.stop_at = self.window[1] + REACH_TIMEOUT + 1
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        await asyncio.gather(
            *(t.play() for t in tables), self.alongside(tables), return_exceptions=True
        )
        for task in list(self.tasks):
            task.cancel()
        self.pipe.send(("result", self.result()))

    async def alongside(self, tables):
        """What runs beside the tables' play (bench/soak.py's view checks); nothing here."""

    def result(self):
        """What this process reports to the tool at the end."""
        return {
            "latencies": self.latencies,
            "decided": self.decided,
            "errors": self.errors,
            "error_count": self.error_count,
            "resyncs": self.resyncs,
            "late": self.late,
            "push_sizes": self.push_sizes,
        }

    def port_for(self, path):
        """The server process a table's requests go to: one by the table's id when the site
        routes by table (`--route table`), the one shared socket otherwise."""
        found = _TABLE.search(path)
        return self.ports[int(found.group(1)) % len(self.ports)] if found else self.ports[0]

    async def connect(self, path, cookie):
        import websockets

        port = self.port_for(path)
        return await websockets.connect(
            f"ws://{self.host}:{port}{path}",
            max_size=None,
            open_timeout=60,
            additional_headers={
                "Cookie": f"sessionid={cookie}",
                "Origin": f"http://{self.host}:{port}",
            },
        )

    def later(self, coro):
        """Runs `coro` beside the caller; whatever is still running at the end is cancelled."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def http_get(self, path, cookie, htmx=True):
        """GET as a browser loads the page, or (htmx) as table.js's resync does: the status
        and the body."""
        port = self.port_for(path)
        reader, writer = await asyncio.open_connection(self.host, port)
        extra = "HX-Request: true\r\n" if htmx else ""
        writer.write(
            (
                f"GET {path} HTTP/1.0\r\nHost: {self.host}:{port}\r\n"
                f"Cookie: sessionid={cookie}\r\n{extra}\r\n"
            ).encode()
        )
        data = await reader.read()
        writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head else 0
        return status, body.decode()


class _GameTable:
    """The seats of one table, each a page: its socket, the newest fragments it has, and
    when each event number reached it."""

    def __init__(self, clients, game_id, cookies):
        self.c, self.game_id, self.cookies = clients, game_id, cookies
        self.sockets = [None] * len(cookies)
        self.pages = [Page() for _ in cookies]
        self.shown = [0] * len(cookies)
        self.arrivals = [[] for _ in cookies]  # per seat: [(seq, time)], seq rising
        self.waiters = []  # [(seq, future)]: resolved when every seat shows seq or later
        self.busy = [False] * len(cookies)  # a seat that is thinking or waiting for its answer
        self.looked_at = [-1] * len(cookies)  # the page number a seat last decided on
        self.answers = {}  # key -> future of the server's answer

    async def open(self, opening):
        """Each seat loads the page, then opens its socket, as a browser does."""
        for seat, cookie in enumerate(self.cookies):
            async with opening:
                status, html = await self.c.http_get(f"/games/{self.game_id}/", cookie, htmx=False)
                if status != 200:
                    raise RuntimeError(
                        f"table {self.game_id} seat {seat}: the page answered {status}"
                    )
                self.shown[seat] = page_seq(html)
                self.pages[seat].load(html, self.shown[seat])
                self.sockets[seat] = await self.c.connect(f"/ws/games/{self.game_id}/", cookie)
        return len(self.cookies)

    async def play(self):
        await asyncio.gather(*(self.listen(seat) for seat in range(len(self.cookies))))

    async def listen(self, seat):
        ws = self.sockets[seat]
        self.arrivals[seat].append((self.shown[seat], time.monotonic()))
        self.look(seat)
        try:
            await self.receive(seat, ws)
        except Exception as exc:  # noqa: BLE001 -- a socket that ends early is an error
            self.c.error(
                f"table {self.game_id} seat {seat}: socket ended: {type(exc).__name__}: {exc}"
            )
        finally:
            await ws.close()

    async def receive(self, seat, ws):
        """Takes what the socket brings until the run is over; raises if it closes first."""
        while True:
            timeout = self.c.stop_at - time.monotonic()
            if timeout <= 0:
                return
            try:
                payload = await asyncio.wait_for(ws.recv(), timeout)
            except TimeoutError:
                return
            now = time.monotonic()
            msg = json.loads(payload)
            kind = msg.get("type")
            if kind == "fragments":
                if self.c.in_window(now):
                    self.c.push_sizes.append(len(payload.encode()))
                self.pushed(seat, msg, now)
            elif kind == "hello":
                if msg["seq"] != self.shown[seat]:
                    self.c.later(self.resync(seat))
            elif kind in ("ok", "error"):
                future = self.answers.pop(msg.get("key"), None)
                if future is not None and not future.done():
                    future.set_result(msg)

    def pushed(self, seat, msg, now):
        if msg["seq"] <= self.shown[seat]:
            # Crossed by a newer push (table.js ignores it too): counted, as a measure of
            # how often pushes arrive out of order.
            self.c.late += msg["seq"] < self.shown[seat]
            return
        if TRACE and msg["seq"] > self.shown[seat] + 1:
            print(
                f"{now:.3f} table {self.game_id} seat {seat} shows "
                f"{self.shown[seat]}, got {msg['seq']}",
                flush=True,
            )
        if not self.pages[seat].holds(msg):
            # A push it cannot show whole (one it missed): resync, as table.js does.
            self.c.later(self.resync(seat))
            return
        self.pages[seat].apply(msg)
        self.show(seat, msg["seq"], msg["html"], now)

    async def resync(self, seat):
        self.c.resyncs += 1
        status, html = await self.c.http_get(f"/games/{self.game_id}/", self.cookies[seat])
        if status != 200:
            self.c.error(f"table {self.game_id} seat {seat}: resync answered {status}")
            return
        seq = page_seq(html)
        if seq > self.shown[seat]:
            self.pages[seat].load(html, seq)
            self.show(seat, seq, html, time.monotonic())

    def show(self, seat, seq, html, now):
        if TRACE:
            print(
                f"{now:.3f} table {self.game_id} seat {seat} shows {seq}: {choices(html)}",
                flush=True,
            )
        self.shown[seat] = seq
        self.arrivals[seat].append((seq, now))
        del self.arrivals[seat][:-64]
        for item in list(self.waiters):
            if min(self.shown) >= item[0] and not item[1].done():
                item[1].set_result(now)
                self.waiters.remove(item)
        self.look(seat)

    def look(self, seat):
        """Lets the seat think about its page unless it is already busy."""
        if not self.busy[seat] and time.monotonic() < self.c.window[1]:
            self.busy[seat] = True
            self.c.later(self.decide(seat))

    def reached(self, seq):
        """When the last seat got a page showing `seq` or later (None: not every seat yet)."""
        times = []
        for arrivals in self.arrivals:
            when = next((t for s, t in arrivals if s >= seq), None)
            if when is None:
                return None
            times.append(when)
        return max(times)

    async def decide(self, seat):
        ready = None  # when this decision's thinking is over
        try:
            while True:
                seq = self.shown[seat]
                if seq <= self.looked_at[seat]:
                    return
                action = pick_action(self.pages[seat].hand, self.c.rng)
                if action is None:
                    self.looked_at[seat] = seq  # nothing to do on this page
                    return
                if ready is None:
                    ready = time.monotonic() + self.c.pace * self.c.rng.uniform(0.5, 1.5)
                await asyncio.sleep(max(0.0, ready - time.monotonic()))
                if time.monotonic() >= self.c.window[1]:
                    return
                if self.shown[seat] != seq:
                    # The page changed while thinking (another seat's pick in a trade, say):
                    # look again, without thinking the whole time over as a person would not.
                    continue
                self.looked_at[seat] = seq
                await self.act(seat, action)
        finally:
            self.busy[seat] = False
            # A page that arrived while this seat was busy may offer a decision.
            if self.shown[seat] > self.looked_at[seat]:
                self.look(seat)

    async def act(self, seat, action):
        key = uuid.uuid4().hex
        answer = asyncio.get_running_loop().create_future()
        self.answers[key] = answer
        sent = time.monotonic()
        counted = self.c.in_window(sent)
        await self.sockets[seat].send(json.dumps({"type": "act", "action": action, "key": key}))
        try:
            msg = await asyncio.wait_for(answer, REACH_TIMEOUT)
        except TimeoutError:
            self.answers.pop(key, None)
            if counted:
                self.c.error(f"table {self.game_id} seat {seat}: no answer to {action}")
            return
        if TRACE:
            print(
                f"{time.monotonic():.3f} table {self.game_id} seat {seat} sent {action} on page "
                f"{self.looked_at[seat]}: {msg}",
                flush=True,
            )
        if msg["type"] == "error":
            if counted:
                self.c.error(
                    f"table {self.game_id} seat {seat}: {action} refused: {msg['message']}"
                )
            await self.resync(seat)
            return
        seq = msg["seq"]
        # Pages older than this move's event may still come (they crossed it): they show
        # the choice just made as still open, so they are not for deciding on.
        self.looked_at[seat] = max(self.looked_at[seat], seq - 1)
        when = self.reached(seq)
        if when is None:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append((seq, waiter))
            try:
                when = await asyncio.wait_for(waiter, REACH_TIMEOUT)
            except TimeoutError:
                if counted:
                    self.c.error(
                        f"table {self.game_id} event {seq}: not on every page after "
                        f"{REACH_TIMEOUT:.0f} s (pages show {self.shown})"
                    )
                return
        if counted:
            self.c.decided += 1
            self.c.latencies.append((when - sent) * 1000)


_Clients.table_class = _GameTable


class _EchoTable:
    """The same sockets in an echo room: one seat at a time sends, every seat gets it back."""

    def __init__(self, clients, game_id, cookies):
        self.c, self.game_id, self.cookies = clients, game_id, cookies
        self.sockets = []
        self.pending = {}  # id -> [sent, seats still to receive, future]

    async def open(self, opening):
        for cookie in self.cookies:
            async with opening:
                self.sockets.append(await self.c.connect(f"/ws/echo/{self.game_id}/", cookie))
        return len(self.cookies)

    async def play(self):
        await asyncio.gather(self.speak(), *(self.listen(ws) for ws in self.sockets))

    async def speak(self):
        n = 0
        while True:
            await asyncio.sleep(self.c.pace * self.c.rng.uniform(0.5, 1.5))
            sent = time.monotonic()
            if sent >= self.c.window[1]:
                return
            n += 1
            done = asyncio.get_running_loop().create_future()
            self.pending[n] = [sent, len(self.sockets), done]
            await self.c.rng.choice(self.sockets).send(
                json.dumps({"type": "echo", "id": n, "pad": self.c.pad})
            )
            try:
                when = await asyncio.wait_for(done, REACH_TIMEOUT)
            except TimeoutError:
                if self.c.in_window(sent):
                    self.c.error(
                        f"room {self.game_id} echo {n}: not on every socket after "
                        f"{REACH_TIMEOUT:.0f} s"
                    )
                continue
            finally:
                self.pending.pop(n, None)
            if self.c.in_window(sent):
                self.c.decided += 1
                self.c.latencies.append((when - sent) * 1000)

    async def listen(self, ws):
        try:
            while True:
                timeout = self.c.stop_at - time.monotonic()
                if timeout <= 0:
                    break
                try:
                    payload = await asyncio.wait_for(ws.recv(), timeout)
                except TimeoutError:
                    break
                now = time.monotonic()
                msg = json.loads(payload)
                item = self.pending.get(msg.get("id"))
                if item is not None:
                    item[1] -= 1
                    if item[1] == 0 and not item[2].done():
                        item[2].set_result(now)
        except Exception as exc:  # noqa: BLE001
            self.c.error(f"room {self.game_id}: socket ended: {type(exc).__name__}: {exc}")
        finally:
            await ws.close()


if __name__ == "__main__":
    main()
