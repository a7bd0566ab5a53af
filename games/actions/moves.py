"""The shape of a move as a person sends it, before the engine judges it."""

from typing import cast

from games.engine.types import Action

ACTION_KEYS = {"type", "card", "color", "cards"}
MAX_GIVE = 120  # more cards than any hand can hold
MAX_KEY = 40  # a decision's key: the event row keeps it after a prefix of the sender's


def _code(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 8 and value.isalnum() and value.isascii()


def clean_action(action: object) -> Action | None:
    """`action` if it has the shape of an engine action (the engine's contract), else None.

    The engine ignores keys it does not know and the event row keeps the action as
    sent, so a form or a socket message could otherwise store anything (a megabyte, a
    NUL that PostgreSQL's jsonb refuses) in the game's log. Whether the move is legal
    is still the engine's to say.
    """
    if not isinstance(action, dict) or not set(action) <= ACTION_KEYS:
        return None
    kind = action.get("type")
    if not (
        isinstance(kind, str)
        and 0 < len(kind) <= 20
        and kind.replace("_", "").isalpha()
        and kind.isascii()
    ):
        return None
    if "card" in action and action["card"] is not None and not _code(action["card"]):
        return None
    if "color" in action and not _code(action["color"]):
        return None
    if "cards" in action:
        cards = action["cards"]
        if not isinstance(cards, list) or len(cards) > MAX_GIVE or not all(map(_code, cards)):
            return None
    return cast(Action, action)


def clean_key(key: object) -> str | None:
    """The sender's key for a decision if it is one (1 to MAX_KEY printable characters),
    else None. The seat door (games.actions.seat_door) checks every key with this."""
    if isinstance(key, str) and 0 < len(key) <= MAX_KEY and key.isprintable():
        return key
    return None
