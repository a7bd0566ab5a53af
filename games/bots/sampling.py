"""Hard's samples of the hidden cards: hands and a draw pile consistent with what its seat
knows (`SeatMemory`).

The unknown pool is the deck minus the discard pile, the seat's own hand and the cards it
knows its partner holds. The partner's known cards are placed first; seats known to lack a
colour (or Wilds) are dealt first and get cards they can hold where the pool allows; each
seat's cards are drawn with the per-card weights the memory inferred from its moves
(`SeatMemory.lean`; none on the site), and the rest of the pool is the draw pile in random
order.
"""

import math

from games.engine.cards import COLOR, IS_WILD

from .memory import CLASSES


def sample_world(view, memory, rng, known=None):
    """Hidden hands and a draw pile consistent with the seat's knowledge: (hands, draw).

    Each seat's cards are drawn one at a time, a card of class k (a colour, or "W" for a
    Wild) with probability proportional to how many the pool has left times
    exp(memory.lean[seat][k]), the likelihood per card of what the seat was seen to do; a
    class the seat is known to lack has weight 0 while the pool allows.

    `known` (benchmarks only: the partly revealed oracle) maps seats to their true hands,
    which are placed as they are and taken out of the pool; the rest is sampled as usual."""
    if "legacy_sampler" in memory.infer:
        return _sample_uniform(view, memory, rng)
    sizes = view["hand_sizes"]
    pool = memory.unknown_pool(view)
    hands, order = _known_hands(view, memory)
    for s, cards in (known or {}).items():
        pool.update(hands[s])  # what the memory placed there goes back to the pool
        pool.subtract(cards)
        hands[s] = list(cards)
    bins = _shuffled_bins(pool, rng)
    for s in order:
        need = sizes[s] - len(hands[s])
        if need <= 0:
            continue
        void = memory.voids[s]
        lean = memory.lean[s]
        weight = {k: 0.0 if k in void else math.exp(lean[k]) for k in CLASSES}
        _deal_weighted(hands[s], need, weight, bins, rng)
    draw = [c for k in CLASSES for c in bins[k]]
    rng.shuffle(draw)
    size = view["draw_pile_size"]
    if len(draw) != size:
        # Knowledge out of step with the table (should not happen): trust the view's sizes.
        raise ValueError(f"sampled {len(draw)} draw-pile cards, the view says {size}")
    return hands, draw


def _shuffled_bins(pool, rng):
    """The pool's cards by class (a colour, or "W" for any Wild), each class shuffled."""
    bins = {k: [] for k in CLASSES}
    for c, k in sorted(pool.items()):
        if k > 0:
            bins["W" if c in IS_WILD else COLOR[c]] += [c] * k
    for k in CLASSES:
        rng.shuffle(bins[k])
    return bins


def _deal_weighted(hand, need, weight, bins, rng):
    """Moves `need` cards from `bins` to `hand`, each of class k with probability
    proportional to weight[k] times the cards of class k left."""
    for _ in range(need):
        total = 0.0
        for k in CLASSES:
            total += weight[k] * len(bins[k])
        if total <= 0.0:
            # Only classes it is known to lack are left: knowledge out of date.
            weight = dict.fromkeys(CLASSES, 1.0)
            total = float(sum(len(b) for b in bins.values()))
            if not total:
                return
        x = rng.random() * total
        for k in CLASSES:
            x -= weight[k] * len(bins[k])
            if x < 0.0 and bins[k]:
                break
        else:
            k = next(k for k in reversed(CLASSES) if bins[k] and weight[k] > 0.0)
        hand.append(bins[k].pop())


def _known_hands(view, memory):
    """The hands as far as the seat knows them (its own, the cards it handed its partner)
    and the order the others are dealt in: seats with known voids first, so the cards they
    can hold are still there."""
    n, me, partner = view["players"], view["seat"], memory.partner
    hands = [[] for _ in range(n)]
    hands[me] = list(view["hand"])
    hands[partner] = list(memory.partner_known.elements()) if view["hand_sizes"][partner] else []
    order = sorted((s for s in range(n) if s != me), key=lambda s: (-len(memory.voids[s]), s))
    return hands, order


def _sample_uniform(view, memory, rng):
    """Benchmark only (`legacy_sampler` in the ladder's --infer-a/--infer-b): the sampler
    Hard had before the leans. It is not uniform: a void seat scans the shuffled pool and
    skips the cards it cannot hold, which then sit at the front of what is left, so the
    next seat dealt gets most of them (docs/bots.md)."""
    sizes = view["hand_sizes"]
    pool = memory.unknown_pool(view)
    cards = [c for c, k in sorted(pool.items()) if k > 0 for _ in range(k)]
    rng.shuffle(cards)
    hands, order = _known_hands(view, memory)
    for s in order:
        need = sizes[s] - len(hands[s])
        if need <= 0:
            continue
        void = memory.voids[s]
        if void:
            keep, rest = [], []
            for c in cards:
                if need and not (("W" in void and c in IS_WILD) or COLOR[c] in void):
                    keep.append(c)
                    need -= 1
                else:
                    rest.append(c)
            hands[s] += keep
            cards = rest
        if need > 0:
            hands[s] += cards[:need]
            cards = cards[need:]
    draw = cards
    size = view["draw_pile_size"]
    if len(draw) != size:
        # Knowledge out of step with the table (should not happen): trust the view's sizes.
        raise ValueError(f"sampled {len(draw)} draw-pile cards, the view says {size}")
    return hands, draw
