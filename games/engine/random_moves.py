"""A uniformly random legal player: the other seats in tests and in `manage.py bench_push`.

It stays beside the engine because that shipped command plays with it; the tools that play
whole games with it to measure the engine (speed, outcomes) are in bench/research/
(`python -m bench.research.simulate`, `python -m bench.research.engine_speed`).
"""

from random import Random

from .game import GameState
from .types import Action


def random_action(game: GameState, seat: int, rng: Random) -> Action | None:
    """A uniformly random legal action of `seat` (a give: random cards of the right count)."""
    acts = game.legal_actions(seat)
    if acts:
        return acts[int(rng.random() * len(acts))]
    k = game.must_give(seat)
    if k:
        return {"type": "give", "cards": rng.sample(game.hands[seat], k)}
    return None
