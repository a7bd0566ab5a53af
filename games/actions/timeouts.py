"""Acting on what is due: holds that ended, half-time reminders, clocks that ran out.

`sweep(now)` / `fire(game_id, now)`, run by Celery (beat every second, and one countdown
task per real-time game, re-armed by each firing). Every game is handled under its row
lock, taken with skip_locked, and every action is keyed on the clock's `since` (the event
number that started the decision), so a second or late firing finds nothing left to do
(docs/clocks.md).
"""

import logging
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import deadlines, effects, engine, store
from games.actions import decisions, outbox
from games.actions.clock import countdown_columns
from games.bots import play as botplay
from games.models import EmailOutbox, Game, GameEvent

log = logging.getLogger(__name__)


def sweep(now=None, batch=None):
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
            Game.objects.clock_due(now).select_for_update(skip_locked=True)
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


def fire(game_id, now=None):
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
            game.refresh_from_db(fields=["status", "clocks", "countdown_at"])
        _rearm(game, now)
    return due


def _rearm(game, now):
    """The next countdown of a real-time game whose countdown just fired."""
    if game.status != Game.Status.ACTIVE or game.pace != Game.Pace.REALTIME:
        return
    due = deadlines.earliest_due(game.clocks or {})
    if due is None:
        return
    # A clock left due (its time-out could not be made now) is the sweep's, a second later.
    columns = countdown_columns(game, max(due, now + timedelta(seconds=1)), now)
    if columns:
        Game.objects.filter(pk=game.pk).update(**columns)


def handle(game, now):
    """Everything due for `game` at `now`, in order: holds that ended, reminders,
    clocks that ran out. The caller holds the game's row lock."""
    presence = dict(game.presence or {})
    stand_ins = dict(game.stand_ins or {})
    clocks = {k: dict(v) for k, v in (game.clocks or {}).items()}
    bot_seats = list(game.bot_seats)
    wake_bots = []
    for key, entry in presence.items():
        hold_until = deadlines.at(entry.get("hold_until"))
        if hold_until and hold_until <= now and key not in stand_ins:
            seat = int(key)
            stand_ins[key] = {"reason": "away", "since": deadlines.iso(now)}
            effects.log_on_commit(log, "game %s: seat %s is away, a bot plays for it until "
                                  "its player is back", game.pk, seat, game=game.pk, seat=seat)
            if seat not in bot_seats:
                bot_seats.append(seat)
            if clocks.pop(key, None) is not None or seat in game.waiting_on:
                wake_bots.append(seat)
    reminders = []
    for key, clock in clocks.items():
        remind_at = deadlines.at(clock.get("remind_at"))
        if remind_at and remind_at <= now and not clock.get("reminded"):
            clock["reminded"] = True
            reminders.append(EmailOutbox(game_id=game.pk, seat=int(key), seq=clock["since"],
                                         kind=EmailOutbox.Kind.REMINDER, created_at=now,
                                         not_before=now))
    if reminders:
        # The unique key (game, seq, seat, kind) makes a second sweep's row a no-op
        # even if it somehow got past the lock and the `reminded` flag, and leaves a
        # reminder the sender wrote early for the player's quiet hours as it is
        # (games.actions.outbox.early_reminder_row).
        EmailOutbox.objects.bulk_create(reminders, ignore_conflicts=True)
        transaction.on_commit(partial(_deliver, game.pk))
    columns = {
        "presence": presence, "stand_ins": stand_ins, "clocks": clocks, "bot_seats": bot_seats,
        **deadlines.columns(clocks, presence, stand_ins),
    }
    Game.objects.filter(pk=game.pk).update(**columns)
    for name, value in columns.items():
        setattr(game, name, value)
    for seat in wake_bots:
        effects.task_on_commit("games.tasks.play_bot", game.pk, seat, game.last_seq)

    # Time-outs one at a time: each is a decision that may change who is waited on.
    for _ in range(2 * game.players + 2):
        due = sorted(
            (deadlines.at(c["due"]), int(k)) for k, c in game.clocks.items() if deadlines.at(c["due"]) <= now
        )
        if not due:
            break
        seat = due[0][1]
        _time_out(game, seat, game.clocks[str(seat)], now)
        game.refresh_from_db()


def _deliver(game_id):
    try:
        outbox.deliver_outbox(game_id=game_id)
    except Exception:
        # Unsent rows stay in the outbox; the sweep retries them.
        log.exception("could not deliver the emails of game %s", game_id)


def _time_out(game, seat, clock, now):
    """Makes the time-out decision of `seat` through apply_decision, as a `timeout` event.
    When this decision's time-out was already recorded, nothing changes but the clock being
    dropped."""
    key = str(seat)
    idempotency_key = f"timeout-{seat}-{clock['since']}"
    try:
        with transaction.atomic():
            if _decide_for(game, seat, key, idempotency_key, now).replayed:
                raise _AlreadyFired
    except (_AlreadyFired, decisions.IdempotencyConflict, engine.IllegalAction):
        # This decision's time-out was recorded before (the savepoint undid this
        # firing's count); never loop on it: drop the clock.
        log.warning("time-out %s of game %s had already fired", idempotency_key, game.pk)
        clocks = {k: v for k, v in game.clocks.items() if k != key}
        Game.objects.filter(pk=game.pk).update(
            clocks=clocks, **deadlines.columns(clocks, game.presence, game.stand_ins))


class _AlreadyFired(Exception):
    pass


def _decide_for(game, seat, key, idempotency_key, now):
    """The time-out's decision, through the decision door; logged once it commits (inside
    the caller's savepoint: a time-out found already recorded says nothing)."""
    effects.log_on_commit(log, "game %s: seat %s timed out", game.pk, seat,
                          game=game.pk, seat=seat)
    state = store.load_state(game)
    if game.pace == Game.Pace.REALTIME:
        action = state.auto_action(seat)
        count = game.timeouts.get(key, 0) + 1
        timeouts = {**game.timeouts, key: count}
        changes = {"timeouts": timeouts}
        if count >= settings.TIMEOUTS_BEFORE_BOT and key not in game.stand_ins:
            # Handed to a bot before the event is recorded, so that the seat's next
            # decision (a drawn card to play) already goes to the bot.
            changes["stand_ins"] = {**game.stand_ins, key: {"reason": "timeouts", "since": deadlines.iso(now)}}
            changes["bot_seats"] = sorted(set(game.bot_seats) | {seat})
            effects.log_on_commit(log, "game %s: seat %s timed out %s times, a bot plays it "
                                  "to the end", game.pk, seat, count, game=game.pk, seat=seat)
        Game.objects.filter(pk=game.pk).update(**changes)
    elif game.missed_deadline == Game.MissedDeadline.LEAVE:
        action = {"type": "concede"}
    else:
        action = botplay.choose_action(
            state, seat, settings.STAND_IN_BOT_LEVEL, history=lambda: store.all_events(game.pk),
            seed=(game.seed + game.last_seq * 131 + seat) & (2**63 - 1),
        )
    return decisions.apply_decision(
        game.pk, seat, action, GameEvent.Actor.TIMEOUT, idempotency_key=idempotency_key
    )
