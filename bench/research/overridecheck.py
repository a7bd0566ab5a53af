"""What Hard's departures from Normal are worth, by kind of decision: a check that needs no
ladder.

    python -m bench.research.overridecheck --games N [--players P] [--seed S] [--playouts R]
        [--start K] [--actions A] [--z Z] [--wilds search|normal]

Plays ladder games (`ladder.play`) of Hard (one team, taking each team's seats in turn by
game) against Normal. Wherever Hard's
move differs from Normal's, both moves are scored on the true position: R paired playouts to
the end of the round by Normal for every seat (memory-less, as in the rollouts), each with
the draw pile in a fresh random order that both moves share; the difference of the two win
rates is what that departure adds to its team's chance of winning. The report groups the
departures by kind (a turn's number, Skip, Reverse or Draw 2 card, a Wild spent, kept or
recoloured, a drawn Wild's colour, setup pass, symbol swap, give) and prints, per kind, how
many there were, the mean gain of one and the gain per game with its standard error. It
reads the real hands, so it is a benchmark, never used by a bot.
"""

import argparse
import math
import random

from games.bots import Budget, site_budget
from games.bots.memory import SeatMemory
from games.bots.policies import normal_action, policy_for_game
from games.bots.search import searchable
from games.engine import GameState, Options
from games.engine.cards import DRAW2, IS_WILD, KIND, REVERSE, SKIP

from .ladder import play


def kind_of(view, normal, hard):
    """A short name for the kind of departure from Normal's move."""
    decision = view["decision"]
    if decision != "turn":
        return {"forced": "drawn wild colour"}.get(decision, decision)
    if normal.get("type") != "play" or hard.get("type") != "play":
        return "turn, other"
    n, h = normal["card"], hard["card"]
    if n == h:
        return "wild colour"
    if h in IS_WILD:
        return "other wild" if n in IS_WILD else "wild spent"
    if n in IS_WILD:
        return "wild kept"
    return {DRAW2: "draw 2", SKIP: "skip", REVERSE: "reverse"}.get(KIND[h], "number")


def playout(snap, seat, move, seed):
    """1 if `seat`'s team wins the round after `move`, played on by Normal, else 0."""
    g = GameState.from_dict(snap)
    order = sorted(g.draw)
    random.Random(seed).shuffle(order)
    g.draw = order
    g.seed = seed
    g.act(seat, move)
    start = g.round
    while g.stage != "over" and g.round == start:
        s = g.waiting_on()[0]
        g.act(s, policy_for_game(g, s))
    result = g.game_over if g.stage == "over" else g.last_round
    return 1.0 if result and result["winner"] == seat % g.half else 0.0


def check(games, seed, playouts, budget, start=0, players=4):
    """{kind: [count, sum of gains, sum of squared gains]} over games start..start+games."""
    stats = {}
    options = Options(players=players)
    half = players // 2

    def judge(g, seat, seen, a):
        if seat % half != hard_team:
            return
        view, legal = g.view(seat), g.legal_actions(seat)
        if not searchable(view, legal):
            return
        normal = normal_action(view, legal, None, SeatMemory.build(view, seen))
        if normal == a:
            return
        snap = g.to_dict()
        gain = (
            sum(playout(snap, seat, a, r) - playout(snap, seat, normal, r) for r in range(playouts))
            / playouts
        )
        row = stats.setdefault(kind_of(view, normal, a), [0, 0.0, 0.0])
        row[0] += 1
        row[1] += gain
        row[2] += gain * gain

    for i in range(start, start + games):
        hard_team = i % half
        levels = ["normal"] * half
        levels[hard_team] = "hard"
        play(options, seed * 1_000_003 + i, levels, f"{seed}:{i}", budget, watch=judge)
    return stats


def report(stats, games):
    lines = []
    total = se2 = 0.0
    for kind, (k, s, s2) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        var = max(s2 / k - (s / k) ** 2, 0.0) * k / max(k - 1, 1)
        se = math.sqrt(var * k) / games
        total += s / games
        se2 += se * se
        lines.append(
            f"{kind}: {k} departures, {s / k:+.4f} each, {s / games:+.4f} a game (se {se:.4f})"
        )
    lines.append(
        f"all: {sum(r[0] for r in stats.values())} departures, {total:+.4f} a game "
        f"(se {math.sqrt(se2):.4f}) over {games} games"
    )
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--playouts", type=int, default=100)
    ap.add_argument("--actions", type=int, default=None)
    ap.add_argument("--z", type=float, default=None)
    ap.add_argument("--wilds", choices=("search", "normal"), default=None)
    o = ap.parse_args(argv)
    site = site_budget(o.players)
    budget = Budget(
        actions=o.actions or site.actions,
        z=site.z if o.z is None else o.z,
        wilds=site.wilds if o.wilds is None else o.wilds == "search",
        horizon=site.horizon,
        score=site.score,
    )
    print(f"budget {budget}", flush=True)
    stats = check(o.games, o.seed, o.playouts, budget, o.start, o.players)
    for line in report(stats, o.games):
        print(line, flush=True)


if __name__ == "__main__":
    main()
