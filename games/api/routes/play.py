"""Playing a seat: the bot's seats, what a seat sees, its decisions, and a finished game's
export."""

from datetime import datetime
from typing import Any

from django.db import transaction
from ninja import Field, Query, Router, Schema
from ninja.errors import HttpError

from games.actions import decisions, seat_door
from games.api import quota
from games.api.common import GameId, reader_of
from games.api.schemas import REFUSALS, DecisionIn, DecisionOut, Error, GameOut, SeatOut
from games.models import Game, Seat
from games.presenters import bot_view, history, replay
from games.store import seats as seat_state  # `seats` is a route here

router = Router()

# How many ended games `/seats?finished=true` lists at most, newest first: enough for a
# program that restarts to learn the results it missed, not a whole history to page.
ENDED_LISTED = 50
NOT_FINISHED = "Only a finished game can be exported: wait for its end."


class SeatResult(Schema):
    """How a finished game ended for the seat's team, as the site's history shows it."""

    team: int = Field(description="The seat's team, numbered from 0 (seat % teams).")
    won: bool
    rank: int | None = Field(description="The team's place, 1 for the winner.")
    score: int = Field(description="The team's final score.")
    scores: list[int] = Field(description="Every team's final score, by team number.")


class SeatListed(SeatOut):
    finished_at: datetime | None = Field(
        None, description="Only with ?finished=true: when the game ended."
    )
    result: SeatResult | None = Field(
        None, description="Only with ?finished=true, for a finished game: its result."
    )


class SeatsQuery(Schema):
    finished: bool = Field(
        False,
        description="Also list the seat's ended games (finished or aborted, the "
        f"{ENDED_LISTED} newest), each finished one with its result.",
    )


def _result(game: Game, seat: int) -> dict[str, Any] | None:
    found = history.outcome(game)
    if found is None:
        return None
    team = seat % game.teams
    return {
        "team": team,
        "won": found["winner"] == team,
        "rank": found["ranks"].get(team),
        "score": found["scores"][team],
        "scores": found["scores"],
    }


@router.get("/seats", response={200: list[SeatListed], **REFUSALS}, exclude_none=True)
def seats(request, query: Query[SeatsQuery]):
    """This bot's seats at open and running tables, newest table first; with
    `?finished=true`, then its ended games, newest first, with their results."""
    rows = list(
        Seat.objects.filter(
            user=request.auth, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE]
        )
        .select_related("game")
        .order_by("-game_id")
    )
    answer: list[dict[str, Any]] = [
        {
            "game": s.game_id,
            "seat": s.number,
            "status": s.game.status,
            "your_turn": seat_state.waited_on(s.game, s.number),
            "last_seq": s.game.last_seq,
        }
        for s in rows
    ]
    if query.finished:
        ended = (
            Seat.objects.filter(
                user=request.auth, game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED]
            )
            .select_related("game", "game__snapshot")
            .order_by("-game__finished_at", "-game_id")[:ENDED_LISTED]
        )
        answer += [
            {
                "game": s.game_id,
                "seat": s.number,
                "status": s.game.status,
                "your_turn": False,
                "last_seq": s.game.last_seq,
                "finished_at": s.game.finished_at,
                "result": _result(s.game, s.number),
            }
            for s in ended
        ]
    return answer


@router.get("/games/{game_id}", response={200: GameOut, **REFUSALS, 404: Error})
def game(request, game_id: int = GameId):
    """What this bot's seat sees: the engine's view(seat) and legal actions, the game's last
    event number (`seq`), to pass back with a decision if wanted, and the seat's condition
    (its clock, time-outs, stand-in and disconnect hold)."""
    # One snapshot of the game for the view and its seq, so that they agree.
    # The same answer as the stream's state message (games.presenters.bot_view).
    with transaction.atomic():
        reader = reader_of(request.auth, game_id, with_snapshot=True)
        return bot_view.seat_state(reader.game, reader.seat)


@router.get(
    "/games/{game_id}/export", response={200: dict[str, Any], **REFUSALS, 404: Error, 409: Error}
)
def export(request, game_id: int = GameId):
    """A finished game's export, as the site gives the seat's holder at
    /history/games/<id>/export.json: the seed, every event and the result (once a game is
    finished every hand is public). Only for a game this bot holds a seat at (404 else)."""
    with transaction.atomic():
        reader = reader_of(request.auth, game_id, with_snapshot=True)
        try:
            return replay.export(reader.game)
        except replay.NotAllowed:
            raise HttpError(409, NOT_FINISHED) from None


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
        if isinstance(exc, decisions.DecisionNotSaved):
            quota.give_back(request)  # the server's failure: its retry costs nothing
        raise HttpError(seat_door.refusal(exc).status, str(exc)) from None
    return {"seq": result.event.seq, "replayed": result.replayed}
