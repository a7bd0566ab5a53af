"""What the Bot API's route modules share: the game id in a path, a seat's summary, and
the reader of a bot's seat."""

from django.http import Http404
from ninja import Path

from games.actions import access
from games.api.schemas import MAX_ID
from games.models import Game
from games.store import seats as seat_state

GameId = Path(..., ge=1, le=MAX_ID, description="The game's (table's) id.")
NO_SEAT = "You hold no seat at such a game."


def seat_out(seat):
    game = Game.objects.get(pk=seat.game_id)
    return {
        "game": game.pk,
        "seat": seat.number,
        "status": game.status,
        "your_turn": seat_state.waited_on(game, seat.number),
        "last_seq": game.last_seq,
    }


def reader_of(user, game_id, with_snapshot=False):
    """The bot's reader at the game (games.actions.access's rule for a program): its seat
    and the game read in one statement, so that what is read is what the seat's holder
    may see."""
    reader = access.program_at(user, game_id, with_snapshot=with_snapshot)
    if reader is None:
        raise Http404(NO_SEAT)
    return reader
