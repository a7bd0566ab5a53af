"""The engine's speed benchmark: actions per second and the snapshot round trip.

    python -m bench.research.engine_speed [--games 400] [--repeat 5]

Prints the best of `--repeat` runs (the machine is shared: the best run is the one least
disturbed) of whole 4-player random games, setup pass included, counting `legal_actions`
plus `act` with a random choice; then the median `to_dict` + `from_dict` round trip at
mid-game. If RLCard is installed (`pip install rlcard`, not a project dependency) it also
runs RLCard's UNO game core the same way, so the figure can be read as a ratio on a noisy
machine.
"""

import argparse
import random
import statistics
import time

try:  # the comparison with RLCard's UNO is optional (docs/engine.md)
    import numpy as np
    from rlcard.games.uno.game import UnoGame
except ImportError:
    np = UnoGame = None

from games.engine import GameState, Options
from games.engine.random_moves import random_action

from .simulate import play_game


def engine_actions_per_second(games, repeat):
    options = Options()
    best = 0.0
    for _ in range(repeat):
        rng = random.Random(1)
        actions = 0
        t0 = time.process_time()
        for i in range(games):
            actions += play_game(options, i, rng)[1]
        best = max(best, actions / (time.process_time() - t0))
    return best


def snapshot_round_trip_us(samples=2000):
    """Median microseconds of to_dict() + from_dict() on positions 40 actions into a game."""
    rng = random.Random(2)
    times = []
    for i in range(samples // 100):
        g = GameState.new(Options(), 1000 + i)
        for _ in range(40):
            if g.stage == "over":
                break
            seat = g.waiting_on()[0]
            g.act(seat, random_action(g, seat, rng))
        for _ in range(100):
            t0 = time.perf_counter()
            GameState.from_dict(g.to_dict())
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def rlcard_steps_per_second(games, repeat):
    if UnoGame is None:
        return None
    best = 0.0
    for _ in range(repeat):
        g = UnoGame(num_players=4)
        g.np_random = np.random.RandomState(1)
        rng = random.Random(1)
        steps = 0
        t0 = time.process_time()
        for _ in range(games):
            g.init_game()
            while not g.is_over():
                acts = g.get_legal_actions()
                g.step(acts[int(rng.random() * len(acts))])
                steps += 1
        best = max(best, steps / (time.process_time() - t0))
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description="Wild Cards Teams engine benchmark")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    ours = engine_actions_per_second(a.games, a.repeat)
    print(f"engine: {ours:,.0f} actions/s (4 players, random legal play, best of {a.repeat})")
    print(f"snapshot: to_dict + from_dict round trip {snapshot_round_trip_us():.1f} us (median)")
    theirs = rlcard_steps_per_second(a.games, a.repeat)
    if theirs is None:
        print("rlcard: not installed (pip install rlcard to compare)")
    else:
        print(f"rlcard UNO: {theirs:,.0f} steps/s; ratio {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
