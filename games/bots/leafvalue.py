"""A learned score for an unfinished rollout: each team's chance to win the round, fitted to
Normal's own games instead of set by hand.

The hand-set score ("share" in search.py) gives each team a weight exp(-0.45 x its cards
left) and a team its share of the weights. The learned score keeps that form, a conditional
logit over the teams still in the round, but its weight is exp(w . f(team)), with features f
read from the whole position (a rollout is played in a sampled world, so every hand is
known there) and w fitted by maximum likelihood to who won positions of Normal-only rounds
(`python -m bench.research.fit_leafvalue`, the fitting tool). `WEIGHTS` holds its output
for each table size, with the command that made it.
"""

import math

from games.engine.cards import DRAW2, IS_WILD, KIND, REVERSE, SKIP

FEATURES = (
    "cards of the partner with fewer",
    "cards of the partner with more",
    "fewer is 1",
    "fewer is 2",
    "fewer is 0 (a partner is out)",
    "Wilds held",
    "Skip, Reverse and Draw 2 held",
    "to move",
    "next to move",
)
ACTIONS = frozenset((SKIP, REVERSE, DRAW2))

# Fitted by `python -m bench.research.fit_leafvalue --games 6000 --players P --seed 1
# --every 4` (see the module's docstring); FEATURES in order.
WEIGHTS = {
    4: (-0.0228, -0.0909, 0.1279, 0.0207, 0.4941, 0.1797, 0.0704, -0.0403, -0.0643),
    6: (-0.0080, -0.1431, 0.2786, 0.0930, 0.8714, 0.2176, 0.0552, 0.0351, 0.0053),
    8: (-0.0108, -0.1597, 0.3188, 0.0813, 1.0405, 0.1957, 0.0285, 0.0482, 0.0079),
}


def features(g, team):
    """f(team) for the position of `g` (FEATURES in order)."""
    half, n = g.half, g.n
    a, b = g.hands[team], g.hands[team + half]
    lo, hi = sorted((len(a), len(b)))
    wilds = actions = 0
    for hand in (a, b):
        for c in hand:
            if c in IS_WILD:
                wilds += 1
            elif KIND[c] in ACTIONS:
                actions += 1
    to_move = next_up = False
    turn = g.turn
    if turn is not None and g.hands[turn]:
        to_move = turn % half == team
        s = turn
        for _ in range(n - 1):
            s = (s + g.direction) % n
            if g.hands[s]:
                next_up = s % half == team
                break
    return (lo, hi, lo == 1, lo == 2, lo == 0, wilds, actions, to_move, next_up)


def team_weights(g, weights):
    """exp(w . f(t)) for each team t (0 for a team that has left the round)."""
    out = []
    for t in range(g.half):
        if g.departed[t]:
            out.append(0.0)
            continue
        f = features(g, t)
        out.append(math.exp(sum(w * x for w, x in zip(weights, f, strict=True))))
    return out


def share(g, team, weights):
    """`team`'s chance to win the round from the position of `g`, by the learned score."""
    ws = team_weights(g, weights)
    total = sum(ws)
    return ws[team] / total if total else 0.0
