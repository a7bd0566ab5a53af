"""What one seat, or a spectator, may see: the only way game state leaves the engine.

Every page, socket message, replay and export of the site is rendered from `view(seat)` and
from `events_for(events, seat)`, so secrecy is decided here and nowhere else.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .types import Event, GameOver, RoundResult, SeatView

if TYPE_CHECKING:
    from .game import GameState


def view(game: "GameState", seat: int | None = None) -> SeatView:
    """The table as `seat` sees it (None: a spectator, public information only).

    A seat sees its own hand, what it received and gave in its latest trade, its own pick in
    a simultaneous pass and the card it drew and must play. Everyone sees hand sizes, who is
    out, the discard pile, the draw pile's size, who has chosen (never what), scores, and at
    the end of a round every hand.
    """
    g = game
    n, half = g.n, g.half
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise ValueError(f"There is no seat {seat!r} at this table.")
    hands = g.hands
    pending = g.pending
    picking = pending == "setup" or pending == "swap"
    v: SeatView = {
        "seat": seat,
        "players": n,
        "teams": half,
        "hand_sizes": [len(h) for h in hands],
        "out": [not hands[s] and bool(hands[(s + half) % n]) for s in range(n)],
        "departed": [g.departed[s % half] for s in range(n)],
        "discard": list(g.discard),
        "draw_pile_size": len(g.draw),
        "color": g.color,
        "direction": g.direction,
        "turn": g.turn,
        "waiting_on": g.waiting_on(),
        "penalty": g.penalty,
        "round": g.round,
        "dealer": g.dealer,
        "scores": list(g.scores),
        "round_over": _result(g.round_over),
        "game_over": _over(g.game_over),
        # Beyond the contract: enough for a table screen to draw every control.
        "stage": g.stage,
        "decision": _decision(g),
        "choosing": list(g.pickers) if picking else [],
        "picked": [s for s in g.pickers if g.picks[s] is not None] if picking else [],
        "giving": g.give_seat if pending == "give" else None,
        "give_count": g.give_count if pending == "give" else 0,
        "give_reason": g.give_reason if pending == "give" else None,
        "last_round": _result(g.last_round),
        "options": g.options.to_dict(),
    }
    if seat is not None:
        v["hand"] = list(hands[seat])
        v["must_give"] = g.give_count if pending == "give" and g.give_seat == seat else 0
        v["received"] = list(g.received[seat])
        v["gave"] = list(g.gave[seat])
        v["my_pick"] = g.picks[seat] if picking else None
        v["must_play"] = g.forced if pending == "forced" and g.turn == seat else None
        v["partner"] = (seat + half) % n
        v["team"] = seat % half
    return v


def _decision(g: "GameState") -> str | None:
    """What kind of decision the table waits for: setup, swap, give, forced, penalty, turn,
    or None when the game is over."""
    if g.stage == "over":
        return None
    if g.pending is not None:
        return g.pending
    return "penalty" if g.penalty else "turn"


def _result(r: RoundResult | None) -> RoundResult | None:
    if r is None:
        return None
    copy = r.copy()
    copy["hands"] = [list(h) for h in r["hands"]]
    return copy


def _over(o: GameOver | None) -> GameOver | None:
    if o is None:
        return None
    return {"winner": o["winner"], "ranking": [list(x) for x in o["ranking"]]}


def visible_to(event: Event, seat: int | None) -> bool:
    """Whether `seat` (None: a spectator) may see `event`."""
    to = event.get("visible_to")
    return to is None or (seat is not None and seat in to)


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events of a list that `seat` (None: a spectator) may see."""
    return [e for e in events if visible_to(e, seat)]
