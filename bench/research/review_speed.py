"""How long a whole review of one seat takes, at each table size.

    python -m bench.research.review_speed [--players 4 6 8] [--games G] [--seed S]
        [--level LEVEL]

Each game is one round played by the ladder's bots (Normal at every seat by default), and
seat 0's review is computed whole, both ways (with what the seat knew and with every
hand), on the site's budget (`review.REVIEW_BUDGET`): what the review task does, without
its few row writes. Prints, per table size, the decisions reviewed and the seconds per
review (median and worst), one process, on whatever else the machine is doing.
"""

import argparse
import statistics
import time

from bench.research.review_calibration import game_rows
from games.bots.review import review_seat
from games.engine import Options


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, nargs="+", default=[4, 6, 8])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--level", default="normal")
    o = p.parse_args(argv)
    for players in o.players:
        options = Options(players=players)
        seconds, counts = [], []
        for i in range(o.games):
            deal = o.seed * 1_000 + i
            rows = game_rows(options, deal, [o.level] * players, deal)
            started = time.perf_counter()
            review = review_seat(options, deal, rows, 0)
            seconds.append(time.perf_counter() - started)
            counts.append(len(review["decisions"]))
        print(
            f"{players} players: {o.games} reviews of {statistics.median(counts):.0f} decisions "
            f"(median; {min(counts)}..{max(counts)}), {statistics.median(seconds):.1f} s median, "
            f"{max(seconds):.1f} s worst",
            flush=True,
        )


if __name__ == "__main__":
    main()
