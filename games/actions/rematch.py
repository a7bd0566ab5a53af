"""Play again: a finished game's players offered a new table with the same seats.

The first player to ask opens it: the same options, each bot back in its seat at its
level, the player in their own seat; the other people's seats are held for them
(Seat.held_for, held_until) until they join, decline, or the hold runs out, whichever
comes first: meanwhile nobody else takes such a seat (lobby.services refuses it) and the
lobby counts it as not free. Everyone still on the finished table's page is shown the way
to it (a push of that table), and a later "Play again" from one of them takes their own
held seat at the new table.

Locks, in this order: the finished game's row, then the new table's (the row every seat
change of an open table locks first), then the user's.
"""

from datetime import timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import effects
from games.actions import access, ratings
from games.models import Game, Seat

# The same table: every option the host chose, whether bot accounts may sit down included
# (a bot account of the last game is held a seat like everyone else).
OPTIONS = Game.TABLE_OPTIONS

# How long a seat waits for its person (docs/table.md): a real-time game's players are at
# the table now, or not coming; a turn-by-turn game's come back within one turn's time.
REALTIME_HOLD = timedelta(minutes=10)


class RematchRefused(Exception):
    """`str(exc)` is fit to show; `status` the HTTP answer."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


def hold_time(game: Game) -> timedelta:
    """How long the new table after `game` keeps each person's seat for them."""
    if game.pace == Game.Pace.REALTIME:
        return REALTIME_HOLD
    return timedelta(hours=game.turn_hours)


def _push_finished(old: Game) -> None:
    # The finished table's pages learn of the new one (games.presenters.table: `rematch`,
    # and the seats still held there).
    transaction.on_commit(partial(effects.game_changed, old.pk, old.players, old.last_seq))


def play_again(game_id: int, user: AbstractBaseUser) -> Game:
    """The open table that follows finished game `game_id`, with `user` seated: at the seat
    held for them, else at their old seat number or any other seat that is free and held
    for nobody. Locks the finished game's row, so that two players asking at once open one
    table, then the new table's. Raises RematchRefused."""
    with transaction.atomic():
        old = Game.objects.select_for_update().get(pk=game_id)
        seats = list(old.seats.all())
        mine = next((s.number for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise RematchRefused("Only the players of this game can play it again.")
        if old.status != Game.Status.FINISHED:
            raise RematchRefused("This game is not over yet.", status=409)
        # Re-checked once the lock is granted: a host may have closed it meanwhile.
        new = old.rematches.select_for_update().filter(status=Game.Status.OPEN).first()
        user = get_user_model().objects.select_for_update().get(pk=user.pk)
        if old.rated and not ratings.may_sit_rated(user):
            raise RematchRefused(ratings.NEEDS_CONFIRMED_EMAIL)
        now = timezone.now()
        if new is None:
            new = Game.objects.create(
                host=user, rematch_of=old, **{name: getattr(old, name) for name in OPTIONS}
            )
            until = now + hold_time(old)
            Seat.objects.bulk_create(
                [
                    Seat(
                        game=new,
                        number=s.number,
                        user=user if s.number == mine else None,
                        bot_level=s.bot_level if s.is_bot else "",
                        held_for_id=s.user_id if s.user_id and s.number != mine else None,
                        held_until=until if s.user_id and s.number != mine else None,
                    )
                    for s in seats
                ]
            )
            access.seats_changed(new.pk, [mine])
            _push_finished(old)
            return new
        taken = list(new.seats.all())
        if any(s.user_id == user.pk for s in taken):
            return new
        seat = (
            next((s for s in taken if s.is_empty and s.held_for_id == user.pk), None)
            or next((s for s in taken if s.number == mine and s.is_free(now)), None)
            or next((s for s in taken if s.is_free(now)), None)
        )
        if seat is None:
            if any(s.waits_for(now) for s in taken):
                raise RematchRefused(
                    "The new table's free seats are held for the last game's other players.",
                    status=409,
                )
            raise RematchRefused("The new table is full.", status=409)
        seat.user, seat.held_for, seat.held_until = user, None, None
        seat.save(update_fields=["user", "held_for", "held_until"])
        access.seats_changed(new.pk, [seat.number])
        _push_finished(old)
        return new


def decline(game_id: int, user: AbstractBaseUser) -> Seat:
    """`user` gives up the seat held for them at open table `game_id` (a Play again
    table): it is free for anyone at once. Locks the table's row. Raises RematchRefused
    when no seat there is held for them (never held, taken, declined already)."""
    with transaction.atomic():
        new = Game.objects.select_for_update().filter(pk=game_id).first()
        if new is None or new.status != Game.Status.OPEN:
            raise RematchRefused("This table is not waiting for players.", status=409)
        seat = new.seats.held().filter(held_for=user).first()
        if seat is None:
            raise RematchRefused("No seat of this table is held for you.", status=409)
        seat.held_for, seat.held_until = None, None
        seat.save(update_fields=["held_for", "held_until"])
        if new.rematch_of_id is not None:
            old = Game.objects.filter(pk=new.rematch_of_id).first()
            if old is not None:
                _push_finished(old)
    return seat
