"""The data of a game: the fields every part of the rules reads and writes.

`Game` is this state plus the rules, which are split by subject into mixins (dealing,
effects, trades, ending, snapshot). Each mixin derives from `State`, so its methods see the
fields with their types; the slots live here, once, so that a game has no `__dict__`.
"""

from typing import TYPE_CHECKING

from .options import Options
from .types import Event, GameOver, RoundResult, Step


class State:
    __slots__ = (
        "options",
        "n",
        "half",
        "seed",
        "round",
        "dealer",
        "hands",
        "draw",
        "discard",
        "color",
        "direction",
        "turn",
        "scores",
        "departed",
        "left",
        "last_points",
        "stage",
        "pending",
        "pickers",
        "picks",
        "give_seat",
        "give_count",
        "give_reason",
        "forced",
        "penalty",
        "ops",
        "passes",
        "reshuffles",
        "received",
        "gave",
        "round_over",
        "last_round",
        "game_over",
    )

    options: Options
    n: int  # seats
    half: int  # teams; seat s plays for team s % half, its partner is (s + half) % n
    seed: int | str
    round: int
    dealer: int
    hands: list[list[str]]  # per seat, in hand order
    draw: list[str]  # top of the pile is the END of the list
    discard: list[str]  # top is the end
    color: str | None  # None only before the first deal
    direction: int
    turn: int | None
    scores: list[int]  # per team
    departed: list[bool]  # per team
    left: list[int]  # teams in the order they left
    last_points: list[int]  # per team: points left in its hands when the round ended
    stage: str  # SETUP, PLAY or OVER
    pending: str | None  # the choice waited on besides an ordinary turn (common.py)
    pickers: list[int]
    picks: list[str | None]  # per seat
    give_seat: int | None
    give_count: int
    give_reason: str | None
    forced: str | None  # the drawn card that must be played
    penalty: int  # a waiting stacked penalty
    ops: list[Step]  # continuation steps, run from the end
    passes: int
    reshuffles: int
    received: list[list[str]]
    gave: list[list[str]]
    round_over: RoundResult | None
    last_round: RoundResult | None
    game_over: GameOver | None

    if TYPE_CHECKING:
        # The helpers one mixin calls on another, declared for mypy only; each is defined
        # once, in the mixin or in `Game` (mypy checks that the two signatures agree).
        def _blank(self, options: Options, seed: int | str) -> None: ...
        def _deal(self, ev: list[Event]) -> None: ...
        def _reset_round(self) -> None: ...
        def _first_player(self) -> int | None: ...
        def _take(self, s: int, k: int, reason: str, ev: list[Event]) -> list[str]: ...
        def _tag_in(self, s: int, ev: list[Event]) -> None: ...
        def _run(self, ev: list[Event]) -> None: ...
        def _win(self, s: int, code: str, ev: list[Event]) -> None: ...
        def _finish_setup(self, ev: list[Event]) -> None: ...
        def _next_in(self, s: int) -> int | None: ...
        def _adjacent(self, s: int) -> int | None: ...
        def _playable(self) -> frozenset[str]: ...
        def _can_draw(self) -> bool: ...
        def _team_points(self, team: int) -> int: ...
