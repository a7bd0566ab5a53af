#!/usr/bin/env python3
"""A Wild Cards Teams bot that plays random legal moves through the Bot API.

    python examples/random_bot.py --url https://wildcards.example --token wct_...

It accepts every invitation of its bot account, opens the stream of each of its seats,
and whenever a seat has a decision to make it sends one legal action picked at random,
with a fresh idempotency key. It stops, exit status 0, once every game it sat at is over.

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
            f"{self.url}/api/bot{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json", "Accept": "application/json"})
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


async def decide(api, game, seat, state):
    """Sends a random legal decision while the seat has one to make. A refusal (the game
    moved meanwhile, say) is answered by reading the seat again: the stream sends only
    newer states, and none comes while the game waits on this seat."""
    for _ in range(3):
        if not state.get("your_turn") or (action := choose(state)) is None:
            return
        # A fresh key per decision: sent again (a retry), it would move nothing.
        status, answer = await asyncio.to_thread(
            api.call, "POST", f"/games/{game}/decisions",
            {"action": action, "key": uuid.uuid4().hex})
        print(f"game {game} seat {seat}: {json.dumps(action)} -> {status} {answer}", flush=True)
        if status == 200:
            return
        status, state = await asyncio.to_thread(api.call, "GET", f"/games/{game}")
        if status != 200:
            return


async def play(api, game, seat):
    """Plays one seat to its game's end; returns the game's final status."""
    headers = {"Authorization": f"Bearer {api.token}"}
    while True:
        try:
            # The site accepts sockets from its own origin only: say which site this is.
            async with websockets.connect(stream_url(api.url, game), additional_headers=headers,
                                          origin=api.url.rstrip("/")) as socket:
                async for text in socket:
                    message = json.loads(text)
                    if message["type"] == "error":
                        print(f"game {game}: refused: {message['message']}", flush=True)
                        continue
                    if message["type"] != "state":
                        continue
                    if message["status"] in DONE or (message["view"] or {}).get("game_over"):
                        over = (message["view"] or {}).get("game_over") or {}
                        print(f"game {game}: over ({message['status']}), winner: team "
                              f"{over.get('winner')}", flush=True)
                        return message["status"]
                    await decide(api, game, seat, message)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            if code in (4401, 4404, 4410):  # the token or the seat is gone: nothing to retry
                print(f"game {game}: stream closed ({code})", flush=True)
                return "closed"
        except OSError as error:
            print(f"game {game}: stream lost ({error}), reconnecting", flush=True)
        await asyncio.sleep(1)


async def main(args):
    api = Api(args.url, args.token)
    status, account = api.call("GET", "/account")
    if status != 200:
        print(f"the token was refused: {status} {account}", file=sys.stderr)
        return 2
    print(f"playing as {account['username']}", flush=True)
    playing, results = {}, {}
    give_up = time.monotonic() + args.wait
    while True:
        for invitation in api.call("GET", "/invitations")[1]:
            status, answer = api.call("POST", f"/invitations/{invitation['id']}/accept")
            print(f"invitation {invitation['id']} to game {invitation['game']} seat "
                  f"{invitation['seat']}: {status} {answer}", flush=True)
        for seat in api.call("GET", "/seats")[1]:
            if seat["game"] not in playing:
                print(f"game {seat['game']}: seated at {seat['seat']}", flush=True)
                playing[seat["game"]] = asyncio.create_task(play(api, seat["game"], seat["seat"]))
        for game, task in list(playing.items()):
            if task.done():
                results[game] = task.result()
        if playing and len(results) == len(playing):
            return 0 if all(result in DONE for result in results.values()) else 1
        if not playing and time.monotonic() > give_up:
            print("no invitation and no seat: nothing to play", file=sys.stderr)
            return 1
        await asyncio.sleep(args.poll)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. https://wildcards.example")
    parser.add_argument("--token", required=True, help="the bot account's API token (wct_...)")
    parser.add_argument("--wait", type=float, default=60,
                        help="seconds to wait for a first invitation or seat (default 60)")
    parser.add_argument("--poll", type=float, default=2,
                        help="seconds between looks for new invitations (default 2)")
    sys.exit(asyncio.run(main(parser.parse_args())))
