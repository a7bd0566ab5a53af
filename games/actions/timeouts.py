"""Acting on what is due: holds that ended, half-time reminders, clocks that ran out.

`sweep(now)` / `fire(game_id, now)`, run by Celery (beat every second, and one countdown
task per real-time game, re-armed by each firing). Every game is handled under its row
lock, taken with skip_locked, and every action is keyed on the clock's `since` (the event
number that started the decision), so a second or late firing finds nothing left to do
(docs/clocks.md).
"""

import logging
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import effects, engine, store
from games.actions import account_events, decisions, outbox
from games.actions.clock import countdown_columns
from games.bots import play as botplay
from games.deadlines import Clock
from games.engine import GameState
from games.engine.types import Action
from games.models import EmailOutbox, Game, GameEvent
from games.store import seats

log = logging.getLogger(__name__)


def sweep(now: datetime | None = None, batch: int | None = None) -> int:
    """Handles every game with something due; returns how many games it handled.

    One query finds and locks them (indexed `wake_at`, skip_locked: a game
    held by a player's move or another sweep is left to the next sweep). Each
    game runs in its own savepoint, so one failure does not undo the others.
    """
    now = now or timezone.now()
    batch = batch or settings.CLOCK_SWEEP_BATCH
    handled = 0
    with transaction.atomic():
        games = list(
            Game.objects.clock_due(now)
            .select_for_update(skip_locked=True)
            .order_by("wake_at")[:batch]
        )
        for game in games:
            try:
                with transaction.atomic():
                    handle(game, now)
                handled += 1
            except Exception:
                log.exception("clock of game %s failed", game.pk)
    return handled


def fire(game_id: int, now: datetime | None = None) -> bool:
    """The real-time countdown task: handles the game if something of it is due, then sends
    the game's next countdown for the earliest clock left. True if something was due.

    A game locked by a move is skipped (skip_locked). That move plans its clocks and, when
    its own `now` is past this countdown's time, sends the next countdown itself
    (`countdown_columns`); a move that took the lock just before this firing does not, and
    the 1 s sweep handles that game's next due clock, at most a second late."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.active().select_for_update(skip_locked=True).filter(pk=game_id).first()
        if game is None:
            return False
        due = game.wake_at is not None and game.wake_at <= now
        if due:
            handle(game, now)
        _rearm(game, now)
    return due


def _rearm(game: Game, now: datetime) -> None:
    """The next countdown of a real-time game whose countdown just fired."""
    if game.status != Game.Status.ACTIVE or game.pace != Game.Pace.REALTIME:
        return
    running = _dues(game)
    if not running:
        return
    due = running[0][0]  # the earliest
    # A clock left due (its time-out could not be made now) is the sweep's, a second later.
    store.save_columns(game, countdown_columns(game, max(due, now + timedelta(seconds=1)), now))


def _dues(game: Game) -> list[tuple[datetime, int]]:
    """(due, seat) of every running clock of `game`, earliest first."""
    return sorted(
        (due, seat) for seat, _ in seats.clocks(game) if (due := seats.due(game, seat)) is not None
    )


def handle(game: Game, now: datetime) -> None:
    """Everything due for `game` at `now`, in order: holds that ended, reminders,
    clocks that ran out. The caller holds the game's row lock; `game` is left as the row is
    (each time-out's decision brings it up to date, so nothing is read again)."""
    changes = seats.SeatChanges(game)
    wake_bots: list[int] = []
    for seat in changes.holds_ended(now):
        changes.hand_to_bot(seat, seats.AWAY, now)
        account_events.stand_in_started(game, seat)
        effects.log_on_commit(
            log,
            "game %s: seat %s is away, a bot plays for it until its player is back",
            game.pk,
            seat,
            game=game.pk,
            seat=seat,
        )
        if changes.drop_clock(seat) or seats.waited_on(game, seat):
            wake_bots.append(seat)
    reminders = [
        EmailOutbox(
            game_id=game.pk,
            seat=seat,
            seq=since,
            created_at=now,
            kind=EmailOutbox.Kind.REMINDER,
            not_before=now,
        )
        for seat, since in changes.reminders_due(now)
    ]
    if reminders:
        # The unique key (game, seq, seat, kind) makes a second sweep's row a no-op
        # even if it somehow got past the lock and the `reminded` flag, and leaves a
        # reminder the sender wrote early for the player's quiet hours as it is
        # (games.actions.outbox.early_reminder_row).
        EmailOutbox.objects.bulk_create(reminders, ignore_conflicts=True)
        transaction.on_commit(partial(_deliver, game.pk))
    store.save_columns(game, changes.columns())
    for seat in wake_bots:
        effects.task_on_commit("games.tasks.play_bot", game.pk, seat, game.last_seq)

    # Time-outs one at a time, earliest first: each is a decision that may change who is
    # waited on, and the door hands back the game as it left it.
    for _ in range(2 * game.players + 2):
        due = _dues(game)
        if not due or due[0][0] > now:
            break
        seat = due[0][1]
        clock = seats.clock(game, seat)
        if clock is not None:  # always: `seat` was found by its clock
            _time_out(game, seat, clock, now)


def _deliver(game_id: int) -> None:
    try:
        outbox.deliver_outbox(game_id=game_id)
    except Exception:
        # Unsent rows stay in the outbox; the sweep retries them.
        log.exception("could not deliver the emails of game %s", game_id)


def _time_out(game: Game, seat: int, clock: Clock, now: datetime) -> bool | None:
    """Makes the time-out decision of `seat` through the decision door, as a `timeout`
    event keyed on the clock's `since`, and brings `game` up to date with the row. True
    when it was made; None when this decision's time-out was already recorded (then
    nothing changes but the clock being dropped)."""
    idempotency_key = f"timeout-{seat}-{clock['since']}"
    try:
        with transaction.atomic():
            result = decisions.apply_decision(
                game.pk,
                seat,
                partial(_decide, seat=seat, now=now),
                GameEvent.Actor.TIMEOUT,
                idempotency_key=idempotency_key,
            )
            if result.replayed:
                raise _AlreadyFired(result.game)
    except (_AlreadyFired, decisions.IdempotencyConflict, _NothingToDecide) as exc:
        # This decision's time-out was recorded before (the savepoint undid this
        # firing's count); never loop on it: drop the clock.
        log.warning("time-out %s of game %s had already fired", idempotency_key, game.pk)
        changes = seats.SeatChanges(getattr(exc, "game", game))
        changes.drop_clock(seat)
        store.save_columns(changes.game, changes.columns())
        _adopt(game, changes.game)
        return None
    _adopt(game, result.game)
    return True


class _AlreadyFired(Exception):
    def __init__(self, game: Game) -> None:
        super().__init__(game.pk)
        self.game = game  # the row as the door read it, under the lock


def _adopt(game: Game, fresh: Game) -> None:
    """`game` becomes the row as `fresh` holds it (the same row, read under the same lock)."""
    if fresh is not game:
        game.__dict__.update(
            {f.attname: getattr(fresh, f.attname) for f in Game._meta.concrete_fields}
        )
        game._state.fields_cache = dict(fresh._state.fields_cache)


def _decide(
    game: Game, state: GameState, changes: seats.SeatChanges, *, seat: int, now: datetime
) -> Action | None:
    """The decision for a seat whose clock ran out, on the state the door loaded (`game`:
    the row under its lock; `changes`: its seats, written with the event). Logged once it
    commits (inside the caller's savepoint: a time-out found already recorded says
    nothing). An engine that finds nothing to decide raises _NothingToDecide, which the
    door lets through (its own IllegalDecision is a refused move, not this)."""
    effects.log_on_commit(log, "game %s: seat %s timed out", game.pk, seat, game=game.pk, seat=seat)
    try:
        return _decision(game, state, changes, seat, now)
    except engine.IllegalAction as exc:
        raise _NothingToDecide(str(exc)) from exc


class _NothingToDecide(Exception):
    pass


def held(changes: seats.SeatChanges, seat: int) -> bool:
    """The seat's player dropped and its disconnect hold is running (no bot plays for it
    yet): its time-outs now are not counted toward the three."""
    return changes.presence_of(seat)["hold_until"] is not None and changes.stand_in(seat) is None


def _decision(
    game: Game, state: GameState, changes: seats.SeatChanges, seat: int, now: datetime
) -> Action | None:
    if game.pace == Game.Pace.REALTIME:
        action = state.auto_action(seat)
        if held(changes, seat):
            # The rule book holds a dropped seat two minutes before a bot plays for it: a
            # time-out inside the hold is the plain move but not one of the three, or at a
            # 15 s timer three of them would hand the seat away for good long before the
            # hold ends (docs/clocks.md, "A disconnect and the three time-outs").
            return action
        count = changes.count_timeout(seat)
        account_events.timed_out(game, seat, count)
        if count >= settings.TIMEOUTS_BEFORE_BOT and changes.stand_in(seat) is None:
            # Handed to a bot with the event, before its pending seats are worked out, so
            # that the seat's next decision (a drawn card to play) already goes to the bot.
            changes.hand_to_bot(seat, seats.FOR_GOOD, now)
            account_events.handed_over(game, seat)
            effects.log_on_commit(
                log,
                "game %s: seat %s timed out %s times, a bot plays it to the end",
                game.pk,
                seat,
                count,
                game=game.pk,
                seat=seat,
            )
        return action
    if game.missed_deadline == Game.MissedDeadline.LEAVE:
        return {"type": "concede"}
    return botplay.move_for_seat(
        state,
        seat,
        settings.STAND_IN_BOT_LEVEL,
        history=lambda: store.all_events(game.pk),
        seed=seats.bot_seed(game, seat, game.last_seq),
    )
