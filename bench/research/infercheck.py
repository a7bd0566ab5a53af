"""How much the inferences in `memory.py` tell about the hidden hands: a quick check that needs
no ladder.

    python -m bench.research.infercheck --games N --players P [--seed S] [--infer NAMES]
    python -m bench.research.infercheck --games N --players P [--seed S] --pool M

Plays Normal-vs-Normal games and, at every third ordinary turn, builds the mover's
`SeatMemory` with the given inferences. For each other seat with some lean it scores the
true hidden cards (the seat's hand minus the cards the mover knows are there) by the class
probabilities the sampler would use first: pool count times exp(lean), voids zero, against
the same without lean. The printed figure is the mean log-likelihood gain per scored card
in millinats (positive: the lean moves sample probability toward the real hands). It reads
the real hands, so it is a benchmark, never used by a bot.

With `--pool M` it checks the weighing of whole samples instead (`likelihood.py`): at the
same turns it deals M samples, weighs them by how likely the other seats' moves were in
each, and prints, over the other seats' hidden hands, the mean squared error of the
expected number of cards of each class (four colours and Wilds) against the true counts,
unweighted and weighted, and the median effective sample size of the weights.
"""

import argparse
import math
import random
from collections import Counter

from games.bots import decide
from games.bots.likelihood import Trails
from games.bots.memory import ALL_INFERENCES, CLASSES, LEANS, SHARPENING, SeatMemory
from games.bots.sampling import sample_world
from games.engine import GameState, Options, events_for
from games.engine.cards import COLOR, IS_WILD


def _cls(c):
    return "W" if c in IS_WILD else COLOR[c]


def lean_gain(mem, view, seat_hands):
    """(total log-likelihood gain, cards scored) of the true hidden hands under mem's leans."""
    pool = Counter()
    for c, k in mem.unknown_pool(view).items():
        if k > 0:
            pool[_cls(c)] += k
    gain, cards = 0.0, 0
    for s, hand in enumerate(seat_hands):
        if s == mem.seat or not any(mem.lean[s].values()):
            continue
        hidden = Counter(hand)
        if s == mem.partner:
            hidden.subtract(mem.partner_known)
        void = mem.voids[s]
        base = {k: 0.0 if k in void else 1.0 for k in CLASSES}
        lean = {k: base[k] * math.exp(mem.lean[s][k]) for k in CLASSES}
        zb = sum(pool[k] * base[k] for k in CLASSES)
        zl = sum(pool[k] * lean[k] for k in CLASSES)
        if not zb or not zl:
            continue
        for c, k in hidden.items():
            x = _cls(c)
            if k <= 0 or not base[x] or not pool[x]:
                continue
            gain += k * (math.log(lean[x] / zl) - math.log(base[x] / zb))
            cards += k
    return gain, cards


def _turns(games, players, seed):
    """Normal-vs-Normal games; yields (game, view, the mover's events, rng) at every third
    action that is an ordinary turn, before the move is made."""
    for i in range(games):
        g = GameState.new(Options(players=players), seed * 1_000_003 + i)
        events = list(g.initial_events())
        rng = random.Random(f"{seed}:{i}")
        step = 0
        while g.stage != "over":
            seat = g.waiting_on()[0]
            view = g.view(seat)
            seen = events_for(events, seat)
            if step % 3 == 0 and view["decision"] == "turn":
                yield g, view, seen, rng
            events += g.act(seat, decide("normal", view, g.legal_actions(seat), seen, rng))
            step += 1


def check(games, players, seed, infer):
    gain, cards = 0.0, 0
    for g, view, seen, _ in _turns(games, players, seed):
        d, k = lean_gain(SeatMemory.build(view, seen, infer), view, g.hands)
        gain += d
        cards += k
    return gain, cards


def pool_error(view, mem, trails, true_hands, size, rng):
    """({role: (squared error unweighted, weighted, seats scored)}, effective sample size)
    of the expected class counts of the other seats' hidden cards over `size` weighed
    samples; role is "partner" or "opponents"."""
    worlds = [sample_world(view, mem, rng)[0] for _ in range(size)]
    logs = [trails.log_weight(h, rng) for h in worlds]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    out = {}
    for s in range(view["players"]):
        if s == mem.seat:
            continue
        truth = Counter(_cls(c) for c in true_hands[s])
        mean_u = Counter()
        mean_w = Counter()
        for h, w in zip(worlds, weights, strict=True):
            for c in h[s]:
                mean_u[_cls(c)] += 1.0 / size
                mean_w[_cls(c)] += w / total
        role = "partner" if s == mem.partner else "opponents"
        u, w, k = out.get(role, (0.0, 0.0, 0))
        out[role] = (
            u + sum((mean_u[x] - truth[x]) ** 2 for x in CLASSES),
            w + sum((mean_w[x] - truth[x]) ** 2 for x in CLASSES),
            k + 1,
        )
    return out, total * total / sum(w * w for w in weights)


def check_pool(games, players, seed, size):
    errors = {}
    sizes = []
    for g, view, seen, rng in _turns(games, players, seed):
        mem = SeatMemory.build(view, seen, frozenset())
        out, ess = pool_error(view, mem, Trails.build(view, seen), g.hands, size, rng)
        for role, (u, w, k) in out.items():
            a, b, c = errors.get(role, (0.0, 0.0, 0))
            errors[role] = (a + u, b + w, c + k)
        sizes.append(ess)
    sizes.sort()
    return (
        {role: (u / k, w / k) for role, (u, w, k) in sorted(errors.items())},
        sizes[len(sizes) // 2],
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--infer",
        default=None,
        help="comma-separated names; default: each inference alone, then "
        "the three that sharpen the samples, then all",
    )
    ap.add_argument(
        "--pool",
        type=int,
        default=None,
        help="check the weighing of this many samples instead of the leans",
    )
    o = ap.parse_args(argv)
    if o.pool:
        errors, ess = check_pool(o.games, o.players, o.seed, o.pool)
        for role, (plain, weighed) in errors.items():
            print(
                f"pool {o.pool}, {role}: class-count squared error per seat {plain:.3f} "
                f"unweighted, {weighed:.3f} weighed ({weighed / plain:.3f}x)"
            )
        print(f"median effective sample size {ess:.1f} of {o.pool}", flush=True)
        return
    if o.infer:
        sets = [frozenset(o.infer.split(","))]
    else:
        sets = [frozenset([k]) for k in sorted(LEANS)] + [SHARPENING, ALL_INFERENCES]
    for infer in sets:
        unknown = infer - set(LEANS)
        if unknown:
            ap.error(f"unknown inference(s) {sorted(unknown)}")
        gain, cards = check(o.games, o.players, o.seed, infer)
        print(
            f"{','.join(sorted(infer))}: {1000 * gain / max(cards, 1):+.1f} mnats/card "
            f"over {cards} cards",
            flush=True,
        )


if __name__ == "__main__":
    main()
