"""Play whole games between uniformly random legal players and report the engine's speed.

    python -m bench.research.simulate --games 2000 --players 4 [--stacking]
        [--no-final-card-penalty] [--target 500] [--seed 1] [--check]

Counts one action per `act` call; each is preceded by one `legal_actions` call (a `give`
picks its cards at random from the hand, since `give` is not listed). `--check` also verifies
after every action that the 112 cards are all there (slower; for testing the engine).
"""

import argparse
import random
import time

from games.engine import GameState, Options
from games.engine.random_moves import random_action


def play_game(options, seed, rng, check=False, max_actions=100_000):
    """Play one game to the end; returns (game, number of actions)."""
    g = GameState.new(options, seed)
    actions = 0
    while g.stage != "over":
        seat = g.turn if g.pending is None else None
        if seat is None:
            waiting = g.waiting_on()
            seat = waiting[int(rng.random() * len(waiting))]
        g.act(seat, random_action(g, seat, rng))
        actions += 1
        if check:
            total = sum(len(h) for h in g.hands) + len(g.draw) + len(g.discard)
            assert total == 112, (total, g.to_dict())
        if actions > max_actions:
            raise RuntimeError(f"game with seed {seed} did not end")
    return g, actions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--stacking", action="store_true")
    ap.add_argument("--no-final-card-penalty", action="store_true")
    ap.add_argument("--target", type=int, default=None, help="target score (default: one round)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    options = Options(
        players=a.players,
        stacking=a.stacking,
        final_card_penalty=not a.no_final_card_penalty,
        target_score=a.target,
    )
    rng = random.Random(a.seed)
    actions = 0
    wins = [0] * (a.players // 2)
    blocked = 0
    t0 = time.perf_counter()
    for i in range(a.games):
        g, k = play_game(options, a.seed * 1_000_003 + i, rng, a.check)
        actions += k
        w = g.game_over["winner"]
        if w is None:
            blocked += 1
        else:
            wins[w] += 1
    dt = time.perf_counter() - t0
    print(f"{a.games} games of {a.players} players ({options}) in {dt:.2f} s")
    print(f"wins per team {wins}, no winner {blocked}, {actions / a.games:.1f} actions a game")
    print(f"{a.games / dt:.1f} games/s, {actions / dt:,.0f} actions/s")


if __name__ == "__main__":
    main()
