"""A finished game's reviews (docs/review.md): who may ask for one and who may read it, and
the slices of the task that works one out.

- `request_review(game, user)`: a player asks for the review of their own seat; refused
  (`ReviewRefused`, its message safe to show) before the game is over, for a reader without
  a seat and for a bot account. Asking again finds the same row (unique per game and
  seat): two requests at once make one row and send one task. A failed review asked
  again starts over from what it had computed.
- `rated_game_finished(game_id)`: the end of a rated game queues a review of each person's
  seat (games.tasks.review_rated_game, sent on the commit of the game's last event).
- `run_slice(review_id, done)`: one slice of the task: a few decisions (about
  REVIEW_SLICE_MS of work), saved with the row locked, then the next slice queued on
  commit. A slice carries the count of decisions it starts from: one that runs twice
  (a redelivered message, the sweep's re-send) finds the count moved on and writes nothing.
- `visible_reviews(game, user)` and `box(game, user)`: what the replay shows a reader.

Nothing here computes, stores or sends anything about a game that is not finished: the
review's estimates would tell a running game's players what the hidden hands hold.
"""

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils import timezone

from games import effects, push
from games.bots import review as core
from games.bots.search import Budget
from games.models import Game, GameEvent, GameReview, RatingChange, Seat
from games.presenters import replay

log = logging.getLogger(__name__)

SLICE_TASK = "games.tasks.review_slice"
UNFINISHED = (GameReview.Status.PENDING, GameReview.Status.RUNNING)


class ReviewRefused(ValueError):
    """A review that may not be asked for or changed; the message says why, in words a
    reader may see (it names nothing of the game's cards)."""


def _seat_of(game: Game, user: AbstractBaseUser | AnonymousUser) -> int | None:
    if not user.is_authenticated:
        return None
    return (
        Seat.objects.filter(game_id=game.pk, user_id=user.pk)
        .values_list("number", flat=True)
        .first()
    )


def _own_seat(game: Game, user: AbstractBaseUser | AnonymousUser, seat: int | None) -> int:
    """The reader's own seat, the one seat they may ask for or share; ReviewRefused
    otherwise. The game's state is checked first, and its refusal says nothing of
    reviews: a running game's pages carry no word of them."""
    if game.status != Game.Status.FINISHED:
        raise ReviewRefused("This game is not over.")
    if getattr(user, "is_bot", False):
        raise ReviewRefused("A bot account's games are not reviewed.")
    own = _seat_of(game, user)
    if own is None:
        raise ReviewRefused("Only a player of this game can ask for a review of their seat.")
    if seat is not None and seat != own:
        raise ReviewRefused("You can ask for the review of your own seat only.")
    return own


def request_review(
    game: Game, user: AbstractBaseUser | AnonymousUser, seat: int | None = None
) -> GameReview:
    """The review of `user`'s seat at `game` (`seat`, when given, must be it), queued if it
    was not; ReviewRefused when they may not ask. A failed review, or one made by an older
    version of the core, is queued again."""
    own = _own_seat(game, user, seat)
    return _queue(game, own, user)


def _queue(game: Game, seat: int, user: AbstractBaseUser | AnonymousUser | None) -> GameReview:
    with transaction.atomic():
        # Two requests at once: one insert wins, the other waits on the unique index and
        # then finds the winner's row (get_or_create's own retry): one row, one task.
        review, created = GameReview.objects.get_or_create(
            game=game,
            seat=seat,
            defaults={"requested_by": user if user is not None and user.is_authenticated else None},
        )
        if created:
            _send_slice(review)
            return review
        review = GameReview.objects.select_for_update().get(pk=review.pk)
        stale = review.status == GameReview.Status.DONE and review.version != core.REVIEW_VERSION
        if review.status == GameReview.Status.FAILED or stale:
            # Asked again after a crash: what was computed is kept (each decision is the same
            # whenever it is computed), unless an older core computed it.
            kept = review.data.get("decisions", []) if review.version == core.REVIEW_VERSION else []
            review.status = GameReview.Status.PENDING
            review.data = {"decisions": kept}
            review.done = len(kept)
            review.version = core.REVIEW_VERSION
            review.save()
            _send_slice(review)
        return review


def _send_slice(review: GameReview) -> None:
    effects.task_on_commit(SLICE_TASK, review.pk, review.done, queue=settings.CELERY_REVIEW_QUEUE)


def rated_game_finished(game_id: int) -> list[GameReview]:
    """Queues the review of each person's seat of a finished rated game (a game whose end
    moved their ratings: games.actions.ratings), once: a second call finds the rows."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None or not game.rated:
        return []
    seats = (
        RatingChange.objects.filter(game_id=game_id, user__is_bot=False)
        .order_by("seat")
        .values_list("seat", flat=True)
    )
    return [_queue(game, seat, None) for seat in seats]


# --- The task's slices ------------------------------------------------------------------


def budget() -> Budget | None:
    """The core's budget for a decision: its own per table size, unless REVIEW_ROLLOUTS
    sets a fixed number of samples (the tests' tiny reviews)."""
    rollouts = settings.REVIEW_ROLLOUTS
    return Budget(rollouts=rollouts) if rollouts else None


def rows_of(game_id: int) -> list[core.Row]:
    return [
        core.Row(seq=seq, seat=seat, action=action, events=events)
        for seq, seat, action, events in GameEvent.objects.filter(game_id=game_id)
        .order_by("seq")
        .values_list("seq", "seat", "action", "events")
    ]


def run_slice(review_id: int, done: int) -> str:
    """One slice of review `review_id`, which has `done` decisions computed: a few more,
    saved, and the next slice queued. Returns what it did ("stale" when the row has moved
    on from `done` or is no longer being worked on: a slice that ran twice)."""
    review = GameReview.objects.select_related("game").filter(pk=review_id).first()
    if review is None or review.status not in UNFINISHED or review.done != done:
        return "stale"
    game = review.game
    if game.status != Game.Status.FINISHED:
        # Never computed for a game that is not over (a row made by hand, a game voided).
        return _fail(review_id, done, game, "the game is not finished")
    try:
        kept, computed, total = _compute(game, review)
    except Exception:
        log.exception("review %s of game %s failed", review_id, game.pk, extra={"game": game.pk})
        return _fail(review_id, done, game, "it raised")
    return _save(review_id, done, game, kept + computed, total)


def _compute(
    game: Game, review: GameReview
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """(decisions kept from earlier slices, decisions computed now, decisions in all): the
    next decisions in the game's order until REVIEW_SLICE_MS have passed (at least
    one), each on its own so that the slice can stop between any two."""
    options, rows, seat = game.engine_options(), rows_of(game.pk), review.seat
    seqs = core.reviewable(options, game.seed, rows, seat)
    wanted = set(seqs)
    # What an older core computed is not mixed into this one's review.
    earlier = review.data.get("decisions", []) if review.version == core.REVIEW_VERSION else []
    kept = [d for d in earlier if d["seq"] in wanted]
    have = {d["seq"] for d in kept}
    computed: list[dict[str, Any]] = []
    started = time.monotonic()
    for seq in (s for s in seqs if s not in have):
        computed += core.review_decisions(options, game.seed, rows, seat, [seq], budget=budget())
        if (time.monotonic() - started) * 1000 >= settings.REVIEW_SLICE_MS:
            break
    return kept, computed, len(seqs)


def _save(
    review_id: int, done: int, game: Game, decisions: list[dict[str, Any]], total: int
) -> str:
    with transaction.atomic():
        review = GameReview.objects.select_for_update().get(pk=review_id)
        if review.status not in UNFINISHED or review.done != done:
            return "stale"
        review.done, review.total, review.version = len(decisions), total, core.REVIEW_VERSION
        if review.done >= total:
            review.status = GameReview.Status.DONE
            review.data = core.assemble(game.players, review.seat, decisions)
        else:
            review.status = GameReview.Status.RUNNING
            review.data = {"decisions": sorted(decisions, key=lambda d: d["seq"])}
            _send_slice(review)
        review.save()
        _progress_on_commit(game, review)
    return str(review.status)


def _fail(review_id: int, done: int, game: Game, why: str) -> str:
    with transaction.atomic():
        review = GameReview.objects.select_for_update().get(pk=review_id)
        if review.status not in UNFINISHED or review.done != done:
            return "stale"
        review.status = GameReview.Status.FAILED
        review.save(update_fields=["status", "updated_at"])
        log.warning("review %s failed: %s", review_id, why)
        _progress_on_commit(game, review)
    return "failed"


def sweep(now: Any = None) -> int:
    """Sends again the next slice of every unfinished review that has not moved for
    REVIEW_STALL_SECONDS (its message lost with a broker's restart). The conditional
    update moves the row, so that one stall is re-sent once, and a sweep running at the
    same time skips it; the slice's own check drops a duplicate."""
    now = now or timezone.now()
    before = now - timedelta(seconds=settings.REVIEW_STALL_SECONDS)
    sent = 0
    stalled = GameReview.objects.filter(status__in=UNFINISHED, updated_at__lt=before)
    for review_id, done, updated in stalled.values_list("pk", "done", "updated_at"):
        if GameReview.objects.filter(pk=review_id, updated_at=updated).update(updated_at=now):
            with transaction.atomic():
                effects.task_on_commit(
                    SLICE_TASK, review_id, done, queue=settings.CELERY_REVIEW_QUEUE
                )
            sent += 1
    return sent


# --- Progress ----------------------------------------------------------------------------


def progress_message(game_id: int, review: GameReview) -> dict[str, Any]:
    """The site socket's `review.progress` (games.consumers.SiteConsumer): counts and a
    status, never an estimate or a mark."""
    return {
        "type": "review.progress",
        "game": game_id,
        "seat": review.seat,
        "done": review.done,
        "total": review.total,
        "status": str(review.status),
    }


def _progress_on_commit(game: Game, review: GameReview) -> None:
    """Tells the seat's player's site sockets how far the review is, once the slice is
    committed: only theirs (their `waiting-<id>` group, which only the site socket joins),
    and only for a finished game."""
    holder = Seat.objects.filter(game_id=game.pk, number=review.seat).values_list(
        "user_id", flat=True
    )
    user_id = holder.first()
    if user_id is None or game.status != Game.Status.FINISHED:
        return
    transaction.on_commit(partial(_send_progress, user_id, progress_message(game.pk, review)))


def _send_progress(user_id: int, message: dict[str, Any]) -> None:
    try:
        push.send(push.waiting_group(user_id), message)
    except Exception:
        # The row holds the progress; the box's poll reads it from there.
        log.exception("could not tell user %s of a review's progress", user_id)


# --- Who sees what -----------------------------------------------------------------------


def visible_reviews(game: Game, user: AbstractBaseUser | AnonymousUser) -> dict[int, GameReview]:
    """{seat: review} of `game` that `user` may read: their own seat's whatever its status
    (the box shows its progress), another seat's once done, and only when the game is
    public or that seat's player shared it, to a reader who may watch the finished replay.
    Nothing for a game that is not finished. `data` is the whole review only when the
    status is done."""
    if game.status != Game.Status.FINISHED or not user.is_authenticated:
        return {}
    own = _seat_of(game, user)
    watches = replay.may_watch(game, user, own)  # type: ignore[arg-type]
    shown = {}
    for review in GameReview.objects.filter(game_id=game.pk).order_by("seat"):
        if review.seat == own:
            shown[review.seat] = review
        elif (
            watches
            and review.status == GameReview.Status.DONE
            and (review.shared or not game.private)
        ):
            shown[review.seat] = review
    return shown


@dataclass(frozen=True)
class Box:
    """What the replay's review box (templates/replay/review_status.html) shows the
    reader about their own seat's review."""

    game_id: int
    seat: int
    status: str  # "" when nothing was asked yet
    done: int
    total: int
    shared: bool
    public: bool  # the game is public: its reviews are readable without sharing

    @property
    def running(self) -> bool:
        return self.status in UNFINISHED

    @property
    def may_ask(self) -> bool:
        return self.status in ("", GameReview.Status.FAILED)

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def box(game: Game, user: AbstractBaseUser | AnonymousUser) -> Box | None:
    """The review box for `user` at `game`: None unless the game is finished and the
    reader is a person with a seat there."""
    try:
        seat = _own_seat(game, user, None)
    except ReviewRefused:
        return None
    review = GameReview.objects.filter(game_id=game.pk, seat=seat).first()
    if review is None:
        return Box(game.pk, seat, "", 0, 0, False, not game.private)
    return Box(
        game.pk,
        seat,
        str(review.status),
        review.done,
        review.total,
        review.shared,
        not game.private,
    )


def share(game: Game, user: AbstractBaseUser | AnonymousUser, shared: bool) -> GameReview:
    """Sets whether the reader's own seat's review is shared (a value, not a toggle: a
    request sent twice leaves what it asked for). ReviewRefused for anyone else's seat or
    when there is no review to share."""
    seat = _own_seat(game, user, None)
    with transaction.atomic():
        review = GameReview.objects.select_for_update().filter(game_id=game.pk, seat=seat).first()
        if review is None:
            raise ReviewRefused("Ask for the review of your seat first.")
        if review.shared != shared:
            review.shared = shared
            review.save(update_fields=["shared", "updated_at"])
    return review
