"""The Bot API's two websockets described machine-readably: an AsyncAPI 3 document served at
/api/bot/asyncapi.json, and explained at /bots/docs/stream/.

- A seat's stream, /api/bot/games/{game_id}/stream (games.bot_stream): `state` frames out,
  `act` frames in, answered `ok` or `error`; a `closing` frame before each close.
- The account's events, /api/bot/events/stream (and GET /api/bot/events as NDJSON): one
  message per event of games.actions.account_events.

Each message's schema is made from a pydantic model, the state's from GameOut itself, so the
document cannot say other than the routes and the streams do.
"""

from datetime import datetime
from typing import Any, Literal, cast

from ninja import Field, Schema
from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema

from games.actions import account_events, moves, seat_door
from games.api import schemas

# Why a seat's stream closes, as a program reads the close code.
CLOSE_CODES = {
    seat_door.CLOSE_BAD_TOKEN: "No token, an unknown or a revoked one (at once when it is "
    "revoked), or an account that may not play.",
    seat_door.CLOSE_NO_SEAT: "The account holds no seat at this game (or there is no such game).",
    seat_door.CLOSE_SEAT_LOST: "The seat stopped being the account's: the host removed the bot, "
    "it moved or left, a moderator took the seat.",
    seat_door.CLOSE_TOO_MANY: "The account has as many streams open as it may.",
    seat_door.CLOSE_SERVER_ERROR: "The server cannot carry on (its message broker was lost): "
    "reconnect after a moment.",
}


class StateFrame(schemas.GameOut):
    """The seat's state: sent on connecting and each time the game moves, only ever newer
    than the last one sent (a burst of moves may come as one state). The same fields as
    GET /api/bot/games/{game_id}."""

    type: Literal["state"]


class ActFrame(Schema):
    """A decision, as POST /api/bot/games/{game_id}/decisions takes it. It counts against
    the account's requests as an HTTP request does."""

    type: Literal["act"]
    action: schemas.Action = Field(description="One of the action shapes, told apart by `type`.")
    key: str = Field(
        min_length=1,
        max_length=moves.MAX_KEY,
        description="Idempotency key, shared with the HTTP route: the same key again answers "
        "the first result and moves nothing.",
    )
    seq: int | None = Field(
        None, ge=0, description="Optional: as the HTTP body's `seq` (a stale one is refused)."
    )


class OkFrame(Schema):
    """An `act` frame was taken."""

    type: Literal["ok"]
    seq: int = Field(description="The number of the event the decision made.")
    key: str = Field(description="The act frame's key.")
    replayed: bool = Field(
        description="True when the key had been used already: the first result, nothing moved."
    )


class ErrorFrame(Schema):
    """A message was refused: the reason in words (an HTTP refusal's `detail`)."""

    type: Literal["error"]
    message: str
    key: str | None = Field(description="The refused act frame's key, when it sent a valid one.")


class ClosingFrame(Schema):
    """Sent just before the stream closes: the close code and why."""

    type: Literal["closing"]
    code: Literal[tuple(CLOSE_CODES)]  # type: ignore[valid-type]
    reason: str


class AccountEvent(Schema):
    """One event of the account, numbered by `id` (increasing; resume with ?since=<id>).
    Besides the fields below, each type carries its own: `invitation` (invitation, seat,
    host, players, pace, move_seconds), `invitation_closed` (invitation, seat, reason:
    declined, cancelled or lapsed), `seated` (seat), `game_started` (seat, players, pace),
    `your_turn` (seat, seq, decision), `game_finished` (seat, result), `stand_in_started`
    and `stand_in_ended` (seat, reason), `timed_out` (seat, count, of: the time-outs so far
    and the limit, 3), `seat_handed_over` (seat). Never a card."""

    model_config = ConfigDict(extra="allow")

    id: int = Field(description="The event's number: pass the last one seen as ?since= to resume.")
    type: Literal[account_events.KINDS]  # type: ignore[valid-type]
    at: datetime = Field(description="When it happened (UTC).")
    game: int | None = Field(description="The game it is about, or null.")
    seat: int | None = Field(None, description="The account's seat at that game, from 0.")


MESSAGES = {
    "state": StateFrame,
    "act": ActFrame,
    "ok": OkFrame,
    "error": ErrorFrame,
    "closing": ClosingFrame,
    "accountEvent": AccountEvent,
}


def component_schemas() -> dict[str, Any]:
    """The JSON schemas of every message, by name, with the data model's cards and
    colours, references pointing into the document's own components."""
    _, top = models_json_schema(
        [(cast(type[BaseModel], model), "serialization") for model in MESSAGES.values()],
        ref_template="#/components/schemas/{model}",
    )
    found = dict(top.get("$defs", {}))
    found.update(schemas.COMPONENTS)
    return schemas.with_components(found)


def _ref(kind, name):
    return {"$ref": f"#/components/{kind}/{name}"}


def document(host: str = "", secure: bool = True) -> dict[str, Any]:
    """The AsyncAPI 3.0 document; `host` (host[:port]) names the server."""
    protocol = "wss" if secure else "ws"
    auth_headers = {
        "type": "object",
        "required": ["Authorization", "Origin"],
        "properties": {
            "Authorization": {"type": "string", "description": "Bearer <a bot account's token>"},
            "Origin": {
                "type": "string",
                "description": "The site's own origin: sockets from other origins are refused.",
            },
        },
    }
    messages = {
        name: {
            "name": name,
            "title": model.__name__,
            "summary": (model.__doc__ or "").split("\n\n")[0].replace("\n", " "),
            "contentType": "application/json",
            "payload": _ref("schemas", model.__name__),
        }
        for name, model in MESSAGES.items()
    }
    close_codes = {str(code): why for code, why in CLOSE_CODES.items()}
    game_messages = ("state", "act", "ok", "error", "closing")
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Wild Cards Teams Bot API: streams",
            "version": "1",
            "description": "The websockets of the Bot API (its HTTP routes: "
            "/api/bot/openapi.json). "
            "Explained at /bots/docs/stream/; the data model at /bots/docs/model/. "
            "Seats and teams are numbered from 0. Version 1 changes only by adding: "
            "ignore a frame type or a field you do not know.",
        },
        "defaultContentType": "application/json",
        "servers": {
            "site": {
                "host": host or "localhost",
                "protocol": protocol,
                "description": "This site.",
                "security": [_ref("securitySchemes", "botToken")],
            }
        },
        "channels": {
            "gameStream": {
                "address": "/api/bot/games/{game_id}/stream",
                "title": "A seat's stream",
                "description": "The seat of this bot account at the game: its state each time "
                "the game moves, and its decisions. Close codes: "
                + "; ".join(f"{code} {why}" for code, why in close_codes.items()),
                "parameters": {"game_id": {"description": "The game's (table's) id."}},
                "messages": {name: _ref("messages", name) for name in game_messages},
                "bindings": {"ws": {"headers": auth_headers, "bindingVersion": "0.1.0"}},
                "x-close-codes": close_codes,
            },
            "accountStream": {
                "address": "/api/bot/events/stream",
                "title": "The account's events",
                "description": "Everything that happens to the account, as numbered events: "
                "invitations, seats, games started and finished, turns, stand-ins, time-outs. "
                "Open it with ?since=<id> to resume after the last event seen; "
                "GET /api/bot/events?since=<id> answers the same events as NDJSON "
                "(application/x-ndjson), one JSON object a line.",
                "messages": {"accountEvent": _ref("messages", "accountEvent")},
                "bindings": {"ws": {"headers": auth_headers, "bindingVersion": "0.1.0"}},
            },
        },
        "operations": {
            "receiveState": {
                "action": "receive",
                "channel": {"$ref": "#/channels/gameStream"},
                "summary": "The seat's state, on connecting and after each move.",
                "messages": [{"$ref": "#/channels/gameStream/messages/state"}],
            },
            "sendAct": {
                "action": "send",
                "channel": {"$ref": "#/channels/gameStream"},
                "summary": "A decision for the seat.",
                "messages": [{"$ref": "#/channels/gameStream/messages/act"}],
                "reply": {
                    "channel": {"$ref": "#/channels/gameStream"},
                    "messages": [
                        {"$ref": "#/channels/gameStream/messages/ok"},
                        {"$ref": "#/channels/gameStream/messages/error"},
                    ],
                },
            },
            "receiveClosing": {
                "action": "receive",
                "channel": {"$ref": "#/channels/gameStream"},
                "summary": "Why the stream is about to close.",
                "messages": [{"$ref": "#/channels/gameStream/messages/closing"}],
            },
            "receiveAccountEvent": {
                "action": "receive",
                "channel": {"$ref": "#/channels/accountStream"},
                "summary": "One event of the account.",
                "messages": [{"$ref": "#/channels/accountStream/messages/accountEvent"}],
            },
        },
        "components": {
            "schemas": component_schemas(),
            "messages": messages,
            "securitySchemes": {
                "botToken": {
                    "type": "httpApiKey",
                    "name": "Authorization",
                    "in": "header",
                    "description": "Authorization: Bearer <token>, a bot account's API token.",
                }
            },
        },
    }
