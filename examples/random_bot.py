#!/usr/bin/env python3
"""A Wild Cards Teams bot that plays random legal moves through the Bot API.

    pip install ./clients/python
    python examples/random_bot.py --url https://wildcards.example --token wct_...

It accepts every invitation of its bot account, plays each of its seats over the seat's
stream, and stops, exit status 0, once every game it sat at is over. The strategy is the
`decide` method below; the client package (clients/python, `wildcards_bot`) does the rest:
one decision in flight per seat, keys made of the game, the seat and the state's seq (a
retry is answered `replayed`), reconnecting after a drop, waiting for a newer state after
a refusal, and the HTTP calls kept inside the account's rate limit. The site's page
/bots/docs/ explains each step.
"""

import argparse
import asyncio
import logging
import random
import sys

from wildcards_bot import Action, ApiError, Bot, Client, models, play_account


class RandomBot(Bot):
    """The strategy: a random legal action, or a random give when the seat must give."""

    def decide(self, state: models.GameOut) -> Action | None:
        view = state.get("view")
        if view and view["must_give"]:
            # A give is never listed among the legal actions: any cards of the hand will do.
            cards = random.sample(view["hand"], view["must_give"])
            return models.GiveAction(type="give", cards=cards)
        return random.choice(state["legal"]) if state["legal"] else None

    def game_over(self, state: models.GameOut) -> None:
        view = state.get("view")
        winner = view["game_over"]["winner"] if view and view["game_over"] else None
        print(f"game {state['game']}: over ({state['status']}), winner: team {winner}")


async def main(args: argparse.Namespace) -> int:
    client = Client(args.url, args.token)
    try:
        account = await asyncio.to_thread(client.account)
    except ApiError as error:
        print(f"the token was refused: {error}", file=sys.stderr)
        return 2
    print(f"playing as {account['username']}")
    results = await play_account(
        client, RandomBot(), wait=args.wait, poll=args.poll, poll_playing=args.poll_playing
    )
    if not results:
        print("no invitation and no seat: nothing to play", file=sys.stderr)
        return 1
    for result in results.values():
        print(
            f"game {result.game} seat {result.seat}: {result.status}, {result.decisions} "
            f"decisions, {len(result.refused)} refused, {result.reconnects} reconnects, "
            f"median round trip {result.median_ms or 0:.0f} ms"
        )
    return 0 if all(result.status in ("finished", "aborted") for result in results.values()) else 1


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
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    sys.exit(asyncio.run(main(parser.parse_args())))
