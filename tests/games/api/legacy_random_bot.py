#!/usr/bin/env python3
"""A Wild Cards Teams bot that plays random legal moves through the Bot API.

    python examples/random_bot.py --url https://wildcards.example --token wct_...

It accepts every invitation of its bot account, opens the stream of each of its seats,
and whenever a seat has a decision to make it sends one legal action picked at random
over that stream, with a fresh idempotency key. It stops, exit status 0, once every game
it sat at is over.

Decisions go over the stream rather than POST /decisions because every HTTP call counts
against the token's rate limit, and a fast table (site bots answer at once) can ask a seat
for more decisions a minute than the limit allows; the HTTP calls left are the account,
the invitations and the seats, looked at every --poll seconds while it waits for a game
and every --poll-playing seconds while one is under way.

Needs Python 3.10+ and the `websockets` package (pip install websockets); everything else
is the standard library. The site's page "Bot accounts and the Bot API" explains each step.
"""

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid

import websockets

DONE = ("finished", "aborted")


class Api:
    """The HTTP half: JSON over urllib, the token in the Authorization header."""

    def __init__(self, url, token):
        self.url, self.token = url.rstrip("/"), token

    def call(self, method, path, body=None):
        request = urllib.request.Request(
            f"{self.url}/api/bot{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            if error.code == 429:  # rate-limited: wait as told, then try again
                time.sleep(float(error.headers.get("Retry-After") or 1))
                return self.call(method, path, body)
            return error.code, json.loads(error.read() or b"null")


def choose(state):
    """A random legal decision for this state, or None if the seat has none."""
    view = state["view"] or {}
    if view.get("must_give"):
        # A give is never listed among the legal actions: any cards of the hand will do.
        return {"type": "give", "cards": random.sample(view["hand"], view["must_give"])}
    return random.choice(state["legal"]) if state["legal"] else None


def stream_url(url, game):
    base = url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return f"{base}/api/bot/games/{game}/stream"


class Seat:
    """One seat's decisions over its stream: at most one in flight, answered `ok` with its
    seq or `error`. States that come while one is in flight wait; the newest is acted on
    once the answer is in, unless it is older than the decision made (the stream sent it
    before our decision reached the game)."""

    def __init__(self, socket, game, seat):
        self.socket, self.game, self.seat = socket, game, seat
        self.pending = None  # the key of the decision sent and not answered yet
        self.waiting = None  # the newest state that came meanwhile
        self.made = -1  # the seq of the last decision made

    async def state(self, state):
        self.waiting = state
        if self.pending is None:
            await self.decide()

    async def answer(self, message):
        if message.get("key") != self.pending:
            return
        self.pending = None
        if message["type"] == "ok":
            self.made = message["seq"]
        else:  # refused: the game moved on, and the stream sends (or sent) the newer state
            print(f"game {self.game} seat {self.seat}: refused: {message['message']}", flush=True)
        await self.decide()

    async def decide(self):
        state, self.waiting = self.waiting, None
        if state is None or state["seq"] < self.made or not state.get("your_turn"):
            return
        if (action := choose(state)) is None:
            return
        # A fresh key per decision: sent again (a retry), it would move nothing.
        self.pending = uuid.uuid4().hex
        print(
            f"game {self.game} seat {self.seat}: {json.dumps(action)} at {state['seq']}", flush=True
        )
        await self.socket.send(json.dumps({"type": "act", "action": action, "key": self.pending}))


async def play(api, game, seat):
    """Plays one seat to its game's end; returns the game's final status."""
    headers = {"Authorization": f"Bearer {api.token}"}
    while True:
        try:
            # The site accepts sockets from its own origin only: say which site this is.
            async with websockets.connect(
                stream_url(api.url, game), additional_headers=headers, origin=api.url.rstrip("/")
            ) as socket:
                player = Seat(socket, game, seat)
                async for text in socket:
                    message = json.loads(text)
                    if message["type"] in ("ok", "error"):
                        if message["type"] == "error" and message.get("key") is None:
                            print(f"game {game}: refused: {message['message']}", flush=True)
                        await player.answer(message)
                        continue
                    if message["type"] != "state":
                        continue
                    if message["status"] in DONE or (message["view"] or {}).get("game_over"):
                        over = (message["view"] or {}).get("game_over") or {}
                        print(
                            f"game {game}: over ({message['status']}), winner: team "
                            f"{over.get('winner')}",
                            flush=True,
                        )
                        return message["status"]
                    await player.state(message)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            if code in (4401, 4404, 4410):  # the token or the seat is gone: nothing to retry
                print(f"game {game}: stream closed ({code})", flush=True)
                return "closed"
        except OSError as error:
            print(f"game {game}: stream lost ({error}), reconnecting", flush=True)
        await asyncio.sleep(1)


async def look_around(api, call, listed, playing):
    """Accepts every invitation, and starts playing each seat not yet in `playing`."""
    for invitation in await listed("/invitations"):
        status, answer = await call("POST", f"/invitations/{invitation['id']}/accept")
        print(
            f"invitation {invitation['id']} to game {invitation['game']} seat "
            f"{invitation['seat']}: {status} {answer}",
            flush=True,
        )
    for seat in await listed("/seats"):
        if seat["game"] not in playing:
            print(f"game {seat['game']}: seated at {seat['seat']}", flush=True)
            playing[seat["game"]] = asyncio.create_task(play(api, seat["game"], seat["seat"]))


async def main(args):
    api = Api(args.url, args.token)

    async def call(method, path):
        # In a thread: a rate-limited call sleeps there, not in the loop the streams run on.
        return await asyncio.to_thread(api.call, method, path)

    async def listed(path):
        status, found = await call("GET", path)
        return found if status == 200 else []

    status, account = await call("GET", "/account")
    if status != 200:
        print(f"the token was refused: {status} {account}", file=sys.stderr)
        return 2
    print(f"playing as {account['username']}", flush=True)
    playing, results = {}, {}
    give_up = time.monotonic() + args.wait
    looked = None  # when the invitations and seats were last read
    while True:
        # Every call counts against the token's rate limit, which the decisions need: while
        # a game is under way, new invitations are looked for only every --poll-playing s.
        every = args.poll_playing if len(results) < len(playing) else args.poll
        if looked is None or time.monotonic() - looked >= every:
            looked = time.monotonic()
            await look_around(api, call, listed, playing)
        for game, task in list(playing.items()):
            if task.done():
                results[game] = task.result()
        if playing and len(results) == len(playing):
            return 0 if all(result in DONE for result in results.values()) else 1
        if not playing and time.monotonic() > give_up:
            print("no invitation and no seat: nothing to play", file=sys.stderr)
            return 1
        await asyncio.sleep(min(args.poll, 1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. https://wildcards.example")
    parser.add_argument("--token", required=True, help="the bot account's API token (wct_...)")
    parser.add_argument(
        "--wait",
        type=float,
        default=60,
        help="seconds to wait for a first invitation or seat (default 60)",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=2,
        help="seconds between looks for new invitations (default 2)",
    )
    parser.add_argument(
        "--poll-playing",
        type=float,
        default=30,
        help="the same while a game is under way (default 30)",
    )
    sys.exit(asyncio.run(main(parser.parse_args())))
