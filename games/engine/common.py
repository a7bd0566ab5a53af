"""Names shared by the engine's modules."""

from .cards import RANK

# The stages of a round, and the decisions that can be pending besides an ordinary turn.
SETUP, PLAY, OVER = "setup", "play", "over"
PICK_SETUP, PICK_SWAP, GIVE, FORCED = "setup", "swap", "give", "forced"

rank = RANK.__getitem__  # sort key for the rule book's hand order


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message is meant for the player."""
