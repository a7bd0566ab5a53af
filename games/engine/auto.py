"""The table's plain legal move for a seat whose time ran out (CLARIFICATIONS, 'Time-outs')."""

from typing import TYPE_CHECKING, cast

from .cards import COLOR, COLORS, IS_DRAW2, IS_WILD, POINTS
from .common import IllegalAction
from .types import Action

if TYPE_CHECKING:
    from .game import GameState


def _cheapest(hand: list[str], k: int) -> list[str]:
    # The hand is kept in hand order and sorted() is stable: ties go to the first card.
    return sorted(hand, key=POINTS.__getitem__)[:k]


def best_color(hand: list[str], played: str | None) -> str:
    """The colour held most after playing `played`; ties Red, Yellow, Green, Blue; Red if none."""
    counts = dict.fromkeys(COLORS, 0)
    skipped = False
    for c in hand:
        if c == played and not skipped:
            skipped = True
            continue
        col = COLOR[c]
        if col is not None:
            counts[col] += 1
    return max(COLORS, key=lambda col: (counts[col], -COLORS.index(col)))


def _play(hand: list[str], code: str) -> Action:
    if code in IS_WILD:
        return {"type": "play", "card": code, "color": best_color(hand, code)}
    return {"type": "play", "card": code}


def auto_action(game: "GameState", seat: int) -> Action:
    """The plain legal move for `seat`, returned without applying it. Raises IllegalAction
    when the seat has nothing to decide."""
    g = game
    if type(seat) is not int or not 0 <= seat < g.n:
        raise IllegalAction(f"There is no seat {seat!r} at this table.")
    hand = g.hands[seat]
    p = g.pending
    if g.stage != "over":
        if (p == "setup" or p == "swap") and seat in g.pickers and g.picks[seat] is None:
            return {"type": "pass", "card": _cheapest(hand, 1)[0]}
        if p == "give" and g.give_seat == seat:
            return {"type": "give", "cards": _cheapest(hand, g.give_count)}
        if p == "forced" and g.turn == seat:
            return _play(hand, cast(str, g.forced))
        if p is None and g.turn == seat:
            if g.penalty:
                for c in hand:
                    if c in IS_DRAW2:
                        return {"type": "play", "card": c}
                return {"type": "take_penalty"}
            playable = g._playable()
            for c in hand:
                if c in playable:
                    return _play(hand, c)
            return {"type": "draw"} if g._can_draw() else {"type": "pass_turn"}
    raise IllegalAction("This seat has nothing to decide now.")
