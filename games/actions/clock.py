"""Clocks of the people who must decide after an event (docs/clocks.md).

`plan(...)`, called by `decisions._record` inside the decision's transaction, works out the
clock of every person who must decide after the new event and queues what must follow the
commit: the game's real-time countdown task when it has none due in time, the "your turn"
email row. Acting on what is due is games.actions.timeouts.
"""

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from games import effects
from games.engine.types import SeatView
from games.models import EmailOutbox, Game
from games.store import seats


def plan(
    game: Game,
    spectator_view: SeatView,
    pending: list[int],
    bot_seats: Collection[int],
    acted_seat: int | None,
    seq: int,
    now: datetime,
) -> dict[str, Any]:
    """The clock columns after event `seq`; queues the after-commit work they need.

    Must run inside the transaction that locked `game` (decisions._record). A
    person still deciding the same kind of decision as before keeps their
    clock (a simultaneous pass: others' picks do not restart it); the seat that
    just acted, and anyone newly waited on, gets a new one.
    """
    kind = spectator_view.get("decision")
    people = [s for s in pending if s not in bot_seats]
    changes = seats.SeatChanges(game)
    for seat, _ in seats.clocks(game):
        if seat not in people:
            changes.drop_clock(seat)
    started: list[int] = []
    for seat in people:
        previous = seats.clock(game, seat)
        # A kind always: it is None only once the game is over, when nobody decides.
        if kind is not None and (
            previous is None or seat == acted_seat or previous.get("kind") != kind
        ):
            changes.start_clock(seat, seq, kind, now)
            started.append(seat)
    countdown: dict[str, datetime] = {}
    if started:
        if game.pace == Game.Pace.REALTIME:
            due = changes.due(started[0])
            if due is not None:  # always: that clock was just started
                countdown = countdown_columns(game, due, now)
        else:
            EmailOutbox.objects.bulk_create(
                [
                    EmailOutbox(
                        game_id=game.pk,
                        seat=s,
                        seq=seq,
                        kind=EmailOutbox.Kind.TURN,
                        created_at=now,
                        not_before=now,
                    )
                    for s in started
                ],
                ignore_conflicts=True,
            )
            effects.task_on_commit("games.tasks.deliver_emails", game.pk)
    return {
        "clocks": changes.clocks,
        **seats.deadline_columns(game, clocks=changes.clocks),
        **countdown,
    }


def countdown_columns(game: Game, due: datetime, now: datetime) -> dict[str, datetime]:
    """One real-time countdown task per game at a time, not one per move.

    A clock due at `due` needs a task that fires by then. If the game's pending task
    (`countdown_at`) fires after now and no later than `due`, it will do: when it fires it
    handles what is due and sends the next one for the earliest clock left (`fire`). Else a
    task is sent for `due` on commit. Returns the game's columns to save ({} or the new
    countdown_at). A task per move would leave the worker holding one task per move timer
    of every busy table (docs/load.md)."""
    pending = game.countdown_at
    if pending is not None and now < pending <= due:
        return {}
    _schedule_countdown(game.pk, due)
    return {"countdown_at": due}


def _schedule_countdown(game_id: int, due: datetime) -> None:
    """A real-time time-out fires on time: a task due exactly then (seconds away, so
    well inside the broker's visibility timeout). The 1 s sweep is the safety net."""
    effects.task_on_commit(
        "games.tasks.fire_clock", game_id, eta=due, expires=due + timedelta(minutes=5)
    )
