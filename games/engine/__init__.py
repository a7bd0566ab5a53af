"""The rules of Wild Cards Teams as a pure, deterministic Python package.

The public names are those of docs/engine-contract.md; docs/engine.md explains the design
and the house rulings. Nothing here imports Django, reads the clock or uses global randomness.
"""

from .cards import card_name, card_points, sort_hand
from .common import IllegalAction
from .game import GameState
from .options import Options
from .visibility import events_for, visible_to

# The contract's name for the class (docs/engine-contract.md). The site says GameState, so
# that the engine's game never shares a name with the Game model (a table's row).
Game = GameState

__all__ = [
    "Game",
    "GameState",
    "IllegalAction",
    "Options",
    "card_name",
    "card_points",
    "events_for",
    "sort_hand",
    "visible_to",
]
