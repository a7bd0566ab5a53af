"""Play again: a finished game's players offered a new table with the same seats.

The first player to ask opens it: the same options, each bot back in its seat at its
level, the player in their own seat; the other people's seats wait for them. Everyone
still on the finished table's page is shown the way to it (a push of that table), and a
later "Play again" from one of them takes their old seat at the new table.
"""

from functools import partial

from django.db import transaction

from games import effects
from games.models import Game, Seat

OPTIONS = ("players", "pace", "move_seconds", "turn_hours", "missed_deadline", "stacking",
           "final_card_penalty", "target_score", "spectators", "private", "rated")


class RematchRefused(Exception):
    """`str(exc)` is fit to show; `status` the HTTP answer."""

    def __init__(self, message, status=403):
        super().__init__(message)
        self.status = status


def play_again(game_id, user):
    """The open table that follows finished game `game_id`, with `user` seated at their
    old seat number (or, if someone took it, any free seat). Locks the finished game's row,
    so that two players asking at once open one table. Raises RematchRefused."""
    with transaction.atomic():
        old = Game.objects.select_for_update().get(pk=game_id)
        seats = list(old.seats.all())
        mine = next((s.number for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise RematchRefused("Only the players of this game can play it again.")
        if old.status != Game.Status.FINISHED:
            raise RematchRefused("This game is not over yet.", status=409)
        new = old.rematches.filter(status=Game.Status.OPEN).first()
        if new is None:
            new = Game.objects.create(host=user, rematch_of=old,
                                      **{name: getattr(old, name) for name in OPTIONS})
            Seat.objects.bulk_create([
                Seat(game=new, number=s.number, user=user if s.number == mine else None,
                     bot_level=s.bot_level if s.is_bot else "")
                for s in seats])
            # The finished table's pages learn of it (games.presenters.table: `rematch`).
            transaction.on_commit(partial(effects.game_changed, old.pk, old.players,
                                          old.last_seq))
            return new
        if new.seats.filter(user=user).exists():
            return new
        free = (new.seats.select_for_update().filter(user__isnull=True, bot_level="")
                .order_by("number"))
        seat = free.filter(number=mine).first() or free.first()
        if seat is None:
            raise RematchRefused("The new table is full.", status=409)
        seat.user = user
        seat.save(update_fields=["user"])
        return new
