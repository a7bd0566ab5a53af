"""Who may read a seat and who may act for it: the one rule every way into a seat uses.

(The rest of this module is being written: the reader value and its checks.)
"""

from functools import partial

from django.db import transaction

from games import effects


def seats_changed(game_id, numbers):
    """A lobby seat change (taken, moved, left, a removal by the host): once the change
    commits, every socket and bot stream listening at these seats checks again whether its
    reader still holds the seat, and closes if not. Call it inside the transaction."""
    numbers = sorted(set(numbers))
    if numbers:
        transaction.on_commit(partial(effects.seats_changed, game_id, numbers))
