"""The status bar: the round and the target (alike for every reader, as is the deal's check
shown among the table's links), and one reader's line under it: whose turn it is, who is
still deciding, who watches, the time left, and the warnings of their own and their
partner's clock."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from games.engine.types import SeatView
from games.models import Game
from games.presenters import fairness
from games.presenters.table import render

if TYPE_CHECKING:  # public.py imports this module for its status bar
    from games.presenters.table.public import PublicTable


def deal_commitment(game: Game, view: SeatView) -> str:
    """Public from the deal on: an HMAC keyed by the secret, which stays on the server."""
    return fairness.commitment(game.pk, view["round"], game.seed, game.deal_secret)


def round_line(public: "PublicTable") -> Markup:
    """The status bar's round and target: alike for every reader."""
    return render.parts().round_line(public.view, public.view["options"].get("target_score"))


def deal_check(public: "PublicTable") -> Markup:
    """The deal's fingerprint explained, with the page that checks it: alike for every
    reader."""
    return render.parts().deal_check(
        public.seq,
        public.view["round"],
        public.deal_commitment,
        render.verify_url(public.script_prefix, public.game.pk),
        public.finished,
    )


def reader_status(
    game: Game, seat: int | None, view: SeatView, public: "PublicTable"
) -> dict[str, Any]:
    """The keys of the status line (and of the hand's note on who is still choosing) for
    reader `seat` (None: a spectator)."""
    finished, names = public.finished, public.names
    waiting, choosing, picked = public.waiting, public.choosing, public.picked
    show_deadline = bool(game.deadline_at) and not finished and bool(waiting - public.bots)
    clocks = _clock_warnings(game, seat, public) if seat is not None else {}
    waiting_names = [names.get(s, f"Seat {s + 1}") for s in sorted(waiting) if s != seat]
    return {
        "turn_name": _turn_name(view, seat, finished, names),
        "waiting_names": waiting_names,
        "waiting_line": None if finished else waiting_line(view, waiting_names),
        "choosing_names": [names.get(s) for s in sorted(choosing - picked)],
        "picked_names": [names.get(s) for s in sorted(picked)],
        "deadline": game.deadline_at if show_deadline else None,
        "watching": public.watching,
        "deadline_mine": show_deadline and seat in waiting,
        "clock_mine": clocks.get("you"),
        "clock_partner": clocks.get("partner"),
    }


def _turn_name(
    view: SeatView, seat: int | None, finished: bool, names: Mapping[int, str]
) -> str | None:
    turn = view.get("turn")
    # During a trade the turn stays with whoever plays next, but the table waits for the
    # trade: the status line says so (waiting_line), not "<turn> to play".
    if turn is None or finished or view.get("decision") in TRADE_WAITS:
        return None
    return "You" if turn == seat else names.get(turn)


# What the table waits for while a trade is under way, after "Waiting for <names>".
TRADE_WAITS = {
    "setup": "to pick a card to pass",
    "swap": "to choose a card to swap",
    "give": "to give cards to their partner",
}


def join_names(names: Sequence[str]) -> str:
    """ "Ana", "Ana and Bo", "Ana, Bo and Cy"."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def waiting_line(view: SeatView, names: Sequence[str]) -> str | None:
    """Whom the table waits for, and for what, when that is not the reader and not one
    seat's turn to play: "Waiting for Ana and Bot 3 to choose a card to swap"."""
    if not names:
        return None
    what = TRADE_WAITS.get(view.get("decision") or "")
    return f"Waiting for {join_names(names)}" + (f" {what}" if what else "")


def _clock_warnings(game: Game, seat: int, public: "PublicTable") -> dict[str, dict[str, Any]]:
    """The reader's own clock and their partner's: the page warns them both when either runs
    low (a spectator and the other players see it on the plate only; docs/table.md)."""
    warnings: dict[str, dict[str, Any]] = {}
    partner = (seat + public.half) % public.players
    for number, role in ((seat, "you"), (partner, "partner")):
        plate = public.plate_data[number]
        if plate["due"]:
            warnings[role] = {
                "role": role,
                "name": public.log_names.get(number, ""),
                "due": plate["due"],
                "warn": plate["warn"],
                "clock": plate["clock"],
                "pace": game.pace,
            }
    return warnings
