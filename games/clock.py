"""Move timers, turn deadlines, reminders and stand-in bots (docs/clocks.md).

Two entry points:

- `plan(...)`, called by `services._record` inside the decision's transaction,
  works out the clock of every person who must decide after the new event and
  queues what must follow the commit (the game's real-time countdown task when
  it has none due in time, the "your turn" email row).
- `sweep(now)` / `fire(game_id, now)`, run by Celery (beat every second, and one
  countdown task per real-time game, re-armed by each firing), act on whatever is due: a
  two-minute hold that ended, a half-time reminder, a clock that ran out.
  Every game is handled under its row lock, taken with skip_locked, and every
  action is keyed on the clock's `since` (the event number that started the
  decision), so a second or late firing finds nothing left to do.
"""

import logging
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine
from games.models import EmailOutbox, Game, GameEvent

log = logging.getLogger(__name__)


def _iso(moment):
    return moment.isoformat()


def _at(text):
    return datetime.fromisoformat(text) if text else None


def new_clock(game, since, kind, now):
    """A fresh clock for a decision that became a person's after event `since`."""
    window = game.decision_window()
    clock = {"since": since, "kind": kind, "started": _iso(now), "due": _iso(now + window),
             "remind_at": None, "reminded": False}
    if game.pace == Game.Pace.TURN_BASED:
        clock["remind_at"] = _iso(now + window / 2)
    return clock


def earliest_due(clocks):
    dues = [_at(c["due"]) for c in clocks.values()]
    return min(dues) if dues else None


def next_wake(clocks, presence, stand_ins):
    """The earliest moment the sweep has something to do, or None."""
    moments = []
    for clock in clocks.values():
        moments.append(_at(clock["due"]))
        if clock.get("remind_at") and not clock.get("reminded"):
            moments.append(_at(clock["remind_at"]))
    for key, entry in presence.items():
        if entry.get("hold_until") and key not in stand_ins:
            moments.append(_at(entry["hold_until"]))
    return min(moments) if moments else None


def time_left(game, seat, now=None):
    """How long `seat` has left to decide, or None when it has no clock running."""
    clock = (game.clocks or {}).get(str(seat))
    if clock is None:
        return None
    return max(_at(clock["due"]) - (now or timezone.now()), timedelta(0))


def plan(game, public, pending, bot_seats, acted_seat, seq, now):
    """The clock columns after event `seq`; queues the after-commit work they need.

    Must run inside the transaction that locked `game` (services._record). A
    person still deciding the same kind of decision as before keeps their
    clock (a simultaneous pass: others' picks do not restart it); the seat that
    just acted, and anyone newly waited on, gets a new one.
    """
    kind = public.get("decision")
    old = game.clocks or {}
    clocks = {}
    started = []
    for seat in pending:
        if seat in bot_seats:
            continue
        key = str(seat)
        previous = old.get(key)
        if previous is not None and seat != acted_seat and previous.get("kind") == kind:
            clocks[key] = previous
        else:
            clocks[key] = new_clock(game, seq, kind, now)
            started.append(seat)
    countdown = {}
    if started:
        if game.pace == Game.Pace.REALTIME:
            countdown = countdown_columns(game, _at(clocks[str(started[0])]["due"]), now)
        else:
            EmailOutbox.objects.bulk_create(
                [EmailOutbox(game_id=game.pk, seat=s, seq=seq, kind=EmailOutbox.Kind.TURN,
                             created_at=now) for s in started],
                ignore_conflicts=True,
            )
            from games.tasks import deliver_emails

            deliver_emails.delay_on_commit(game.pk)
    return {
        "clocks": clocks,
        "deadline_at": earliest_due(clocks),
        "wake_at": next_wake(clocks, game.presence or {}, game.stand_ins or {}),
        **countdown,
    }


def countdown_columns(game, due, now):
    """One real-time countdown task per game at a time, not one per move.

    A clock due at `due` needs a task that fires by then. If the game's pending task
    (`countdown_at`) fires after now and no later than `due`, it will do: when it fires it
    handles what is due and sends the next one for the earliest clock left (`fire`). Else a
    task is sent for `due` on commit. Returns the game's columns to save ({} or the new
    countdown_at). Before, every real-time move sent a task: at 100 busy tables 1,400 waited
    in the worker, which spent a fifth of a core holding them (docs/load.md)."""
    pending = game.countdown_at
    if pending is not None and now < pending <= due:
        return {}
    _schedule_countdown(game.pk, due)
    return {"countdown_at": due}


def _schedule_countdown(game_id, due):
    """A real-time time-out fires on time: a task due exactly then (seconds away, so
    well inside the broker's visibility timeout). The 1 s sweep is the safety net."""
    from games.tasks import fire_clock

    transaction.on_commit(partial(_send_countdown, fire_clock, game_id, due))


def _send_countdown(task, game_id, due):
    try:
        task.apply_async((game_id,), eta=due, expires=due + timedelta(minutes=5))
    except Exception:
        # The sweep finds the deadline anyway.
        log.exception("could not schedule the countdown of game %s", game_id)


# --- acting on what is due -------------------------------------------------------------

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
    due = earliest_due(game.clocks or {})
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
        hold_until = _at(entry.get("hold_until"))
        if hold_until and hold_until <= now and key not in stand_ins:
            seat = int(key)
            stand_ins[key] = {"reason": "away", "since": _iso(now)}
            if seat not in bot_seats:
                bot_seats.append(seat)
            if clocks.pop(key, None) is not None or seat in game.waiting_on:
                wake_bots.append(seat)
    reminders = []
    for key, clock in clocks.items():
        remind_at = _at(clock.get("remind_at"))
        if remind_at and remind_at <= now and not clock.get("reminded"):
            clock["reminded"] = True
            reminders.append(EmailOutbox(game_id=game.pk, seat=int(key), seq=clock["since"],
                                         kind=EmailOutbox.Kind.REMINDER, created_at=now))
    if reminders:
        # The unique key (game, seq, seat, kind) makes a second sweep's row a no-op
        # even if it somehow got past the lock and the `reminded` flag.
        EmailOutbox.objects.bulk_create(reminders, ignore_conflicts=True)
        transaction.on_commit(partial(_deliver, game.pk))
    columns = {
        "presence": presence, "stand_ins": stand_ins, "clocks": clocks, "bot_seats": bot_seats,
        "deadline_at": earliest_due(clocks), "wake_at": next_wake(clocks, presence, stand_ins),
    }
    Game.objects.filter(pk=game.pk).update(**columns)
    for name, value in columns.items():
        setattr(game, name, value)
    if wake_bots:
        from games.tasks import play_bot

        for seat in wake_bots:
            play_bot.delay_on_commit(game.pk, seat, game.last_seq)

    # Time-outs one at a time: each is a decision that may change who is waited on.
    for _ in range(2 * game.players + 2):
        due = sorted(
            (_at(c["due"]), int(k)) for k, c in game.clocks.items() if _at(c["due"]) <= now
        )
        if not due:
            break
        seat = due[0][1]
        _time_out(game, seat, game.clocks[str(seat)], now)
        game.refresh_from_db()


def _deliver(game_id):
    from games.emails import deliver_outbox

    try:
        deliver_outbox(game_id=game_id)
    except Exception:
        # Unsent rows stay in the outbox; the sweep retries them.
        log.exception("could not deliver the emails of game %s", game_id)


def _time_out(game, seat, clock, now):
    """Makes the time-out decision of `seat` through apply_decision, as a `timeout` event.

    Returns the DecisionResult, or None when this decision's time-out was already
    recorded (then nothing changes but the clock being dropped).
    """
    from games import services

    key = str(seat)
    idempotency_key = f"timeout-{seat}-{clock['since']}"
    try:
        with transaction.atomic():
            result = _decide_for(game, seat, key, idempotency_key, now)
            if result.replayed:
                raise _AlreadyFired
        return result
    except (_AlreadyFired, services.IdempotencyConflict, engine.IllegalAction):
        # This decision's time-out was recorded before (the savepoint undid this
        # firing's count); never loop on it: drop the clock.
        log.warning("time-out %s of game %s had already fired", idempotency_key, game.pk)
        clocks = {k: v for k, v in game.clocks.items() if k != key}
        Game.objects.filter(pk=game.pk).update(
            clocks=clocks, deadline_at=earliest_due(clocks),
            wake_at=next_wake(clocks, game.presence or {}, game.stand_ins or {}))
        return None


class _AlreadyFired(Exception):
    pass


def _decide_for(game, seat, key, idempotency_key, now):
    from games import botplay, services
    from games.tasks import _all_events

    state = services.load_state(game)
    if game.pace == Game.Pace.REALTIME:
        action = state.auto_action(seat)
        count = game.timeouts.get(key, 0) + 1
        timeouts = {**game.timeouts, key: count}
        changes = {"timeouts": timeouts}
        if count >= settings.TIMEOUTS_BEFORE_BOT and key not in game.stand_ins:
            # Handed to a bot before the event is recorded, so that the seat's next
            # decision (a drawn card to play) already goes to the bot.
            changes["stand_ins"] = {**game.stand_ins, key: {"reason": "timeouts", "since": _iso(now)}}
            changes["bot_seats"] = sorted(set(game.bot_seats) | {seat})
        Game.objects.filter(pk=game.pk).update(**changes)
    elif game.missed_deadline == Game.MissedDeadline.LEAVE:
        action = {"type": "concede"}
    else:
        action = botplay.choose_action(
            state, seat, settings.STAND_IN_BOT_LEVEL, history=lambda: _all_events(game.pk),
            seed=(game.seed + game.last_seq * 131 + seat) & (2**63 - 1),
        )
    return services.apply_decision(
        game.pk, seat, action, GameEvent.Actor.TIMEOUT, idempotency_key=idempotency_key
    )
