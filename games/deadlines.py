"""A game's deadline columns, worked out from its clocks, presence and stand-ins.

Pure: no database, no clock of its own (`now` is always passed in). Every write of a
game's `clocks`, `presence` or `stand_ins` goes through games.store.seats, which takes
`deadline_at` and `wake_at` from `columns()` here, so the two can never disagree with what
the sweep acts on (docs/clocks.md).
"""

from datetime import datetime

from games.models import Game


def iso(moment):
    return moment.isoformat()


def at(text):
    return datetime.fromisoformat(text) if text else None


def new_clock(game, since, kind, now):
    """A fresh clock for a decision that became a person's after event `since`."""
    window = game.decision_window()
    clock = {"since": since, "kind": kind, "started": iso(now), "due": iso(now + window),
             "remind_at": None, "reminded": False}
    if game.pace == Game.Pace.TURN_BASED:
        clock["remind_at"] = iso(now + window / 2)
    return clock


def earliest_due(clocks):
    dues = [at(c["due"]) for c in clocks.values()]
    return min(dues) if dues else None


def next_wake(clocks, presence, stand_ins):
    """The earliest moment the sweep has something to do, or None."""
    moments = []
    for clock in clocks.values():
        moments.append(at(clock["due"]))
        if clock.get("remind_at") and not clock.get("reminded"):
            moments.append(at(clock["remind_at"]))
    for key, entry in presence.items():
        if entry.get("hold_until") and key not in stand_ins:
            moments.append(at(entry["hold_until"]))
    return min(moments) if moments else None


def columns(clocks, presence, stand_ins):
    """`deadline_at` (the earliest clock's end) and `wake_at` (the earliest moment the
    sweep has something to do) for these clocks, presence entries and stand-ins."""
    return {"deadline_at": earliest_due(clocks),
            "wake_at": next_wake(clocks, presence or {}, stand_ins or {})}
