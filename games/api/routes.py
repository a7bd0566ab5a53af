"""The Bot API's routes (docs/bot-api.md). Thin, like the views: seats and invitations go
through lobby.services, decisions through games.actions.decisions.apply_decision, and what
a seat is shown is the engine's `view(seat)` and `legal_actions(seat)`, nothing more.

A game this bot account holds no seat at is answered 404 whatever the reason (another
bot's seat, a person's, no such game), so that ids tell nothing.
"""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.http import Http404
from ninja import Field, Path, Router, Schema
from ninja.errors import HttpError

from games.actions import access, decisions, moves, seat_door
from games.models import Game, Seat
from games.presenters import bot_view
from games.store import seats as seat_state  # `seats` is a route here
from lobby import services as lobby

router = Router()

# Ids are PostgreSQL integers: anything larger names nothing.
MAX_ID = 2**31 - 1
GameId = Path(..., ge=1, le=MAX_ID, description="The game's (table's) id.")
NO_SEAT = "You hold no seat at such a game."


class Error(Schema):
    detail: str


class Account(Schema):
    username: str
    name: str
    is_bot: bool


class Invitation(Schema):
    id: int
    game: int
    seat: int
    host: str
    players: int
    pace: str
    move_seconds: int | None = None
    created_at: datetime


class SeatOut(Schema):
    game: int
    seat: int
    status: str
    your_turn: bool
    last_seq: int


class OpenTable(Schema):
    game: int
    players: int
    pace: str
    free_seats: int


class JoinIn(Schema):
    seat: int | None = Field(
        None, ge=0, le=15, description="A seat number; none: the first free seat."
    )


class GameOut(Schema):
    game: int
    seat: int
    seq: int
    status: str
    view: dict[str, Any] | None = Field(
        None, description="Exactly the engine's view(seat) (None before the deal)."
    )
    legal: list[dict[str, Any]] = Field(
        description="The seat's legal actions now (never `concede`, always allowed while "
        "playing; a `give` is asked by view.must_give instead)."
    )
    deadline_at: datetime | None = None
    your_turn: bool = Field(
        description="The seat has a decision to make now: a legal "
        "action, or the cards view.must_give asks for."
    )
    site_bot: bool = Field(
        description="Three time-outs handed the seat to a site bot for "
        "the rest of the game: decisions are refused."
    )


class DecisionIn(Schema):
    action: dict[str, Any] = Field(
        description='An engine action, e.g. {"type": "play", "card": "B7"}.'
    )
    key: str = Field(
        min_length=1,
        max_length=moves.MAX_KEY,
        description="Idempotency key: sending the same key again answers the "
        "first result and moves nothing.",
    )
    seq: int | None = Field(
        None,
        ge=0,
        le=MAX_ID,
        description="Optional: refuse (409) if the game's last event is not this one.",
    )


class DecisionOut(Schema):
    seq: int
    replayed: bool


# Every route may refuse a malformed request (400), a missing or bad token (401) and a
# token over its rate limit (429).
REFUSALS = {400: Error, 401: Error, 429: Error}


def _lobby_refusal(exc):
    return HttpError(getattr(exc, "status", 409), str(exc))


@router.get("/account", response={200: Account, **REFUSALS})
def account(request):
    user = request.auth
    return {"username": user.username, "name": user.name, "is_bot": user.is_bot}


@router.get("/invitations", response={200: list[Invitation], **REFUSALS})
def invitations(request):
    return lobby.bot_invitations(request.auth)


@router.post(
    "/invitations/{invitation_id}/accept",
    response={200: SeatOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def accept(request, invitation_id: int = Path(..., ge=1, le=MAX_ID)):
    try:
        seat = lobby.accept_invitation(invitation_id, request.auth)
    except lobby.LobbyError as exc:
        raise _lobby_refusal(exc) from None
    return _seat_out(seat)


@router.get("/tables", response={200: list[OpenTable], **REFUSALS})
def tables(request):
    """Open public tables whose host allows bot accounts and that have a free seat."""
    return [
        {"game": g.pk, "players": g.players, "pace": g.pace, "free_seats": g.free_seat_count()}
        for g in lobby.open_tables_for_bots()
    ]


@router.post(
    "/tables/{game_id}/join",
    response={200: SeatOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def join(request, game_id: int = GameId, body: JoinIn | None = None):
    try:
        seat = lobby.join_table(game_id, request.auth, body.seat if body else None)
    except lobby.LobbyError as exc:
        raise _lobby_refusal(exc) from None
    return _seat_out(seat)


def _seat_out(seat):
    game = Game.objects.get(pk=seat.game_id)
    return {
        "game": game.pk,
        "seat": seat.number,
        "status": game.status,
        "your_turn": seat_state.waited_on(game, seat.number),
        "last_seq": game.last_seq,
    }


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


def _reader(user, game_id, with_snapshot=False):
    """The bot's reader at the game (games.actions.access's rule for a program): its seat
    and the game read in one statement, so that what is read is what the seat's holder
    may see."""
    reader = access.program_at(user, game_id, with_snapshot=with_snapshot)
    if reader is None:
        raise Http404(NO_SEAT)
    return reader


@router.get("/games/{game_id}", response={200: GameOut, **REFUSALS, 404: Error})
def game(request, game_id: int = GameId):
    """What this bot's seat sees: the engine's view(seat) and legal actions, and the
    game's last event number (`seq`), to pass back with a decision if wanted."""
    # One snapshot of the game for the view and its seq, so that they agree.
    # The same answer as the stream's state message (games.presenters.bot_view).
    with transaction.atomic():
        reader = _reader(request.auth, game_id, with_snapshot=True)
        return bot_view.seat_state(reader.game, reader.seat)


@router.post(
    "/games/{game_id}/decisions",
    response={200: DecisionOut, **REFUSALS, 403: Error, 404: Error, 409: Error, 503: Error},
)
def decide(request, body: DecisionIn, game_id: int = GameId):
    """One decision of this bot's seat, through the seat door (games.actions.seat_door), as
    a click's (so the same clocks)."""
    reader = _reader(request.auth, game_id)
    try:
        # The write door checks again, under the game's lock, that the seat is still this bot's.
        result = seat_door.decide(reader, body.action, body.key, expected_seq=body.seq)
    except decisions.DecisionRefused as exc:
        raise HttpError(seat_door.refusal(exc).status, str(exc)) from None
    return {"seq": result.event.seq, "replayed": result.replayed}
