"""The rules of Wild Cards Teams as a pure, deterministic Python package.

The public names are those of docs/engine-contract.md; docs/engine.md explains the design
and the house rulings. Nothing here imports Django, reads the clock or uses global randomness.
"""

from .cards import card_name, card_points, sort_hand
from .common import IllegalAction
from .game import Game
from .options import Options
from .visibility import events_for, visible_to

__all__ = [
    "Game",
    "IllegalAction",
    "Options",
    "card_name",
    "card_points",
    "events_for",
    "sort_hand",
    "visible_to",
]
