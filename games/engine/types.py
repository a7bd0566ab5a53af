"""The shapes the engine hands out and takes in: a seat's view, an action, an event.

They are plain dicts at run time (the contract, docs/engine-contract.md, promises JSON-safe
dicts); these TypedDicts only name their keys for a reader and for mypy. Keys marked
NotRequired are absent in some of them: a spectator's view has no hand, most events carry
only a few of the event keys.
"""

from typing import Any, NotRequired, Required, TypedDict


class OptionsDict(TypedDict):
    """`Options.to_dict()`: the table options, as every view carries them."""

    players: int
    stacking: bool
    final_card_penalty: bool
    target_score: int | None


class RoundResult(TypedDict):
    """How a round ended: the view's `round_over` and `last_round`."""

    winner: int | None  # a team, or None for a blocked round
    blocked: bool
    points: int
    hands: list[list[str]]  # every hand, revealed
    conceded: NotRequired[bool]  # present (True) when the round ended by a concession


class GameOver(TypedDict):
    """How the game ended: the view's `game_over`."""

    winner: int | None
    ranking: list[list[int]]  # [team, rank] pairs, best first; ties share a rank


class SeatView(TypedDict):
    """`view(seat)`: what one seat (or, with seat None, a spectator) may see.

    The first block is the contract's; the rest lets a table screen draw every control.
    """

    seat: int | None
    players: int
    teams: int
    hand_sizes: list[int]
    out: list[bool]
    departed: list[bool]
    discard: list[str]  # bottom first
    draw_pile_size: int
    color: str | None
    direction: int  # 1 clockwise, -1 counter-clockwise
    turn: int | None
    waiting_on: list[int]
    penalty: int
    round: int
    dealer: int
    scores: list[int]
    round_over: RoundResult | None
    game_over: GameOver | None
    # Beyond the contract.
    stage: str
    decision: str | None
    choosing: list[int]
    picked: list[int]
    giving: int | None
    give_count: int
    give_reason: str | None
    last_round: RoundResult | None
    options: OptionsDict
    # A seat's own; a spectator's view has none of them.
    hand: NotRequired[list[str]]
    must_give: NotRequired[int]
    received: NotRequired[list[str]]
    gave: NotRequired[list[str]]
    my_pick: NotRequired[str | None]
    must_play: NotRequired[str | None]
    partner: NotRequired[int]
    team: NotRequired[int]


class Action(TypedDict, total=False):
    """One decision, as docs/engine-contract.md lists them: `type` always, then `card`
    (play, pass), `color` (a Wild's), or `cards` (give). `act` checks every key at run time,
    since an action arrives from a player."""

    type: Required[str]
    card: str
    color: str
    cards: list[str]


class Event(TypedDict, total=False):
    """One thing that happened, as `act` returns it: `type` and `visible_to` (None: every
    reader; else the seats that may see it) always, and the keys of its kind besides."""

    type: Required[str]
    visible_to: Required[list[int] | None]
    seat: int | None  # the seat it happened to (a skip's or a penalty's victim too)
    seats: list[int]
    round: int
    dealer: int
    starter: str
    set_aside: list[str]
    hand_sizes: list[int]
    first: int | None
    cards: list[str]
    card: str
    color: str | None
    size: int
    count: int
    reason: str | None
    direction: int
    total: int
    team: int
    partner: int
    to: int
    kind: str
    gave: str  # `traded`: the card this seat gave
    received: str  # `traded`: the card it got
    winner: int | None
    blocked: bool
    points: int
    hands: list[list[str]]
    conceded: bool
    scores: list[int]
    ranking: list[list[int]]


# A continuation step waiting on a choice, e.g. ["next", seat] or ["hit", seat, k, reason]
# (games/engine/card_effects.py, `_run`): the kind first, then its arguments, as JSON keeps it.
Step = list[Any]

# Game.to_dict(): the snapshot's layout is the engine's own (it only promises a round trip).
SnapshotDict = dict[str, Any]
