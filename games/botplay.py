"""How a bot seat picks its move: the single bridge between the site and games.bots.

The bot sees what a person in its seat sees: the seat's view, its legal
actions and its own event history (issue 3 builds the levels in games.bots).
Until games.bots offers `choose_action`, a bot plays the table's plain legal
move, `auto_action`, which is always legal.
"""

import importlib
import logging

from games import engine

log = logging.getLogger(__name__)


def _bots_entry_point():
    try:
        bots = importlib.import_module("games.bots")
    except ImportError:
        return None
    return getattr(bots, "choose_action", None)


def choose_action(state, seat, level, *, history, seed):
    """The action bot `level` takes for `seat`, or None when it has nothing to decide.

    `history` is a callable returning every engine event of the game so far; it
    is filtered here to what the seat saw, and only called when a bot uses it.
    """
    view = state.view(seat)
    legal = state.legal_actions(seat)
    if not legal and not view.get("must_give"):
        return None
    choose = _bots_entry_point()
    if choose is not None:
        return choose(
            level=level, view=view, legal_actions=legal,
            history=engine.events_for(history(), seat), seed=seed,
        )
    return state.auto_action(seat)
