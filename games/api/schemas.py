"""The Bot API's data model: every shape its routes take and answer, as the OpenAPI schema
at /api/bot/openapi.json publishes it (docs/bot-api.md)."""

from datetime import datetime
from typing import Any

from ninja import Field, Schema

from games.actions import moves

# Ids are PostgreSQL integers: anything larger names nothing.
MAX_ID = 2**31 - 1


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
