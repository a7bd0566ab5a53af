"""How long a round of bots is, in decisions, and how many points it scores: the figures the
site's length estimate starts from while it has too few finished games of its own
(games/presenters/durations.py reads games/data/round_lengths.json, which this writes).

    python -m bench.research.durations [--rounds 40] [--hard-rounds 12] [--seed 1]
        [--levels normal] [--out games/data/round_lengths.json]

Every seat of a table is played by the same level (the site's own bots, with the site's
search budget for Hard), one round a game, with the site's default options. A decision is
one `act`: a play, a draw, a pass, a card given or passed.
"""

import argparse
import json
import statistics
from pathlib import Path

from bench.research.ladder import play
from games.bots import site_budget
from games.engine import Options

SIZES = (4, 6, 8)
OUT = Path(__file__).resolve().parents[2] / "games" / "data" / "round_lengths.json"


def measure(players: int, level: str, rounds: int, seed: int) -> dict[str, list[int]]:
    """The decisions and the points of `rounds` single-round games of `level` bots."""
    options = Options(players=players)
    decisions, points = [], []
    for i in range(rounds):
        count = [0]

        def counted(game, seat, seen, action, count=count):
            count[0] += 1

        game = play(
            options,
            seed * 1_000_003 + players * 1000 + i,
            [level] * (players // 2),
            f"{seed}:{players}:{level}:{i}",
            site_budget(players),
            watch=counted,
        )
        decisions.append(count[0])
        points.append(game.view(None)["last_round"]["points"])
    return {"decisions": decisions, "points": points}


def summary(samples: dict[str, list[int]]) -> dict[str, int | list[int]]:
    """What the site keeps of one size and level: every round's decisions (the estimate
    says the median and the middle half) and points (it draws from them to count the
    rounds a target score takes), each sorted."""
    return {
        "rounds": len(samples["decisions"]),
        "decisions": sorted(samples["decisions"]),
        "points": sorted(samples["points"]),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40, help="rounds per size, Easy and Normal")
    ap.add_argument("--hard-rounds", type=int, default=12, help="rounds per size, Hard")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="4,6,8")
    ap.add_argument(
        "--levels",
        default="normal",
        help="bot levels, e.g. easy,normal,hard (the site's estimate reads Normal's)",
    )
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    table: dict[str, dict[str, object]] = {}
    for players in (int(s) for s in a.sizes.split(",")):
        for level in a.levels.split(","):
            rounds = a.hard_rounds if level == "hard" else a.rounds
            samples = measure(players, level, rounds, a.seed)
            table.setdefault(str(players), {})[level] = summary(samples)
            print(
                f"{players} players, {level}: {statistics.median(samples['decisions'])} "
                f"decisions a round (median of {rounds}), "
                f"median points {statistics.median(samples['points'])}"
            )
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"seed": a.seed, "sizes": table}, indent=1) + "\n")
    print(f"written to {a.out}")


if __name__ == "__main__":
    main()
