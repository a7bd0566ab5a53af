"""Playing a seat: the bot's seats, what a seat sees, and its decisions."""

from django.db import transaction
from ninja import Router
from ninja.errors import HttpError

from games.actions import decisions, seat_door
from games.api.common import GameId, reader_of
from games.api.schemas import REFUSALS, DecisionIn, DecisionOut, Error, GameOut, SeatOut
from games.models import Game, Seat
from games.presenters import bot_view
from games.store import seats as seat_state  # `seats` is a route here

router = Router()


@router.get("/seats", response={200: list[SeatOut], **REFUSALS})
def seats(request):
    """This bot's seats at open and running tables, newest table first."""
    rows = (
        Seat.objects.filter(
            user=request.auth, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE]
        )
        .select_related("game")
        .order_by("-game_id")
    )
    return [
        {
            "game": s.game_id,
            "seat": s.number,
            "status": s.game.status,
            "your_turn": seat_state.waited_on(s.game, s.number),
            "last_seq": s.game.last_seq,
        }
        for s in rows
    ]


@router.get("/games/{game_id}", response={200: GameOut, **REFUSALS, 404: Error})
def game(request, game_id: int = GameId):
    """What this bot's seat sees: the engine's view(seat) and legal actions, and the
    game's last event number (`seq`), to pass back with a decision if wanted."""
    # One snapshot of the game for the view and its seq, so that they agree.
    # The same answer as the stream's state message (games.presenters.bot_view).
    with transaction.atomic():
        reader = reader_of(request.auth, game_id, with_snapshot=True)
        return bot_view.seat_state(reader.game, reader.seat)


@router.post(
    "/games/{game_id}/decisions",
    response={200: DecisionOut, **REFUSALS, 403: Error, 404: Error, 409: Error, 503: Error},
)
def decide(request, body: DecisionIn, game_id: int = GameId):
    """One decision of this bot's seat, through the seat door (games.actions.seat_door), as
    a click's (so the same clocks)."""
    reader = reader_of(request.auth, game_id)
    try:
        # The write door checks again, under the game's lock, that the seat is still this bot's.
        result = seat_door.decide(reader, body.action, body.key, expected_seq=body.seq)
    except decisions.DecisionRefused as exc:
        raise HttpError(seat_door.refusal(exc).status, str(exc)) from None
    return {"seq": result.event.seq, "replayed": result.replayed}
