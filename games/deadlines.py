"""A game's deadline columns, worked out from its clocks, presence and stand-ins.

Pure: no database, no clock of its own (`now` is always passed in). Every write of a
game's `clocks`, `presence` or `stand_ins` goes through games.store.seats, which takes
`deadline_at` and `wake_at` from `columns()` here, so the two can never disagree with what
the sweep acts on (docs/clocks.md).
"""

from collections.abc import Mapping
from datetime import datetime
from typing import TypedDict

from games.models import Game


class Clock(TypedDict):
    """A seat's running clock, as the `clocks` column holds it (docs/clocks.md)."""

    since: int  # the event after which the decision became the seat's
    kind: str  # the decision's kind ("turn", "pick", ...)
    started: str  # ISO times
    due: str
    remind_at: str | None  # the half-time reminder, turn by turn only
    reminded: bool


class StandIn(TypedDict):
    reason: str  # "timeouts" (for good) or "away"
    since: str


class Presence(TypedDict):
    sockets: int
    away_since: str | None
    hold_until: str | None


class DeadlineColumns(TypedDict):
    deadline_at: datetime | None
    wake_at: datetime | None


def iso(moment: datetime) -> str:
    return moment.isoformat()


def at(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def new_clock(game: Game, since: int, kind: str, now: datetime) -> Clock:
    """A fresh clock for a decision that became a person's after event `since`."""
    window = game.decision_window()
    clock: Clock = {
        "since": since,
        "kind": kind,
        "started": iso(now),
        "due": iso(now + window),
        "remind_at": None,
        "reminded": False,
    }
    if game.pace == Game.Pace.TURN_BASED:
        clock["remind_at"] = iso(now + window / 2)
    return clock


def earliest_due(clocks: Mapping[str, Clock]) -> datetime | None:
    dues = [due for c in clocks.values() if (due := at(c["due"])) is not None]
    return min(dues) if dues else None


def next_wake(
    clocks: Mapping[str, Clock], presence: Mapping[str, Presence], stand_ins: Mapping[str, StandIn]
) -> datetime | None:
    """The earliest moment the sweep has something to do, or None."""
    texts: list[str | None] = []
    for clock in clocks.values():
        texts.append(clock["due"])
        if clock.get("remind_at") and not clock.get("reminded"):
            texts.append(clock["remind_at"])
    for key, entry in presence.items():
        if entry.get("hold_until") and key not in stand_ins:
            texts.append(entry["hold_until"])
    moments = [moment for text in texts if (moment := at(text)) is not None]
    return min(moments) if moments else None


def columns(
    clocks: Mapping[str, Clock],
    presence: Mapping[str, Presence] | None,
    stand_ins: Mapping[str, StandIn] | None,
) -> DeadlineColumns:
    """`deadline_at` (the earliest clock's end) and `wake_at` (the earliest moment the
    sweep has something to do) for these clocks, presence entries and stand-ins."""
    return {
        "deadline_at": earliest_due(clocks),
        "wake_at": next_wake(clocks, presence or {}, stand_ins or {}),
    }
