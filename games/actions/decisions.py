"""The one door for writes to a game's events.

Every decision — a click, a bot move, a time-out — goes through `apply_decision`; the
deal goes through `start_game`; a moderator's action, which leaves the engine's state
as it is, through `append_note`. Each appends one GameEvent, moves `last_seq` and the
snapshot along and updates the game's columns, in one statement (games.store) inside the
transaction that holds the game row's lock, and leaves side effects (socket pushes, bot
moves) to run after commit.
"""

import functools
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ParamSpec, TypeVar, cast

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from games import effects, engine, metrics, store
from games.actions import account_events, clock, ratings
from games.engine import GameState, trades
from games.engine.types import Action, Event, SeatView
from games.models import Game, GameEvent, GameSnapshot
from games.store import seats

P = ParamSpec("P")
R = TypeVar("R")
# A decision made on the state the door loads (a missed deadline's): it returns the action.
Decide = Callable[[Game, GameState, seats.SeatChanges], Action | None]

log = logging.getLogger(__name__)


class DecisionRefused(Exception):
    """A decision that was not applied; `str(exc)` is fit to show the player."""


class IllegalDecision(DecisionRefused):
    """The engine (or the input check) refused the action; nothing changed."""


class GameNotActive(DecisionRefused):
    pass


class StaleDecision(DecisionRefused):
    """The seat's position changed since the caller looked at it (see `expected_seq`)."""


class FutureSeq(DecisionRefused):
    """`expected_seq` names an event the game has not had: the caller cannot have read it
    from this game (another game's state, or a number made up)."""


class IdempotencyConflict(DecisionRefused):
    pass


class SeatLost(DecisionRefused):
    """The acting user no longer holds the seat, or may not play at the moment."""


class SeatTakenOver(DecisionRefused):
    """A bot plays this seat for the rest of the game (three time-outs)."""


BOT_FOR_GOOD = (
    "A bot plays your seat for the rest of this game after three missed moves, "
    "so your move was not made."
)


def _check_holder(holder: store.SeatHolder | None, user: AbstractBaseUser, now: datetime) -> None:
    """Under the game's lock: `user` holds the seat now and may play. A socket's user is the
    one loaded when it connected, and a moderator may have moved the seat or the account on
    since then; what counts is the rows as they are now."""
    if holder is None or holder.user_id != user.pk:
        raise SeatLost("This seat is no longer yours: you cannot move for it.")
    if not holder.may_play(now):
        raise SeatLost("This account may not play at the moment.")


class DecisionNotSaved(DecisionRefused):
    """The database connection failed during the decision: PostgreSQL rolled the whole
    transaction back, so nothing of it is stored. Retrying with the same idempotency key is
    safe (had the loss come during COMMIT and the commit gone through, the retry returns
    the first result)."""


NOT_SAVED = (
    "The server lost its connection to the game's database, so your move was not "
    "saved. Nothing changed: please try again."
)


def _refused_on_database_loss(function: Callable[P, R]) -> Callable[P, R]:
    """A lost or failed database connection becomes a DecisionNotSaved with a message fit to
    show (tests/e2e/faults/test_database_lost.py), instead of a server error."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            log.warning("decision not saved, database error: %s", exc)
            raise DecisionNotSaved(NOT_SAVED) from exc

    return wrapper


# The reason each refusal is counted under in wct_decisions_refused_total (docs/deploy.md).
_REFUSAL_REASON = {
    IllegalDecision: "illegal",
    GameNotActive: "not_active",
    StaleDecision: "stale",
    FutureSeq: "future_seq",
    IdempotencyConflict: "key_reused",
    SeatLost: "seat_lost",
    SeatTakenOver: "bot_for_good",
    DecisionNotSaved: "not_saved",
}


def _measured(function: Callable[P, "DecisionResult"]) -> Callable[P, "DecisionResult"]:
    """Counts each decision in the site's metrics (games.metrics): applied, by actor, with
    the time of the whole call (its push and task sends after the commit included), or
    refused, by reason. A key used again (`replayed`) wrote nothing and counts as neither."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> "DecisionResult":
        started = time.perf_counter()
        try:
            result = function(*args, **kwargs)
        except DecisionRefused as exc:
            metrics.decisions_refused.labels(_REFUSAL_REASON.get(type(exc), "refused")).inc()
            raise
        if not result.replayed:
            metrics.decision_applied(result.event.actor, time.perf_counter() - started)
        return result

    return wrapper


@dataclass(frozen=True)
class DecisionResult:
    event: GameEvent
    replayed: bool  # True: this key was already used, `event` is the first result
    # The game row as this decision left it (read under its lock, brought up to date by
    # the write), for a caller that goes on with the game: the time-outs of one sweep.
    game: Game = field(compare=False, repr=False)


def pending_seats(state: GameState, spectator_view: SeatView | None = None) -> list[int]:
    """Seats that have something to decide now, in seat order (`spectator_view`: the state's
    `view(None)`, when the caller has it already)."""
    if spectator_view is None:
        spectator_view = state.view(None)
    candidates = set(spectator_view.get("waiting_on") or [])
    turn = spectator_view.get("turn")
    if turn is not None:
        candidates.add(turn)
    return [
        s for s in sorted(candidates) if state.legal_actions(s) or state.view(s).get("must_give")
    ]


def _seat_number(seat: object) -> bool:
    """A value that may stand for a seat in SQL (the table's size is checked later)."""
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 16


def _check_input(game_seat_count: int, seat: object, action: object, actor: str) -> None:
    """The actor, the seat and the action's shape (a function deciding it: checked later)."""
    if actor not in GameEvent.Actor.values:
        raise ValueError(f"unknown actor {actor!r}")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game_seat_count:
        raise IllegalDecision("There is no such seat at this table.")
    if not callable(action):
        _check_action(action)


def _check_action(action: object) -> Action:
    """`action` if it has a move's type at least (the engine judges the rest)."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalDecision("That is not a move: an action needs a type.")
    return cast(Action, action)


@_measured
@_refused_on_database_loss
def apply_decision(
    game_id: int,
    seat: int,
    action: Action | Decide,
    actor: str,
    *,
    user: AbstractBaseUser | None = None,
    idempotency_key: str | None = None,
    expected_seq: int | None = None,
) -> "DecisionResult":
    """Applies one decision of `seat` and returns a DecisionResult.

    In one transaction: lock the game row (select_for_update), check that
    `user` (when given: a person's click or socket) holds `seat` now and may
    play, return the first result if `idempotency_key` was used before,
    refuse a person's move for a seat a bot plays for good, load the state
    (snapshot + later events), let the engine act, append the event, update
    the snapshot and the game's columns. After commit: notify every seat and
    schedule the bots that now have a decision.

    `action` may instead be a function `action(game, state, changes)` that returns the
    action: the decision of whoever decides for the seat (a missed deadline's), made on
    the state this call loads, with the game row read under the lock; the seats' columns
    it changes (`changes`, a store.seats.SeatChanges) are written with the event, and
    take effect before the new event's pending seats and clocks are worked out. A key
    used before replays without calling it.

    Raises IllegalDecision (the engine's message; nothing changes),
    GameNotActive, StaleDecision (when `expected_seq` is given and an event after
    it changed what the seat may do: `still_valid`), FutureSeq (`expected_seq` is
    past the game's last event), IdempotencyConflict (the key was used for a
    different decision), SeatLost (the user no longer holds the seat, or is
    banned or suspended), SeatTakenOver (three time-outs handed the seat to a
    bot) and Game.DoesNotExist.
    """
    with transaction.atomic():
        # Only the game row is locked (the snapshot is an outer join). A caller
        # that waited for the lock gets the fresh game row but may get the
        # snapshot as of its statement's start: load_state then applies the
        # events recorded after that snapshot, so the state is still current.
        # The look-up of `idempotency_key` and of who holds the seat now is a statement
        # of its own, sent once the lock is granted: under READ COMMITTED only a new
        # statement sees what the lock's last holder committed (a subquery inside the
        # locking SELECT would not).
        game, prior, holder = store.lock_game(
            game_id, idempotency_key, seat if user is not None and _seat_number(seat) else None
        )
        _check_input(game.players, seat, action, actor)
        if user is not None:
            _check_holder(holder, user, timezone.now())
        if idempotency_key:
            if prior is not None:
                if prior.seat != seat or (not callable(action) and prior.action != action):
                    raise IdempotencyConflict("This submission was already used for another move.")
                return DecisionResult(prior, replayed=True, game=game)
        if game.status != Game.Status.ACTIVE:
            raise GameNotActive("This game is not being played.")
        if expected_seq is not None:
            _check_seq(game, seat, expected_seq)
        if actor == GameEvent.Actor.PERSON and seats.for_good(game, seat):
            raise SeatTakenOver(BOT_FOR_GOOD)
        state = store.load_state(game)
        columns: dict[str, Any] = {}
        try:
            if callable(action):
                changes = seats.SeatChanges(game)
                move = _check_action(action(game, state, changes))
                columns = dict(changes.columns())
                changes.apply()
            else:
                move = action
            events = state.act(seat, move)
        except engine.IllegalAction as exc:
            raise IllegalDecision(str(exc)) from exc
        event = _record(
            game,
            state,
            kind=move["type"],
            seat=seat,
            actor=actor,
            user=user,
            action=move,
            events=events,
            idempotency_key=idempotency_key,
            columns=columns,
        )
    return DecisionResult(event, replayed=False, game=game)


STALE = "The game has moved on since event {seq}: your seat's position changed; look again."
FUTURE = (
    "There is no event {seq} in this game yet (its last is {last}): send the seq of a state "
    "you read from this game."
)


def _check_seq(game: Game, seat: int, expected_seq: int) -> None:
    """Under the game's lock: the decision of `seat`, made on what it saw at event
    `expected_seq`, still means what it meant then. Raises FutureSeq or StaleDecision."""
    if expected_seq > game.last_seq:
        raise FutureSeq(FUTURE.format(seq=expected_seq, last=game.last_seq))
    if expected_seq < game.last_seq and not still_valid(game.pk, seat, expected_seq):
        raise StaleDecision(STALE.format(seq=expected_seq))


def still_valid(game_id: int, seat: int, since: int) -> bool:
    """Whether nothing recorded after event `since` changed what `seat` may do.

    The rule (docs/bot-api.md, "Decisions"): a decision is stale unless every later event
    is one of
    - another seat's pick in a simultaneous setup pass or symbol swap that left the pick
      open (its engine events are only `picked`/`pick`: the pass or swap has not been made),
    - an event that leaves the engine's state as it is (a moderator's note; not the deal).
    Such events change the seat's view only in who has chosen (`waiting_on`, `picked`):
    its hand, its decision, its legal actions, the discard and the turn are as they were,
    so the decision means what it meant. Anything else (a play, a draw, a give, a pick
    that completed the pass, the seat's own earlier decision) changes the seat's view, and
    the decision is refused: the program must look again. Reads only the event rows after
    `since`, in order, and stops at the first that changes something."""
    rows = GameEvent.objects.filter(game_id=game_id).order_by("seq")
    while True:
        # A few rows at a time (the first that changes something ends it), by seq, so no
        # server-side cursor is needed.
        chunk = list(
            rows.filter(seq__gt=since).values_list("seq", "seat", "kind", "action", "events")[:16]
        )
        if not chunk:
            return True
        for _seq, row_seat, kind, action, events in chunk:
            if action is None:
                if kind == "deal":
                    return False
                continue  # a note: the engine's state is as it was
            if kind != "pass" or row_seat == seat:
                return False
            if not trades.only_picks(events or ()):
                return False
        since = chunk[-1][0]


def start_game(game_id: int) -> GameEvent:
    """Deals a full open table: status becomes active and the next event (1, unless a
    moderator acted on the open table) is the deal.

    Locks the game row. The caller (lobby) checks who may start; this checks
    the table: open, and every seat filled. Raises DecisionRefused otherwise.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != Game.Status.OPEN:
            raise GameNotActive("This table has already started.")
        rows = list(game.seats.all())
        if len(rows) != game.players or any(s.is_empty for s in rows):
            raise DecisionRefused("Every seat must be filled before the start.")
        state = engine.GameState.new(game.engine_options(), game.seed)
        now = timezone.now()
        game.status = Game.Status.ACTIVE
        game.started_at = now
        game.bot_seats = [s.number for s in rows if s.is_bot]
        game.save(update_fields=["status", "started_at", "bot_seats"])
        GameSnapshot.objects.create(game=game, seq=0, state=state.to_dict())
        effects.log_on_commit(
            log,
            "game %s started: %s players, %s",
            game.pk,
            game.players,
            game.get_pace_display().lower(),
            game=game.pk,
        )
        return _record(
            game,
            state,
            kind="deal",
            seat=None,
            actor=GameEvent.Actor.SYSTEM,
            user=None,
            action=None,
            events=state.initial_events(),
            idempotency_key=None,
            now=now,
        )


def nothing_pending() -> dict[str, Any]:
    """The columns of a game that ended (finished or aborted): nobody to wait for, nothing
    for the sweep."""
    return {
        "turn": None,
        "waiting_on": [],
        "bot_due_at": None,
        "clocks": {},
        "deadline_at": None,
        "wake_at": None,
    }


def _record(
    game: Game,
    state: GameState,
    *,
    kind: str,
    seat: int | None,
    actor: str,
    user: AbstractBaseUser | None,
    action: Action | None,
    events: list[Event],
    idempotency_key: str | None,
    now: datetime | None = None,
    columns: dict[str, Any] | None = None,
) -> GameEvent:
    """Appends the engine's event after game.last_seq and brings the snapshot, the clocks
    and the game's other columns up to date (with `columns`, the seats' columns the
    decision changed); schedules the bots that now have a decision.

    Must run inside the transaction that locked `game`.
    """
    now = now or timezone.now()
    seq = game.last_seq + 1
    # The push first: on-commit callbacks run in the order they were registered, and the
    # pages should not wait for the countdown task clock.plan sends to Celery (docs/load.md).
    reads = effects.game_changed_on_commit(game, seq, state)
    spectator_view = state.view(None)
    pending = pending_seats(state, spectator_view)
    bot_seats = set(game.bot_seats)
    bots_to_move = [s for s in pending if s in bot_seats]
    columns = {
        **(columns or {}),
        "round": spectator_view.get("round"),
        "turn": spectator_view.get("turn"),
        "waiting_on": pending,
        "bot_due_at": now if bots_to_move else None,
        # clocks, deadline_at, wake_at: each person's timer (docs/clocks.md).
        **clock.plan(game, spectator_view, pending, bot_seats, seat, seq, now),
    }
    if spectator_view.get("game_over"):
        columns.update(status=Game.Status.FINISHED, finished_at=now, **nothing_pending())
        bots_to_move = []
    account_events.game_moved(game, seq, kind, seat, actor, events, columns, spectator_view)
    event = _write(
        game,
        seq,
        state,
        kind=kind,
        seat=seat,
        actor=actor,
        user=user,
        action=action,
        events=events,
        idempotency_key=idempotency_key,
        now=now,
        columns=columns,
        reads=reads,
    )
    if columns.get("status") == Game.Status.FINISHED:
        # In the transaction that records the end: a game is rated exactly when it ends.
        ratings.game_finished(game, state, now)
        effects.log_on_commit(log, "game %s finished at event %s", game.pk, seq, game=game.pk)
        if game.rated:
            # Its people's reviews (games.actions.review), queued by a task of the reviews'
            # queue once this commits: the last move writes nothing more for them.
            effects.task_on_commit(
                "games.tasks.review_rated_game", game.pk, queue=settings.CELERY_REVIEW_QUEUE
            )
    pace = bot_pace(game)
    for bot in bots_to_move:
        effects.task_on_commit("games.tasks.play_bot", game.pk, bot, seq, **pace)
    return event


# A table's bot speed, as a share of BOT_PACE_MS.
BOT_SPEEDS: dict[str, float] = {Game.BotSpeed.STEADY: 1.0, Game.BotSpeed.QUICK: 1 / 3}


def bot_pace(game: Game) -> dict[str, float]:
    """The `countdown` of a bot's move: in real time about BOT_PACE_MS (2/3 to 4/3 of it,
    so that bots do not move like clockwork), so that a person can see each move land, or
    a third of it at a table whose host chose quick bots; nothing in turn-by-turn games.
    The stalled-bot sweep waits BOT_STALL_SECONDS, far more."""
    if game.pace != Game.Pace.REALTIME or settings.BOT_PACE_MS <= 0:
        return {}
    share = BOT_SPEEDS.get(game.bot_speed, 1.0)
    return {"countdown": random.uniform(2 / 3, 4 / 3) * share * settings.BOT_PACE_MS / 1000}


def append_note(
    game: Game,
    *,
    kind: str,
    actor: str,
    user: AbstractBaseUser | None,
    seat: int | None,
    events: list[Event],
    columns: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> GameEvent:
    """Appends an event that leaves the engine's state as it is (`action` None, so
    load_state and replays pass over it, as over the deal): a moderator's. `columns` are
    the game's columns that change with it; they are written with the event.

    Must run inside the transaction that locked `game`; reads the snapshot itself, after
    the lock, so the state it moves along is the current one. After commit the table is
    pushed, once it has been dealt (a table not yet dealt has no page: the table page and
    its socket refuse open tables). Returns the GameEvent.
    """
    now = now or timezone.now()
    seq = game.last_seq + 1
    state = store.current_state(game)
    reads = None if state is None else effects.game_changed_on_commit(game, seq, state)
    return _write(
        game,
        seq,
        state,
        kind=kind,
        seat=seat,
        actor=actor,
        user=user,
        action=None,
        events=events,
        idempotency_key=None,
        now=now,
        columns=columns or {},
        reads=reads,
    )


def _write(
    game: Game,
    seq: int,
    state: GameState | None,
    *,
    columns: dict[str, Any],
    reads: store.TableReads | None = None,
    **event: Any,
) -> GameEvent:
    """The one write of a game's event: event `seq` (= game.last_seq + 1), `last_seq` and
    the game's `columns`, and the snapshot at `state` (None: a table not yet dealt, which
    has no snapshot), in one statement (games.store), which also fills `reads` for the push;
    `game` is brought up to date, before the commit, for the push that reads it after."""
    columns = {"last_seq": seq, **columns}
    written = store.append(
        game,
        seq=seq,
        columns=columns,
        state=None if state is None else state.to_dict(),
        reads=reads,
        **event,
    )
    for name, value in columns.items():
        setattr(game, name, value)
    return written
