"""Celery tasks: thin entry points that call the actions (docs/architecture.md).

The actions send them by name after a commit (games.effects.task_on_commit); each is safe
to run twice or late, and each has a beat sweep that finds its work again if it is lost.
"""

import logging
import time
from datetime import timedelta

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from games import metrics, store
from games.actions import account_events, decisions, outbox, review, timeouts
from games.bots import play as botplay
from games.models import Game, GameEvent
from games.store import seats

log = logging.getLogger(__name__)


@shared_task(bind=True, ignore_result=True, max_retries=5)
def play_bot(self: Task, game_id: int, seat: int, seq: int) -> str:
    """Makes bot `seat`'s decision in the position after event `seq`.

    Safe to run twice or late: the idempotency key is tied to (seat, seq), and
    `expected_seq` drops a move computed for a position that has moved on (the
    event that moved it on scheduled its own bot moves). That is what makes a
    redelivered task harmless: a worker killed after the commit but before the
    broker's ack runs it again, and it finds the position gone (docs/deploy.md).
    """
    game = Game.objects.filter(pk=game_id).select_related("snapshot").first()
    if game is None or game.status != Game.Status.ACTIVE or game.last_seq != seq:
        return "stale"
    # A bot's own level, or the stand-in's for a person's seat (time-outs, away).
    level = seats.bot_level(game, seat)
    if level is None:
        return "not a bot"
    # The bot thinks here, outside the game's lock (the door loads the state again under
    # it): a move that takes a bot a second must not hold up the table's other writers.
    state = store.load_state(game)
    started = time.perf_counter()
    action = botplay.move_for_seat(
        state,
        seat,
        level,
        history=lambda: store.all_events(game_id),
        seed=seats.bot_seed(game, seat, seq),
    )
    # Timed here: the bots are pure and count nothing themselves (games.metrics).
    metrics.bot_decision_seconds.labels(level).observe(time.perf_counter() - started)
    if action is None:
        return "nothing to decide"
    try:
        decisions.apply_decision(
            game_id,
            seat,
            action,
            GameEvent.Actor.BOT,
            idempotency_key=f"bot-{seat}-{seq}",
            expected_seq=seq,
        )
    except decisions.StaleDecision:
        return "stale"
    except decisions.DecisionNotSaved as exc:
        # The database connection was lost mid-move; nothing was stored. Try again soon
        # (and the beat's wake_stalled_bots sweep re-sends it if every retry fails).
        raise self.retry(exc=exc, countdown=1) from exc
    except decisions.IllegalDecision as exc:
        # A bot must only make legal moves; record loudly and let the sweep retry.
        log.error(
            "bot %s at seat %s of game %s chose an illegal move: %s", level, seat, game_id, exc
        )
        return "illegal"
    return "played"


@shared_task(ignore_result=True)
def wake_stalled_bots() -> int:
    """Re-sends bot moves that have waited too long (a lost task, a restarted broker).

    One query finds the games; the conditional update makes a second sweep
    running at the same time skip the game.
    """
    now = timezone.now()
    before = now - timedelta(seconds=settings.BOT_STALL_SECONDS)
    woken = 0
    games: list[int] = []
    stalled = Game.objects.bots_stalled(before).only(
        "pk", "last_seq", "bot_due_at", "waiting_on", "bot_seats"
    )
    for game in stalled:
        if not store.claim_stalled_bots(game, now):
            continue
        # Bot seats and the people's seats a bot stands in for.
        bots = [s for s in seats.waiting(game) if seats.bot_moves(game, s)]
        for seat in bots:
            play_bot.delay(game.pk, seat, game.last_seq)
            woken += 1
        if bots:
            games.append(game.pk)
    if woken:
        # A bot's move was lost on its way (a worker killed, a broker restarted): worth a
        # look. A sweep that finds nothing says nothing.
        log.warning(
            "%s bot moves had waited over %s s and were sent again (games %s)",
            woken,
            settings.BOT_STALL_SECONDS,
            ", ".join(map(str, games)),
            extra={"games": games},
        )
    return woken


@shared_task(ignore_result=True)
def sweep_clocks() -> int:
    """The beat sweep (every CLOCK_SWEEP_SECONDS): every due time-out, reminder and
    ended hold (games.actions.timeouts.sweep), then every email that is due: one that
    waited for its player to be away, for quiet hours or the daily email's hour, and
    one left unsent by a crash or an SMTP error."""
    handled = timeouts.sweep()
    outbox.deliver_outbox()
    return handled


@shared_task(ignore_result=True)
def fire_clock(game_id: int) -> bool:
    """The countdown task of a real-time clock, sent on commit with eta = due."""
    return timeouts.fire(game_id)


@shared_task(ignore_result=True)
def deliver_emails(game_id: int) -> int:
    return outbox.deliver_outbox(game_id=game_id)


@shared_task(ignore_result=True)
def prune_account_events() -> int:
    """The beat's hourly pruning of the bot accounts' events older than
    ACCOUNT_EVENTS_KEEP_DAYS (games.actions.account_events): one indexed delete."""
    return account_events.prune()


# --- Reviews (games.actions.review): sent to their own queue, behind the moves -------------
# (settings.CELERY_REVIEW_QUEUE, named by every send of them).


@shared_task(ignore_result=True)
def review_slice(review_id: int, done: int) -> str:
    """One slice of a review: a few decisions, saved, and the next slice queued. `done`
    is the count it starts from: a slice sent twice finds it moved on and does nothing."""
    return review.run_slice(review_id, done)


@shared_task(ignore_result=True)
def review_rated_game(game_id: int) -> int:
    """Sent on the commit of a rated game's last event: queues each person's review there,
    so that the move that ended the game waits for none of it."""
    return len(review.rated_game_finished(game_id))


@shared_task(ignore_result=True)
def review_sweep() -> int:
    """The beat's re-send of the slices of reviews that stalled (games.actions.review.sweep)."""
    return review.sweep()
