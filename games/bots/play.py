"""How a bot seat picks its move: the site's one bridge to games.bots.

The bot sees what a person in its seat sees: the seat's view, its legal
actions and its own event history, filtered by `events_for` here.
"""

from games import bots, engine


def move_for_seat(state, seat, level, *, history, seed):
    """The action bot `level` takes for `seat`, or None when it has nothing to decide.

    `history` is a callable returning every engine event of the game so far; it
    is filtered here to what the seat saw.
    """
    view = state.view(seat)
    legal = state.legal_actions(seat)
    if not legal and not view.get("must_give"):
        return None
    return bots.choose_action(
        level=level,
        view=view,
        legal_actions=legal,
        history=engine.events_for(history(), seat),
        seed=seed,
    )
