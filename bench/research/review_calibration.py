"""Review the ladder's bots' games and count their marks: the review's calibration.

    python -m bench.research.review_calibration --games N --players P --seed S [--jobs J]
        [--actions A] [--share X] [--out FILE] [--read FILE] LEVEL [LEVEL ...]

Each game seats LEVEL at seat 0 and Normal at every other seat (its partner too: the
review judges seat 0's decisions, and one Hard seat costs half the time of two), plays one
round (the site's bots, the site's Hard budget), and reviews seat 0's decisions
with what the seat knew (the estimate the marks come from; the estimate with every hand is
left out, it marks nothing) on the review's own budget (`review.REVIEW_BUDGET`, or
`--actions`). `--share X` reviews each decision with probability X (drawn from the game's
seed), which leaves the marks per 100 decisions unbiased at a fraction of the cost: a
review costs seconds a decision, and Hard's games cost as much again to play. Every
decision's loss is written to FILE, one JSON line per decision
(`{"level", "game", "seq", "kind", "loss", "gap", "z", "choices"}`: the loss the review
counts, and the best choice's gap and its z whatever the test said), so thresholds can be
tried again without reviewing again (`--read FILE` reports from such a file alone).

The report, per level: decisions reviewed, how many per 100 lost any chance clearly (the
z-test alone), the loss's 50th/90th/99th percentiles among those, and the marks per 100
decisions at the review's thresholds (`review.THRESHOLDS`) and at a few others. The
thresholds are chosen from this (docs/review.md, "Calibration"): Hard should be marked a
mistake far less often than Easy, and Normal in between.
"""

import argparse
import json
import random
import sys
import time
from multiprocessing import Pool

from games.bots import Budget, decide, site_budget
from games.bots.review import MARKS, REVIEW_BUDGET, THRESHOLDS, Row, mark_for, review_decisions
from games.bots.review import reviewable as reviewable_seqs
from games.engine import GameState, Options, events_for

LEVELS = ("random", "easy", "normal", "hard")
# Other thresholds the report tries beside the review's own: (inaccurate, mistake, blunder).
TRIED = ((0.03, 0.06, 0.12), (0.05, 0.10, 0.20), (0.06, 0.12, 0.25))


def game_rows(options, deal_seed, levels, bot_seed):
    """One game played by the site's bots, `levels[seat]` at each seat, as the event rows
    the site stores: the deal, then a row a decision. Each seat decides from its own view,
    legal moves and events, with its own seeded generator, as on the site."""
    g = GameState.new(options, deal_seed)
    n = g.n
    rows = [Row(1, None, None, g.initial_events())]
    seen = [events_for(rows[0].events, s) for s in range(n)]
    rngs = [random.Random(f"{bot_seed}:{s}") for s in range(n)]
    budget = site_budget(n)
    while g.stage != "over":
        if len(rows) > MAX_ROWS:
            raise RuntimeError(f"game {deal_seed} did not end")
        seat = g.waiting_on()[0]
        view, legal = g.view(seat), g.legal_actions(seat)
        a = decide(levels[seat], view, legal, seen[seat], rngs[seat], budget=budget)
        events = g.act(seat, a)
        rows.append(Row(len(rows) + 1, seat, a, events))
        for s in range(n):
            seen[s].extend(events_for(events, s))
    return rows


MAX_ROWS = 100_000


def review_game(job):
    """(level, game index, the reviewed decisions' lines, seconds)."""
    level, index, players, seed, actions, share = job
    options = Options(players=players)
    levels = [level] + ["normal"] * (players - 1)
    deal_seed = seed * 100_003 + index
    rows = game_rows(options, deal_seed, levels, deal_seed)
    budget = REVIEW_BUDGET[players] if actions is None else _budget(players, actions)
    started = time.perf_counter()
    pick = random.Random(f"calibration:{deal_seed}")
    seqs = [s for s in reviewable_seqs(options, deal_seed, rows, 0) if pick.random() < share]
    decisions = review_decisions(options, deal_seed, rows, 0, seqs, budget=budget, all_hands=False)
    lines = [
        {
            "level": level,
            "game": index,
            "seq": d["seq"],
            "kind": d["kind"],
            "loss": d["loss"],
            "gap": d["gap"],
            "z": d["z"],
            "choices": len(d["choices"]),
        }
        for d in decisions
    ]
    return level, index, lines, time.perf_counter() - started


def _budget(players, actions):
    base = REVIEW_BUDGET[players]
    return Budget(
        actions=actions,
        horizon=base.horizon,
        min_samples=base.min_samples,
        max_samples=base.max_samples,
    )


def _percentile(xs, q):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def report(lines, out=None):
    out = out or sys.stdout  # looked up now: a caller may have replaced it since the import
    by_level = {}
    for line in lines:
        by_level.setdefault(line["level"], []).append(line["loss"])
    for level in sorted(by_level, key=lambda v: LEVELS.index(v) if v in LEVELS else 9):
        losses = by_level[level]
        n = len(losses)
        games = len({(x["level"], x["game"]) for x in lines if x["level"] == level})
        lost = [x for x in losses if x > 0]
        print(
            f"{level}: {games} games with a decision reviewed, {n} decisions;"
            f" a loss in {100 * len(lost) / n:.1f} per 100;"
            f" loss p50 {_percentile(lost, 0.5):.3f} p90 {_percentile(lost, 0.9):.3f}"
            f" p99 {_percentile(lost, 0.99):.3f}",
            file=out,
        )
        for name, marks in _marks(losses, THRESHOLDS).items():
            print(f"  {name}: {marks}", file=out)
        for t in TRIED:
            tried = dict(zip(MARKS[1:], t, strict=True))
            mistakes = sum(1 for x in losses if mark_for(x, tried) in ("mistake", "blunder"))
            print(
                f"  thresholds {t}: mistakes or worse {100 * mistakes / n:.1f} per 100",
                file=out,
            )


def _marks(losses, thresholds):
    n = len(losses)
    counts = dict.fromkeys(MARKS, 0)
    for x in losses:
        counts[mark_for(x, thresholds)] += 1
    per100 = ", ".join(f"{k} {100 * v / n:.1f}" for k, v in counts.items())
    worse = 100 * (counts["mistake"] + counts["blunder"]) / n
    return {
        f"the review's thresholds {tuple(thresholds.values())}, per 100 decisions": per100,
        "mistakes or worse per 100 decisions": f"{worse:.1f}",
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("levels", nargs="*", help=f"among {', '.join(LEVELS)}")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--actions", type=int, default=None)
    p.add_argument("--share", type=float, default=1.0)
    p.add_argument("--out", default=None)
    p.add_argument("--read", default=None)
    o = p.parse_args(argv)
    if o.read:
        with open(o.read) as f:
            report([json.loads(line) for line in f if line.strip()])
        return
    if not o.levels or set(o.levels) - set(LEVELS):
        p.error(f"name at least one level, among {', '.join(LEVELS)}")
    jobs = [
        (lv, i, o.players, o.seed, o.actions, o.share) for lv in o.levels for i in range(o.games)
    ]
    lines, seconds = [], []
    sink = open(o.out, "a") if o.out else None  # noqa: SIM115 (written as games finish)
    started = time.perf_counter()
    with Pool(o.jobs) as pool:
        for k, (_, _, got, took) in enumerate(pool.imap_unordered(review_game, jobs), 1):
            lines.extend(got)
            seconds.append(took)
            if sink:
                sink.writelines(json.dumps(x) + "\n" for x in got)
                sink.flush()
            if k % 25 == 0:
                print(f"{k}/{len(jobs)} games, {time.perf_counter() - started:.0f} s", flush=True)
    if sink:
        sink.close()
    print(
        f"{len(jobs)} games reviewed in {time.perf_counter() - started:.0f} s; a review "
        f"p50 {_percentile(seconds, 0.5):.1f} s, p95 {_percentile(seconds, 0.95):.1f} s "
        f"(what the seat knew only)"
    )
    report(lines)


if __name__ == "__main__":
    main()
