"""How much the inferences in `memory.py` tell about the hidden hands: a quick check that needs
no ladder.

    python -m games.bots.infercheck --games N --players P [--seed S] [--infer NAMES]

Plays Normal-vs-Normal games and, at every third ordinary turn, builds the mover's
`SeatMemory` with the given inferences. For each other seat with some lean it scores the
true hidden cards (the seat's hand minus the cards the mover knows are there) by the class
probabilities the sampler would use first: pool count times exp(lean), voids zero, against
the same without lean. The printed figure is the mean log-likelihood gain per scored card
in millinats (positive: the lean moves sample probability toward the real hands). It reads
the real hands, so it is a benchmark, never used by a bot.
"""

import argparse
import math
import random
from collections import Counter

from games.engine import Game, Options, events_for
from games.engine.cards import COLOR, IS_WILD

from . import decide
from .memory import ALL_INFERENCES, CLASSES, LEANS, SHARPENING, SeatMemory


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


def check(games, players, seed, infer):
    gain, cards = 0.0, 0
    for i in range(games):
        g = Game.new(Options(players=players), seed * 1_000_003 + i)
        events = list(g.initial_events())
        rng = random.Random(f"{seed}:{i}")
        step = 0
        while g.stage != "over":
            seat = g.waiting_on()[0]
            view = g.view(seat)
            seen = events_for(events, seat)
            if step % 3 == 0 and view["decision"] == "turn":
                mem = SeatMemory.build(view, seen, infer)
                d, k = lean_gain(mem, view, g.hands)
                gain += d
                cards += k
            events += g.act(seat, decide("normal", view, g.legal_actions(seat), seen, rng))
            step += 1
    return gain, cards


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--infer", default=None,
                    help="comma-separated names; default: each inference alone, then "
                         "the three that sharpen the samples, then all")
    o = ap.parse_args(argv)
    if o.infer:
        sets = [frozenset(o.infer.split(","))]
    else:
        sets = [frozenset([k]) for k in sorted(LEANS)] + [SHARPENING, ALL_INFERENCES]
    for infer in sets:
        unknown = infer - set(LEANS)
        if unknown:
            ap.error(f"unknown inference(s) {sorted(unknown)}")
        gain, cards = check(o.games, o.players, o.seed, infer)
        print(f"{','.join(sorted(infer))}: {1000 * gain / max(cards, 1):+.1f} mnats/card "
              f"over {cards} cards", flush=True)


if __name__ == "__main__":
    main()
