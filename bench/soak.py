"""Soak under faults: the load tool's players for a long time while the site's processes and
services are killed and restarted one after another, then proof that nothing was lost.

    pip install -e '.[bench]'
    python -m bench.soak --minutes 30 --tables 200 --tables-6 10 --tables-8 10

It brings its own PostgreSQL cluster (initdb in a temporary directory, run as the postgres
user when started as root) and its own Redis, on free ports, so that restarting them troubles
nobody else on the machine; then the site as bench/load.py starts it (`--daphnes` Daphnes
sharing one listening socket, a Celery worker and beat) and bench/load.py's players, one
socket per seat, a decision every `--pace` seconds or so.

A fault every `--fault-every` seconds, the kinds in turn (`--faults` picks them):
- daphne: one Daphne killed with SIGKILL, started again a second later on the same socket;
- worker: the Celery worker killed with SIGKILL, whatever it was doing, and started again;
- beat: beat killed with SIGKILL and started again;
- redis: Redis stopped and started again (it keeps nothing on disk: the broker's queues,
  the channel layer's groups and the push memory go with it);
- postgres: PostgreSQL restarted (`pg_ctl restart -m fast`, what `pg_ctlcluster ...
  restart` does to a Debian cluster);
- sessions: every connection to the site's database ended (`pg_terminate_backend`).
No fault comes in the last `--quiet` seconds.

The players are bench/load.py's, and like a page (static/js/table.js) they reconnect when a
socket closes (0.5 s, doubling to 8 s apart) and resync when the socket's hello shows they
missed something. A decision that got no answer, or the answer that the database was lost,
is sent again with the same key once a socket is open (at most three more times), as a
client that wants it to count once must. Each player records every key it sent and every
one the site acknowledged (`ok` with its event number).

At the end it proves, and exits with status 1 if anything fails:
- lost 0, doubled 0: every acknowledged key is in the event log once, at the event number
  its answer gave;
- made by nobody 0: every event of a person carries a key one of the players sent;
- every table replays to its snapshot (`verify_games`), then is conceded and every deal
  verifies against its revealed seed (`verify_deals`);
- stuck 0: every table moved after the last fault's recovery time;
- views back: when each fault's recovery time is over, every seat loads its page and within
  5 s its socket shows that event, with the same hand (or a later one);
- the errors the players saw, by kind and by fault window: none outside a fault's window
  (the fault's start to its recovery time after, RECOVERY, as docs/deploy.md describes).
"""

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from bench.load import (
    REACH_TIMEOUT,
    ROOT,
    Page,
    _clear_clocks,
    _Clients,
    _GameTable,
    _Site,
    _wait_for,
    make_tables,
    page_seq,
)

FAULTS = ("daphne", "worker", "beat", "redis", "postgres", "sessions")
# With --hosts (bench/hosts.py): web1 cut off (every process on it killed and its link taken
# down, then back after HOST_DOWN seconds), and web2 cut off from Redis for REDIS_CUT seconds.
HOST_FAULTS = ("host", "redis-cut")
HOST_DOWN = 15.0
REDIS_CUT = 30.0
# Seconds after a fault's start within which the players may see it (docs/deploy.md, "Faults"):
# sockets reconnect 0.5 s to 8 s apart; a move in flight is answered after 5 s or sent again.
RECOVERY = {
    "daphne": 20,
    "worker": 20,
    "beat": 20,
    # Every page reconnects and resyncs: with 940 sockets on two cores, turned away while
    # their process has SOCKET_HANDSHAKES_WAITING handshakes waiting, the last are back
    # about 50 s after the restart.
    "redis": 60,
    "postgres": 30,
    "sessions": 20,
    "host": HOST_DOWN + 30,
    "redis-cut": REDIS_CUT + 30,
}
RETRIES = 3  # a decision without an answer is sent again this many times, with its key
VIEW_WAIT = 5.0  # a seat's socket must show what its fresh page shows within this
VIEW_CONCURRENCY = 16  # pages loaded at once by a client process's view check
VIEW_CHECK_TIMEOUT = 300  # seconds the next fault waits at most for a view check to end


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long the players play")
    parser.add_argument("--tables", type=int, default=200, help="tables of 4")
    parser.add_argument("--tables-6", type=int, default=10, help="tables of 6")
    parser.add_argument("--tables-8", type=int, default=10, help="tables of 8")
    parser.add_argument("--pace", type=float, default=3.0, help="mean seconds per decision")
    parser.add_argument("--daphnes", type=int, default=4)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--fault-every", type=float, default=60.0, help="seconds between faults")
    parser.add_argument(
        "--faults", default=",".join(FAULTS), help=f"kinds, in turn (of {', '.join(FAULTS)})"
    )
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before the first")
    parser.add_argument("--quiet", type=float, default=60.0, help="seconds after the last")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--hosts",
        action="store_true",
        help="several hosts in network namespaces (bench/hosts.py): PostgreSQL and Redis on "
        "one, two web hosts, nginx on another; adds the faults " + ", ".join(HOST_FAULTS),
    )
    args = parser.parse_args(argv)
    args.faults = [kind.strip() for kind in args.faults.split(",") if kind.strip()]
    known = FAULTS + HOST_FAULTS if args.hosts else FAULTS
    unknown = set(args.faults) - set(known)
    if unknown or not args.faults:
        sys.exit(f"unknown faults: {', '.join(sorted(unknown))}; choose among {known}")
    if args.hosts:
        from bench.hosts import available

        why = available()
        if why:
            sys.exit(f"--hosts: {why}")
    try:
        import websockets  # noqa: F401
    except ImportError:
        sys.exit("pip install -e '.[bench]' (websockets)")
    missing = [p for p in ("redis-server",) if shutil.which(p) is None]
    if missing or _pg_bin("initdb") is None:
        sys.exit("needs PostgreSQL's server programs (initdb, pg_ctl) and redis-server")

    work = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, work, ignore_errors=True)
        hosts = None
        if args.hosts:
            from bench.hosts import Hosts

            hosts = stack.enter_context(Hosts())
        postgres = OwnPostgres(work / "pg", hosts)
        redis = OwnRedis(work / "redis", hosts)
        stack.callback(postgres.stop)
        postgres.start()
        stack.callback(redis.stop)
        redis.start()
        _configure(postgres, redis)
        ok = _soak(args, postgres, redis, hosts, work)
    sys.exit(0 if ok else 1)


def _configure(postgres, redis):
    sys.path.insert(0, str(ROOT))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=postgres.url,
        REDIS_URL=f"redis://{redis.address}:{redis.port}/0",
        CELERY_QUEUE=f"soak-{uuid.uuid4().hex[:8]}",
    )
    for name in ("CELERY_BROKER_URL", "DATABASE_REPLICA_URL"):
        os.environ.pop(name, None)
    # The site as in production, over plain HTTP on 127.0.0.1 (as bench/load.py runs it).
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", f"soak-{uuid.uuid4().hex}")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
    import django

    django.setup()


def _soak(args, postgres, redis, hosts, work):
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    started = time.monotonic()
    sizes = [4] * args.tables + [6] * args.tables_6 + [8] * args.tables_8
    tables = make_tables(sizes)
    print(
        f"set up {len(tables)} tables ({args.tables} of 4, {args.tables_6} of 6, "
        f"{args.tables_8} of 8) in {time.monotonic() - started:.1f} s",
        flush=True,
    )
    if hosts is not None:
        from bench.hosts import HostSite

        site = HostSite(hosts, os.environ["CELERY_QUEUE"], work)
    else:
        site = _Site(args.daphnes, os.environ["CELERY_QUEUE"])
    with site:
        pipes, clients = _start_clients(args, site, tables)
        # The deal started each table's first clocks while the others were set up and the
        # pages opened: a seat would be timed out for the tool's own set-up (bench/load.py).
        _clear_clocks([game_id for game_id, _ in tables])
        connection.close()
        start = time.monotonic() + 0.5
        end = start + args.minutes * 60
        for pipe in pipes:
            pipe.send(("go", start, (start, end)))
        windows = _faults(args, site, postgres, redis, hosts, pipes, start, end)
        results = []
        for pipe in pipes:
            while True:  # past a check's reply that came after its fault's wait
                if not pipe.poll(REACH_TIMEOUT * (RETRIES + 2) + 120):
                    sys.exit("a client process did not report")
                message = pipe.recv()
                if message[0] != "checked":
                    break
            results.append(message[1])
        for proc in clients:
            proc.join(10)
        connection.close()
        return _report(args, tables, windows, results, site)


def _start_clients(args, site, tables):
    ctx = multiprocessing.get_context("spawn")
    pipes, clients = [], []
    for n in range(args.clients):
        mine, theirs = ctx.Pipe()
        config = {
            "ports": site.ports,
            "host": getattr(site, "host", "127.0.0.1"),
            "tables": tables[n :: args.clients],
            "echo": False,
            "pace": args.pace,
            "echo_bytes": 0,
            "seed": args.seed * 1000 + n,
        }
        proc = ctx.Process(target=_client_main, args=(config, theirs), daemon=True)
        proc.start()
        pipes.append(mine)
        clients.append(proc)
    opened = failed = 0
    for pipe in pipes:
        if not pipe.poll(600):
            sys.exit("a client process did not open its sockets within 10 minutes")
        _, ok, bad, why = pipe.recv()
        opened, failed = opened + ok, failed + bad
        if bad:
            sys.exit(f"{bad} sockets did not open (first: {why})")
    print(f"{opened} sockets open", flush=True)
    return pipes, clients


# --- the faults ----------------------------------------------------------------------------


def _faults(args, site, postgres, redis, hosts, pipes, start, end):
    """Injects a fault every --fault-every seconds until --quiet before `end`; after each
    one's recovery time the players check their views. Returns [(kind, start, recovered)]."""
    kinds = itertools.cycle(args.faults)
    rng = random.Random(args.seed)
    windows = []
    at = start + args.warmup
    kind = next(kinds)
    while at + RECOVERY[kind] <= end - args.quiet:
        time.sleep(max(0.0, at - time.monotonic()))
        began = time.monotonic()
        detail = _inject(kind, site, postgres, redis, hosts, rng)
        windows.append((kind, began, began + RECOVERY[kind]))
        print(f"{began - start:7.1f} s  {kind}: {detail}", flush=True)
        time.sleep(max(0.0, began + RECOVERY[kind] - time.monotonic()))
        for pipe in pipes:
            pipe.send(("check", len(windows) - 1))
        # The next fault waits for the check: a page loaded under it would see that fault.
        for pipe in pipes:
            if pipe.poll(min(VIEW_CHECK_TIMEOUT, max(1.0, end - time.monotonic()))):
                pipe.recv()  # ("checked", window)
        at = max(at + args.fault_every, time.monotonic() + 1)
        kind = next(kinds)
    time.sleep(max(0.0, end - time.monotonic()))
    return windows


def _inject(kind, site, postgres, redis, hosts, rng):
    if kind == "daphne":
        name = rng.choice([name for name in site.children if name.startswith("daphne-")])
        site.kill(name)
        time.sleep(1.0)
        site.start(name)
        return f"{name} killed, started again"
    if kind in ("worker", "beat"):
        name = f"celery-{kind}"
        site.kill(name)
        time.sleep(1.0)
        site.start(name)
        return f"{name} killed, started again"
    if kind == "host":
        killed = site.on("web1")
        for name in killed:
            site.kill(name)
        hosts.link("web1", up=False)
        time.sleep(HOST_DOWN)
        hosts.link("web1", up=True)
        for name in killed:
            site.start(name)
        return f"web1 cut off ({', '.join(killed)} killed, its link down {HOST_DOWN:.0f} s), back"
    if kind == "redis-cut":
        hosts.unreachable("web2", redis.address, cut=True)
        time.sleep(REDIS_CUT)
        hosts.unreachable("web2", redis.address, cut=False)
        return f"web2 cut off from Redis for {REDIS_CUT:.0f} s"
    if kind == "redis":
        redis.restart()
        return "stopped and started again"
    if kind == "postgres":
        postgres.restart()
        return "restarted"
    ended = postgres.terminate(postgres.database)
    return f"{ended} sessions ended"


def _pg_bin(program):
    for version in sorted(Path("/usr/lib/postgresql").glob("*"), reverse=True):
        path = version / "bin" / program
        if path.exists():
            return str(path)
    return shutil.which(program)


class OwnPostgres:
    """A PostgreSQL cluster of the soak's own, trust auth: on 127.0.0.1 and a free port, or
    with `hosts` on the db host's address and 5432, open to the other hosts."""

    def __init__(self, directory, hosts=None, database="wct_soak", conf=()):
        self.dir = Path(directory)
        self.data = self.dir / "data"
        self.hosts = hosts
        self.address = hosts.addr["db"] if hosts else "127.0.0.1"
        self.port = 5432 if hosts else _free_port()
        self.database = database
        self.conf = list(conf)  # lines added to postgresql.conf

    @property
    def url(self):
        return f"postgres://postgres@{self.address}:{self.port}/{self.database}"

    def _run(self, *command):
        prefix = self.hosts.prefix("db") if self.hosts else []
        if os.geteuid() == 0:
            prefix += ["runuser", "-u", "postgres", "--"]
        subprocess.run(prefix + list(command), check=True, capture_output=True, timeout=120)

    def own(self, path):
        """Makes `path` the postgres user's when run as root (initdb refuses root: the
        cluster and what it reads or writes are the postgres user's)."""
        path.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(path, "postgres")

    def start(self):
        self.own(self.dir)
        if os.geteuid() == 0:
            shutil.chown(self.dir.parent, "postgres")
        self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        if self.hosts:
            with open(self.data / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {self.hosts.subnet} trust\n")
            self.conf.append("max_connections = 200")
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.writelines(f"{line}\n" for line in self.conf)
        self._ctl("start")
        subprocess.run(
            ["psql", "-h", self.address, "-p", str(self.port), "-U", "postgres", "-qc",
             f"CREATE DATABASE {self.database}"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

    def base_backup(self, directory):
        """A base backup of the running cluster into `directory` (plain files, with the WAL
        it needs to be consistent), as the postgres user."""
        self.own(Path(directory).parent)
        self._run(
            _pg_bin("pg_basebackup"), "-h", self.address, "-p", str(self.port), "-U", "postgres",
            "-D", str(directory), "-X", "stream", "-c", "fast",
        )  # fmt: skip

    def recover(self, backup, restore_command, target_name):
        """Starts this cluster from the base backup `backup`, replaying the archived WAL
        (`restore_command`) up to the restore point `target_name`, then promoted to a
        primary. Returns once it accepts writes."""
        self.own(self.dir)
        self._run("cp", "-a", str(backup), str(self.data))
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(
                f"restore_command = '{restore_command}'\n"
                f"recovery_target_name = '{target_name}'\n"
                "recovery_target_action = 'promote'\n"
            )
        self._run("touch", str(self.data / "recovery.signal"))
        self._ctl("start")

    def _ctl(self, verb, *extra):
        options = f"-p {self.port} -k {self.dir} -c listen_addresses={self.address}"
        self._run(
            _pg_bin("pg_ctl"), verb, "-D", str(self.data), "-w", "-l", str(self.dir / "log"),
            "-o", options, *extra,
        )  # fmt: skip

    def restart(self):
        self._ctl("restart", "-m", "fast")

    def terminate(self, database):
        import psycopg

        with psycopg.connect(
            host=self.address, port=self.port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                [database],
            ).fetchall()
        return len(rows)

    def stop(self):
        if self.data.exists():
            try:
                self._ctl("stop", "-m", "immediate")
            except subprocess.CalledProcessError:
                pass  # not running


class OwnRedis:
    """A redis-server of the soak's own, keeping nothing on disk: on 127.0.0.1 and a free
    port, or with `hosts` on the db host's second address and 6379."""

    def __init__(self, directory, hosts=None):
        self.dir = Path(directory)
        self.hosts = hosts
        self.address = hosts.addr["redis"] if hosts else "127.0.0.1"
        self.port = 6379 if hosts else _free_port()
        self.proc = None

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        prefix = self.hosts.prefix("db") if self.hosts else []
        self.proc = subprocess.Popen(
            prefix + ["redis-server", "--port", str(self.port), "--bind", self.address,
                      "--save", "", "--appendonly", "no", "--dir", str(self.dir),
                      "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_for(self.port, self.address)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def restart(self):
        self.stop()
        time.sleep(1.0)
        self.start()


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the players ---------------------------------------------------------------------------


def _client_main(config, pipe):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A socket the server closed under a keepalive ping is counted as an error of its kind;
    # the websockets library's own traceback of it says nothing more.
    logging.getLogger("websockets").setLevel(logging.CRITICAL)
    asyncio.run(_SoakClients(config, pipe).run())


class _SoakClients(_Clients):
    """bench/load.py's players, which also reconnect, send again with the same key, record
    every key, and check their views when told."""

    def __init__(self, config, pipe):
        super().__init__(config, pipe)
        self.failures = []  # (when, kind, text): every error, whenever it came
        self.sent = {}  # key -> game id
        self.acked = {}  # key -> (game id, seq)
        self.views = []  # (window, checked, not back, first problem)
        self.games = []

    def error(self, text, kind="other"):
        self.failures.append((time.monotonic(), kind, text))

    def in_window(self, when):
        return when < self.window[1]  # everything counts: the whole soak is measured

    async def alongside(self, tables):
        """Listens for the tool's orders while the tables play: a view check after each
        fault's recovery time; the end of the run stops it."""
        loop = asyncio.get_running_loop()
        self.games = tables
        while time.monotonic() < self.stop_at:
            ready = await loop.run_in_executor(None, self.pipe.poll, 1.0)
            if ready:
                _, window = self.pipe.recv()
                self.later(self.check_views(window, tables))

    async def check_views(self, window, tables):
        # A few pages at a time, as people's pages load, not every seat in one burst.
        loading = asyncio.Semaphore(VIEW_CONCURRENCY)

        async def check(table, seat):
            async with loading:
                return await table.view_back(seat)

        results = await asyncio.gather(
            *(check(t, seat) for t in tables for seat in range(len(t.cookies)))
        )
        problems = [r for r in results if r]
        self.views.append((window, len(results), len(problems), problems[0] if problems else ""))
        self.pipe.send(("checked", window))

    def result(self):
        return dict(
            super().result(),
            failures=self.failures,
            sent=self.sent,
            acked=self.acked,
            views=self.views,
        )


class _SoakTable(_GameTable):
    def __init__(self, clients, game_id, cookies):
        super().__init__(clients, game_id, cookies)
        self.open_again = [asyncio.Event() for _ in cookies]

    async def listen(self, seat):
        self.arrivals[seat].append((self.shown[seat], time.monotonic()))
        self.open_again[seat].set()
        self.look(seat)
        retry = 0
        while time.monotonic() < self.c.stop_at:
            ws = self.sockets[seat]
            if ws is None:
                await asyncio.sleep(min(8.0, 0.5 * 2**retry) * self.c.rng.uniform(0.8, 1.2))
                retry = min(retry + 1, 4)
                try:
                    ws = await self.c.connect(f"/ws/games/{self.game_id}/", self.cookies[seat])
                except Exception as exc:  # noqa: BLE001 -- counted, tried again
                    self.c.error(f"table {self.game_id} seat {seat}: {exc!r}", "connect failed")
                    continue
                self.sockets[seat] = ws
                self.open_again[seat].set()
                retry = 0
            try:
                await self.receive(seat, ws)
                break  # the run is over
            except Exception as exc:  # noqa: BLE001 -- a socket closed: open another
                self.sockets[seat] = None
                self.open_again[seat].clear()
                self.c.error(f"table {self.game_id} seat {seat}: {exc!r}", "socket closed")
        ws = self.sockets[seat]
        if ws is not None:
            await ws.close()

    async def resync(self, seat):
        self.c.resyncs += 1
        try:
            status, html = await self.c.http_get(f"/games/{self.game_id}/", self.cookies[seat])
        except OSError as exc:
            self.c.error(f"table {self.game_id} seat {seat}: resync: {exc!r}", "page failed")
            return
        if status != 200:
            self.c.error(f"table {self.game_id} seat {seat}: resync answered {status}", "page")
            return
        seq = page_seq(html)
        if seq > self.shown[seat]:
            self.pages[seat].load(html, seq)
            self.show(seat, seq, html, time.monotonic())

    async def act(self, seat, action):
        key = uuid.uuid4().hex
        self.c.sent[key] = self.game_id
        for attempt in range(RETRIES + 1):
            msg = await self.send(seat, action, key)
            if msg is None:
                self.c.error(
                    f"table {self.game_id} seat {seat}: no answer to {action}", "no answer"
                )
                continue
            if msg["type"] == "ok":
                self.c.acked[key] = (self.game_id, msg["seq"])
                self.c.decided += 1
                self.looked_at[seat] = max(self.looked_at[seat], msg["seq"] - 1)
                return
            self.c.error(f"table {self.game_id} seat {seat}: {msg['message']}", "refused")
            if "not saved" not in msg["message"]:
                break  # refused for good (the page was behind): look again
            await asyncio.sleep(1.0 + attempt)
        await self.resync(seat)

    async def send(self, seat, action, key):
        """Sends the decision once a socket is open; its answer, or None after 5 s."""
        try:
            await asyncio.wait_for(self.open_again[seat].wait(), 30)
        except TimeoutError:
            return None
        answer = asyncio.get_running_loop().create_future()
        self.answers[key] = answer
        try:
            await self.sockets[seat].send(json.dumps({"type": "act", "action": action, "key": key}))
            return await asyncio.wait_for(answer, REACH_TIMEOUT)
        except Exception:  # noqa: BLE001 -- closed under it, or no answer: sent again
            self.answers.pop(key, None)
            return None

    async def view_back(self, seat):
        """'' if the seat's socket shows what a fresh page shows within VIEW_WAIT (the same
        hand at the same event, or a later event); else what differs."""
        try:
            status, html = await self.c.http_get(f"/games/{self.game_id}/", self.cookies[seat])
        except OSError as exc:
            return f"table {self.game_id} seat {seat}: page: {exc!r}"
        if status != 200:
            return f"table {self.game_id} seat {seat}: page answered {status}"
        fresh = Page()
        fresh.load(html, page_seq(html))
        deadline = time.monotonic() + VIEW_WAIT
        while self.shown[seat] < fresh.seq:
            if time.monotonic() > deadline:
                return (
                    f"table {self.game_id} seat {seat}: the page shows event {fresh.seq}, "
                    f"the socket {self.shown[seat]} after {VIEW_WAIT:.0f} s"
                )
            await asyncio.sleep(0.1)
        if self.shown[seat] == fresh.seq and _bare(self.pages[seat].hand) != _bare(fresh.hand):
            import difflib

            diff = difflib.unified_diff(
                _bare(fresh.hand).split(">"), _bare(self.pages[seat].hand).split(">"),
                lineterm="", n=0,
            )  # fmt: skip
            return (
                f"table {self.game_id} seat {seat}: another hand at event {fresh.seq}: "
                + " | ".join(list(diff)[2:8])[:600]
            )
        return ""


_SoakClients.table_class = _SoakTable

# What differs between two renderings of the same hand: a whole page's pieces carry their
# versions, and its forms the request's CSRF token and a fresh key for the next decision.
_PER_RENDERING = re.compile(
    r' data-v="[0-9a-f]+"|\s*<input type="hidden" name="(?:csrfmiddlewaretoken|key)" [^>]*>'
)


def _bare(hand):
    return _PER_RENDERING.sub("", hand)


# --- the proof -----------------------------------------------------------------------------


def _report(args, tables, windows, results, site):
    from django.core.management import CommandError, call_command

    from games.models import GameEvent

    game_ids = [game_id for game_id, _ in tables]
    sent = {k: g for r in results for k, g in r["sent"].items()}
    acked = {k: tuple(v) for r in results for k, v in r["acked"].items()}
    failures = sorted(f for r in results for f in r["failures"])
    views = [v for r in results for v in r["views"]]

    # The seat door keeps a player's key as "u<user id>-<key>" (games.actions.seat_door).
    logged = Counter()
    at = {}
    made_by_nobody = []
    for game_id, seq, stored, actor in GameEvent.objects.filter(game_id__in=game_ids).values_list(
        "game_id", "seq", "idempotency_key", "actor"
    ):
        if actor != GameEvent.Actor.PERSON:
            continue  # a bot's, a time-out's or the deal's
        key = (stored or "").rsplit("-", 1)[-1]
        logged[(game_id, key)] += 1
        at[(game_id, key)] = seq
        if sent.get(key) != game_id:
            made_by_nobody.append((game_id, seq))
    lost = [k for k, (g, _) in acked.items() if logged[(g, k)] == 0]
    doubled = [k for k, (g, _) in acked.items() if logged[(g, k)] > 1]
    elsewhere = [k for k, (g, s) in acked.items() if logged[(g, k)] == 1 and at[(g, k)] != s]

    last = max((recovered for _, _, recovered in windows), default=0.0)
    stuck = _stuck(game_ids, last)
    replayed = _command(call_command, CommandError, "verify_games", *game_ids)
    by_actor = Counter(
        GameEvent.objects.filter(game_id__in=game_ids).values_list("actor", flat=True)
    )
    try:
        _concede_all(game_ids)
    except Exception as exc:  # noqa: BLE001 -- reported, and the proof of the deals fails
        print(f"could not end every table: {exc!r}", flush=True)
    deals = _command(call_command, CommandError, "verify_deals", *game_ids)

    outside = []
    by_window = Counter()
    for when, kind, text in failures:
        inside = [
            n for n, (_, began, recovered) in enumerate(windows) if began <= when <= recovered
        ]
        if inside:
            by_window[(inside[0], kind)] += 1
        else:
            outside.append((when, kind, text))
    not_back = sum(v[2] for v in views)

    decided = sum(r["decided"] for r in results)
    events = GameEvent.objects.filter(game_id__in=game_ids).count()
    print()
    print(
        f"soak: {len(tables)} tables, {args.minutes:g} min, {decided} decisions acknowledged "
        f"({len(sent)} sent), {events} events, {len(windows)} faults "
        f"({', '.join(f'{k} {n}' for k, n in Counter(k for k, _, _ in windows).items())})"
    )
    print(
        f"  acknowledged decisions checked: {len(acked)}; lost {len(lost)}, doubled "
        f"{len(doubled)}, at another event {len(elsewhere)}, made by nobody {len(made_by_nobody)}"
    )
    print(f"  verify_games: {replayed}")
    print(f"  verify_deals (every table conceded at the end): {deals}")
    print(f"  stuck (no event after the last fault's recovery): {len(stuck)}")
    print(
        "  events by actor: "
        + ", ".join(f"{actor} {n}" for actor, n in sorted(by_actor.items()))
        + " (time-outs and bots: seats whose player did not move in time)"
    )
    print(
        f"  views: {sum(v[1] for v in views)} seat checks after {len(views)} recoveries, "
        f"{not_back} not back" + "".join(f"\n    {v[3]}" for v in views if v[2])[:2000]
    )
    print(f"  errors by fault window and kind ({len(failures)} in all):")
    for n, (kind, began, _) in enumerate(windows):
        seen = {k: c for (w, k), c in by_window.items() if w == n}
        if seen:
            counts = ", ".join(f"{k} {c}" for k, c in sorted(seen.items()))
            print(f"    {n + 1:>3} {kind:<9} at {began - windows[0][1]:7.1f} s: {counts}")
    print(f"  errors outside every fault's window: {len(outside)}")
    for kind, counts in sorted(_after_windows(outside, windows).items()):
        print(f"    {kind}, by seconds after the last window's end: " + ", ".join(counts))
    for _, kind, text in outside[:10]:
        print(f"    {kind}: {text}")
    dead = [name for name, child in site.children.items() if child.poll() is not None]
    if dead:
        print(f"  processes that died on their own: {', '.join(dead)}")
    ok = (
        not (lost or doubled or elsewhere or made_by_nobody or stuck or outside or not_back or dead)
        and replayed.startswith("ok")
        and deals.startswith("ok")
    )
    print("  result: " + ("nothing lost" if ok else "FAILED"))
    return ok


def _after_windows(outside, windows):
    """Errors outside every window by kind, counted by how long after the end of the last
    window before them they came: a window too short shows as errors just past it."""
    buckets = ((10, "under 10"), (30, "10-30"), (60, "30-60"), (float("inf"), "over 60"))
    counted = {}
    for when, kind, _ in outside:
        ends = [recovered for _, _, recovered in windows if recovered < when]
        if not ends:
            label = "before the first fault"
        else:
            after = when - max(ends)
            label = next(name for limit, name in buckets if after < limit)
        counted.setdefault(kind, Counter())[label] += 1
    return {kind: [f"{label} {n}" for label, n in c.items()] for kind, c in counted.items()}


def _concede_all(game_ids):
    """Every team but the last concedes at each table still being played, which ends it and
    reveals its seed (the deals' proof needs that). Conceded as a moderator would: a seat
    may be a bot's for good by now (three missed moves), which refuses its player's moves."""
    from games.actions import decisions
    from games.models import Game, GameEvent

    for game in Game.objects.filter(pk__in=game_ids, status=Game.Status.ACTIVE):
        for team in range(game.players // 2 - 1):  # seat t is of team t
            decisions.apply_decision(game.pk, team, {"type": "concede"}, GameEvent.Actor.MODERATOR)


def _stuck(game_ids, since_monotonic):
    """Tables still being played that made no event after `since_monotonic`."""
    from datetime import timedelta

    from django.db.models import Max
    from django.utils import timezone

    from games.models import Game

    since = timezone.now() - timedelta(seconds=time.monotonic() - since_monotonic)
    last = (
        Game.objects.filter(pk__in=game_ids, status=Game.Status.ACTIVE)
        .annotate(last=Max("events__created_at"))
        .values_list("pk", "last")
    )
    return [pk for pk, when in last if when is None or when < since]


def _command(call_command, error, name, *ids):
    """'ok: <its output>' or 'FAILED: <why>'."""
    import io

    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(name, *map(str, ids), stdout=out, stderr=err)
    except error as exc:
        return f"FAILED: {exc}; {err.getvalue()[:1000]}"
    lines = out.getvalue().strip().splitlines()
    return f"ok: {lines[-1] if lines else ''}"


if __name__ == "__main__":
    main()
