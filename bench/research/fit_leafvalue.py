"""Fit the learned rollout score of games/bots/leafvalue.py to Normal's own rounds.

    python -m bench.research.fit_leafvalue --games N --players P [--seed S] [--every K]

plays N rounds of the rollouts' Normal (`policy_for_game`, every seat), keeps every K-th
position of each with the winner of its round, fits w on the even rounds and reports the
log-loss of the fitted score, of the hand-set share and of a coin on the odd ones (held
out). Its `WEIGHTS[P]` line is what `leafvalue.WEIGHTS` holds for that table size.
"""

import argparse
import math
import random

from games.bots.leafvalue import FEATURES, features
from games.bots.policies import policy_for_game
from games.engine import GameState, Options


def positions(players, games, seed, every):
    """Yield (round index, [f(t) for each team still in the round], index of the round's
    winner in that list) from `games` Normal-only rounds: every `every`-th position of
    play (from a seeded random start); blocked rounds are left out."""
    options = Options(players=players)
    for i in range(games):
        g = GameState.new(options, seed * 1_000_003 + i)
        rng = random.Random(f"{seed}:{i}")
        offset = rng.randrange(every)
        start = g.round
        kept = []
        step = 0
        while g.stage != "over" and g.round == start:
            if step % every == offset and g.stage == "play":
                teams = [t for t in range(g.half) if not g.departed[t]]
                kept.append(([features(g, t) for t in teams], teams))
            s = g.waiting_on()[0]
            g.act(s, policy_for_game(g, s))
            step += 1
        result = g.game_over if g.stage == "over" else g.last_round
        winner = result["winner"] if result else None
        if winner is None:
            continue
        for fs, teams in kept:
            if winner in teams:
                yield i, fs, teams.index(winner)


def fit(data, ridge=1.0, iterations=12):
    """Maximum-likelihood w of the conditional logit by Newton's method (with a small ridge
    so that a feature that never varies cannot make the system singular)."""
    k = len(data[0][0][0])
    w = [0.0] * k
    for _ in range(iterations):
        grad = [-ridge * x for x in w]
        hess = [[(ridge if i == j else 0.0) for j in range(k)] for i in range(k)]
        for fs, y in data:
            scores = [sum(wi * xi for wi, xi in zip(w, f, strict=True)) for f in fs]
            top = max(scores)
            es = [math.exp(s - top) for s in scores]
            z = sum(es)
            ps = [e / z for e in es]
            mean = [sum(p * f[j] for p, f in zip(ps, fs, strict=True)) for j in range(k)]
            fy = fs[y]
            for j in range(k):
                grad[j] += fy[j] - mean[j]
            for p, f in zip(ps, fs, strict=True):
                for i in range(k):
                    pfi = p * f[i]
                    if pfi:
                        row = hess[i]
                        for j in range(k):
                            row[j] += pfi * f[j]
            for i in range(k):
                row = hess[i]
                mi = mean[i]
                for j in range(k):
                    row[j] -= mi * mean[j]
        step = _solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def _solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting; a is small)."""
    k = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, k):
            f = m[r][c] / m[c][c]
            for j in range(c, k + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * k
    for r in range(k - 1, -1, -1):
        x[r] = (m[r][k] - sum(m[r][j] * x[j] for j in range(r + 1, k))) / m[r][r]
    return x


def log_loss(data, prob):
    """Mean -log of the probability `prob(fs, y)` gives the winner."""
    total = 0.0
    for fs, y in data:
        total -= math.log(max(prob(fs, y), 1e-12))
    return total / len(data)


def _logit(weights):
    def prob(fs, y):
        scores = [sum(w * x for w, x in zip(weights, f, strict=True)) for f in fs]
        top = max(scores)
        es = [math.exp(s - top) for s in scores]
        return es[y] / sum(es)

    return prob


def _hand_set(fs, y):
    """The hand-set share: exp(-0.45 x cards) (cards: the first two features)."""
    es = [math.exp(-0.45 * (f[0] + f[1])) for f in fs]
    return es[y] / sum(es)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=8)
    o = ap.parse_args(argv)
    train, held = [], []
    for i, fs, y in positions(o.players, o.games, o.seed, o.every):
        (held if i % 2 else train).append((fs, y))
    w = fit(train)
    print(f"positions: {len(train)} to fit, {len(held)} held out", flush=True)
    for name, x in zip(FEATURES, w, strict=True):
        print(f"  {name}: {x:+.4f}")
    print(f"WEIGHTS[{o.players}] = ({', '.join(f'{x:.4f}' for x in w)})")
    coin = sum(math.log(len(fs)) for fs, _ in held) / len(held)
    print(
        f"held-out log-loss: learned {log_loss(held, _logit(w)):.4f}, "
        f"hand-set share {log_loss(held, _hand_set):.4f}, coin {coin:.4f}"
    )


if __name__ == "__main__":
    main()
