"""Benchmark: a player's action -> every seat's socket has its new fragments.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/wct_table_bench REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.table_latency --tables 1 --moves 200
    ... --tables 100 --moves 1000

It migrates the database named in DATABASE_URL, starts a Daphne process on
config.asgi, creates `--tables` started 4-person tables, opens one websocket
per seat (logged in with a session cookie, like a browser) and applies plain
moves through services.apply_decision from `--writers` threads, round-robin
over the tables, so that every table is being played at once. For each move
it measures from just before apply_decision to the moment the last of the
table's four sockets has received the fragments numbered with the new event.
Not a test: it prints median, p95 and max in ms.
"""

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--moves", type=int, default=200, help="moves in all")
    parser.add_argument("--writers", type=int, default=4)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("Set DATABASE_URL (PostgreSQL) and REDIS_URL: this measures the real stack.")

    import django
    import websockets  # pip install websockets: a plain asyncio client, for this benchmark only

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.test import Client

    from accounts.models import User
    from games import services
    from games.models import Game, GameEvent
    from lobby import services as lobby

    run = uuid.uuid4().hex[:6]
    tables = []
    for t in range(args.tables):
        users = [User.objects.create_user(f"b{run}-{t}-{s}", email=f"b{run}-{t}-{s}@example.com")
                 for s in range(4)]
        game = lobby.create_table(users[0])
        for s in range(1, 4):
            lobby.take_seat(game.pk, users[s], s)
        lobby.start_table(game.pk, users[0])
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
        tables.append((game.pk, cookies))

    port = _free_port()
    daphne = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=dict(os.environ, LOG_LEVEL="WARNING"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_for(port)

    arrivals = {}  # (game, seq) -> [time a seat got it]
    lock = threading.Lock()
    loop = asyncio.new_event_loop()
    opened = threading.Event()
    expected = len(tables) * 4
    open_count = [0]

    async def listen(game_id, cookie):
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/games/{game_id}/", max_size=None,
            additional_headers={"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"},
        ) as ws:
            with lock:
                open_count[0] += 1
                if open_count[0] == expected:
                    opened.set()
            async for payload in ws:
                now = time.perf_counter()
                msg = json.loads(payload)
                if msg.get("type") == "fragments":
                    with lock:
                        arrivals.setdefault((game_id, msg["seq"]), []).append(now)

    async def connect_all():
        for game_id, cookies in tables:
            for cookie in cookies:
                asyncio.ensure_future(listen(game_id, cookie))

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(connect_all(), loop).result(timeout=120)
    if not opened.wait(60):
        sys.exit(f"only {open_count[0]} of {expected} sockets opened")
    time.sleep(0.5)

    latencies = []
    table_locks = {game_id: threading.Lock() for game_id, _ in tables}

    def one_move(i):
        game_id = tables[i % len(tables)][0]
        with table_locks[game_id]:  # one move at a time per table, like real players
            game = Game.objects.select_related("snapshot").get(pk=game_id)
            if game.status != Game.Status.ACTIVE:
                return
            state = services.load_state(game)
            seat = game.waiting_on[0]
            action = state.auto_action(seat)
            start = time.perf_counter()
            result = services.apply_decision(game_id, seat, action, GameEvent.Actor.PERSON,
                                             idempotency_key=uuid.uuid4().hex)
            key = (game_id, result.event.seq)
            deadline = start + 5
            while time.perf_counter() < deadline:
                with lock:
                    got = arrivals.get(key, [])
                    if len(got) >= 4:
                        latencies.append((max(got[:4]) - start) * 1000)
                        return
                time.sleep(0.0005)
            print(f"timeout: game {game_id} event {result.event.seq} reached {len(got)} sockets")

    with ThreadPoolExecutor(args.writers) as pool:
        list(pool.map(one_move, range(args.moves)))
    daphne.terminate()
    daphne.wait(10)
    if not latencies:
        sys.exit("no measurements")
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"tables={args.tables} moves={len(latencies)} writers={args.writers}: "
          f"median {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms")


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
