"""Who may read a seat and who may act for it: the one rule every way into a seat uses.

A seat is reached four ways: the table page and its form (a person's session), the table
socket (the same session), the Bot API's HTTP routes and its stream (a bot token). Each
of them authenticates in its own way and then asks here, so that they cannot drift apart:

- `person_at(user, game_id)` and `program_at(user, game_id)` build a `Reader`, "this
  reader at this table", from the rows as they are now, or None when the reader may not
  be there at all.
- `Reader.may_read` and `Reader.may_act` say what the reader may do there: the states each
  way accepts are the table below, here and nowhere else. How a decision the reader sends is
  parsed, submitted and answered is games.actions.seat_door's; the write door
  (games.actions.decisions) checks the seat's holder and the game's state again under the
  game's lock, so a decision is judged by who holds the seat when it is applied.
- `seat_with_game(user_id, game_id, seat)` reads again, at the moment a
  seat's state is read, whether the reader still holds the seat: a socket or stream that
  was let in earlier never reads a seat that has since changed hands.
- `seats_changed(game_id, numbers)`: a lobby seat change tells the sockets and streams of
  those seats to check again (they close with their "seat lost" code).

Which game states each way accepts (docs/security.md, "One rule for a seat"):

| reader | open table | being played | finished or aborted |
|---|---|---|---|
| the seat's holder, person or program | reads (nothing is dealt: no view) | reads, acts | reads |
| a spectator (public table allowing them) | nothing to watch | reads the public view | reads it |

The table page of an open table is its lobby page (games.views.table redirects there); its
socket and the Bot API accept an open table, and their first state comes with the deal.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Final, Literal

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from games import effects
from games.models import Game, Seat

PERSON: Final = "person"  # a logged-in person: the table page, its form and its socket
PROGRAM: Final = "program"  # a bot account's program: the Bot API and its stream
SPECTATOR: Final = "spectator"  # a person watching a public table: no seat, the public view
# What a Reader is: one of the three above.
Kind = Literal["person", "program", "spectator"]


@dataclass(frozen=True)
class Reader:
    """This reader at this table, as the rows stood when it was built."""

    game: Game
    user: AbstractBaseUser
    seat: int | None  # None: a spectator
    kind: Kind

    @property
    def user_id(self) -> int:
        return int(self.user.pk)

    @property
    def may_read(self) -> bool:
        """The seat's holder reads at every state of the game (an open table has no view
        yet); a spectator from the deal on."""
        return self.seat is not None or self.game.status != Game.Status.OPEN

    @property
    def may_act(self) -> bool:
        """Decisions may be sent: by a seat's holder, never a spectator. Whether the game
        takes them now is the write door's to say, under the game's lock, from the game's
        row as it is then: a socket's reader was built when it connected."""
        return self.seat is not None and self.kind != SPECTATOR


def _seat_number(user_id: int, game_id: int) -> int | None:
    return (
        Seat.objects.filter(game_id=game_id, user_id=user_id)
        .values_list("number", flat=True)
        .first()
    )


def person_at(
    user: AbstractBaseUser | AnonymousUser, game_id: int, game: Game | None = None
) -> Reader | None:
    """A logged-in person at `game_id`: the holder of a seat there, or a spectator at a
    dealt public table that allows them; None for anyone else (or no such game). `game`,
    when the caller has read the row already, saves reading it again."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return None
    game = game or Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    number = _seat_number(user.pk, game.pk)
    if number is not None:
        return Reader(game, user, number, PERSON)
    watcher = Reader(game, user, None, SPECTATOR)
    if game.spectators and not game.private and watcher.may_read:
        return watcher
    return None


def program_at(user: AbstractBaseUser, game_id: int, with_snapshot: bool = False) -> Reader | None:
    """A bot account's program at `game_id`: only the holder of a seat there (a program
    never watches), whatever the game's state; None otherwise. The seat and the game (with
    its snapshot, if asked) are read in one statement."""
    related = ("game", "game__snapshot") if with_snapshot else ("game",)
    seat = Seat.objects.select_related(*related).filter(game_id=game_id, user_id=user.pk).first()
    if seat is None:
        return None
    return Reader(seat.game, user, seat.number, PROGRAM)


def seat_with_game(user_id: int, game_id: int, seat: int) -> Game | None:
    """The game row with its snapshot, read in the same statement as the check that
    `user_id` still holds `seat`, so that the state read is one the holder may see; None
    when the seat is no longer theirs."""
    found = (
        Seat.objects.select_related("game", "game__snapshot")
        .filter(game_id=game_id, number=seat, user_id=user_id)
        .first()
    )
    return found.game if found is not None else None


def seats_changed(game_id: int, numbers: Iterable[int]) -> None:
    """A lobby seat change (taken, moved, left, a removal by the host): once the change
    commits, every socket and bot stream listening at these seats checks again whether its
    reader still holds the seat, and closes if not. Call it inside the transaction."""
    changed = sorted(set(numbers))
    if changed:
        transaction.on_commit(partial(effects.seats_changed, game_id, changed))
