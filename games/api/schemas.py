"""The Bot API's data model: every shape its routes take and answer, as the OpenAPI schema
at /api/bot/openapi.json publishes it, and as the site's pages explain it (/bots/docs/model/).

A seat's `view` and its actions are the engine's own dicts (games.engine.types). They are
typed here as TypedDicts, which pydantic checks and answers as the dicts they are: a key the
engine leaves out stays out, so the answers are exactly what the engine said, and the schema
names every key, value and card a program will meet. tests/games/api/test_schema.py holds
these to the engine's own types, so that they cannot drift apart.
"""

from datetime import datetime
from typing import Annotated, Any, Literal, NotRequired

from ninja import Field, Schema
from pydantic import ConfigDict, SkipValidation, WithJsonSchema, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from games.actions import moves
from games.engine import cards

# Ids are PostgreSQL integers: anything larger names nothing.
MAX_ID = 2**31 - 1

# Where the site explains the model; error messages and descriptions point here, never to a
# file of the repository.
DOCS = "/bots/docs/"
MODEL_DOCS = "/bots/docs/model/"

# ------------------------------------------------------------------ cards and colours

# The components every card and colour refers to (games.api.BotApi adds them to the
# schema): one definition, not 67 codes repeated at each use.
CARD_PATTERN = r"^(?:[RYGB](?:[0-9]|[258]P|S|R|D2)|W|WTP|WTD4)$"
CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(cards.CODES),
    "pattern": CARD_PATTERN,
    "description": (
        "A card's code. A number card is its colour letter and digit (`R0`..`B9`); a 2, 5 or "
        "8 with the passing symbol adds `P` (`R2P`, `G5P`, `B8P`); Skip, Reverse and Draw 2 "
        "are `RS`, `RR`, `RD2` (likewise `Y…`, `G…`, `B…`); the Wilds are `W` (Wild), `WTP` "
        "(Wild Team Play) and `WTD4` (Wild Team Draw 4). The two copies of a card share its "
        "code: naming it means either copy in the hand. See " + MODEL_DOCS + "#cards."
    ),
}
COLOR_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(cards.COLORS),
    "description": "A colour: `R` red, `Y` yellow, `G` green, `B` blue.",
}
COMPONENTS: dict[str, dict[str, Any]] = {"Card": CARD_SCHEMA, "Color": COLOR_SCHEMA}

# A marker pydantic leaves alone (it would try to resolve a `$ref` of its own), made a
# reference to the component by `with_components`.
Card = Annotated[str, WithJsonSchema({"x-component": "Card"})]
Color = Annotated[str, WithJsonSchema({"x-component": "Color"})]


def with_components(node: Any, prefix: str = "#/components/schemas/") -> Any:
    """`node` (a JSON schema, or a document holding some) with every card and colour made
    a reference to its component."""
    if isinstance(node, dict):
        if "x-component" in node:
            rest = {k: v for k, v in node.items() if k not in ("x-component", "title")}
            return {"$ref": prefix + node["x-component"], **rest}
        return {k: with_components(v, prefix) for k, v in node.items()}
    if isinstance(node, list):
        return [with_components(v, prefix) for v in node]
    return node


SEAT_NUMBERING = (
    "Seats are numbered from 0 clockwise (the table's page shows seat + 1); "
    "a seat's team is seat % teams, its partner (seat + teams) % players."
)
TEAM_NUMBERING = (
    "Teams are numbered from 0 (the page shows team + 1); team t is seats t and t + teams."
)


def _doc(text):
    return Field(description=text)


# The engine's dicts carry no key a program may not read; new keys may come in later versions
# of the API (additive), so a client should ignore a key it does not know.
_ENGINE_DICT = ConfigDict(extra="allow")

# ------------------------------------------------------------------ a seat's view


@with_config(_ENGINE_DICT)
class RuleOptions(TypedDict):
    """The table's rule options."""

    players: Annotated[int, _doc("4, 6 or 8 seats.")]
    stacking: Annotated[bool, _doc("A Draw 2 may be answered with a Draw 2 (penalties add up).")]
    final_card_penalty: Annotated[
        bool, _doc("Going down to one card without saying so costs cards (the rule book's).")
    ]
    target_score: Annotated[
        int | None, _doc("Rounds are played until a team reaches it; null: a single round.")
    ]


@with_config(_ENGINE_DICT)
class RoundResult(TypedDict):
    """How a round ended."""

    winner: Annotated[int | None, _doc("The winning team; null for a blocked round.")]
    blocked: Annotated[
        bool, _doc("Nobody could play or draw: every seat still in passed in a row.")
    ]
    points: Annotated[int, _doc("The points the round scored.")]
    hands: Annotated[
        list[list[Card]], _doc("Every seat's hand as the round ended, revealed, by seat.")
    ]
    conceded: NotRequired[
        Annotated[bool, _doc("Present (true) when the round ended by a concession.")]
    ]


@with_config(_ENGINE_DICT)
class GameOver(TypedDict):
    """How the game ended."""

    winner: Annotated[int | None, _doc("The winning team, or null.")]
    ranking: Annotated[
        list[Annotated[list[int], Field(min_length=2, max_length=2)]],
        _doc(
            "[team, rank] pairs, best first. Ranks are competition ranks from 1 "
            "(1, 2, 2, 4: tied teams share one). Teams that stayed come before teams that "
            "conceded; within each, the winner, then the higher score, then fewer points "
            "left in hand."
        ),
    ]


@with_config(_ENGINE_DICT)
class View(TypedDict):
    """What the seat sees: the engine's view(seat), exactly what a person in the seat
    sees and nothing more. See /bots/docs/model/#view."""

    seat: Annotated[int, _doc("This seat. " + SEAT_NUMBERING)]
    players: Annotated[int, _doc("Seats at the table: 4, 6 or 8.")]
    teams: Annotated[int, _doc("players / 2. " + TEAM_NUMBERING)]
    hand_sizes: Annotated[list[int], _doc("Cards in each seat's hand, by seat.")]
    out: Annotated[
        list[bool], _doc("By seat: its hand is empty while its team still plays (it is out).")
    ]
    departed: Annotated[list[bool], _doc("By seat: its team conceded and left the game.")]
    discard: Annotated[list[Card], _doc("The whole discard pile, bottom first: the top is last.")]
    draw_pile_size: Annotated[int, _doc("Cards left to draw (their order is never shown).")]
    color: Annotated[
        Color | None, _doc("The colour in play (a Wild's chosen one); null before the first play.")
    ]
    direction: Annotated[Literal[1, -1], _doc("1 clockwise, -1 counter-clockwise.")]
    turn: Annotated[
        int | None,
        _doc(
            "The seat whose turn it is; null during the setup pass and once the game is over. "
            "During a swap, a half pass or a tag-in pass it stays on the seat whose play "
            "caused it: `waiting_on` says who must decide."
        ),
    ]
    waiting_on: Annotated[
        list[int],
        _doc(
            "The seats with a decision pending now (in a setup pass or a swap: those that "
            "have not picked yet)."
        ),
    ]
    penalty: Annotated[
        int, _doc("Cards of a stacked penalty waiting for the seat to turn (0: none).")
    ]
    round: Annotated[int, _doc("The round, from 1.")]
    dealer: Annotated[int, _doc("The dealer's seat.")]
    scores: Annotated[list[int], _doc("Each team's total, by team.")]
    round_over: Annotated[
        RoundResult | None,
        _doc(
            "How the round just finished ended; in a game to a target score it stays until "
            "the next round's setup pass is done."
        ),
    ]
    game_over: Annotated[GameOver | None, _doc("How the game ended; null while it goes on.")]
    stage: Annotated[
        Literal["setup", "play", "over"],
        _doc(
            "`setup`: the round's setup pass (each seat picks a card for its partner); "
            "`play`: the round is played; `over`: the game is over."
        ),
    ]
    decision: Annotated[
        Literal["setup", "swap", "give", "forced", "penalty", "turn"] | None,
        _doc(
            "What the table waits for: `setup` the setup pass, `swap` the symbol swap after a "
            "passing-symbol card (the partners each pick a card), `give` a half pass or a "
            "tag-in pass (`giving` gives `give_count` cards), `forced` the seat to turn must "
            "play the card it drew (`must_play`), `penalty` a stacked penalty waits (play a "
            "Draw 2 or take it), `turn` an ordinary turn; null once the game is over. See "
            + MODEL_DOCS
            + "#decisions."
        ),
    ]
    choosing: Annotated[list[int], _doc("In a setup pass or a swap: the seats that pick; else [].")]
    picked: Annotated[
        list[int],
        _doc("In a setup pass or a swap: the seats that have picked (never what); else []."),
    ]
    giving: Annotated[int | None, _doc("The seat that must give cards (decision `give`).")]
    give_count: Annotated[int, _doc("How many cards `giving` must give (0: none).")]
    give_reason: Annotated[
        Literal["half_pass", "tag_in"] | None,
        _doc(
            "Why cards are given: `half_pass` (a seat went out and its partner gives it half "
            "of its hand) or `tag_in` (a seat drew while its partner was out and gives it "
            "cards to come back in); null when nobody gives."
        ),
    ]
    last_round: Annotated[
        RoundResult | None, _doc("The last finished round's result, kept through the next.")
    ]
    options: Annotated[RuleOptions, _doc("The table's rule options.")]
    hand: Annotated[list[Card], _doc("This seat's cards, in the rule book's hand order.")]
    must_give: Annotated[
        int,
        _doc(
            "Cards this seat must give now (0: none): answer with a `give` action of exactly "
            "that many cards from `hand`. `legal` never lists a give."
        ),
    ]
    received: Annotated[
        list[Card], _doc("The cards this seat received in its latest trade ([] if none).")
    ]
    gave: Annotated[list[Card], _doc("The cards this seat gave in its latest trade.")]
    my_pick: Annotated[
        Card | None,
        _doc(
            "This seat's pick in the setup pass or swap under way (null: none yet, or no "
            "pass under way)."
        ),
    ]
    must_play: Annotated[
        Card | None, _doc("The card this seat drew and must play now (decision `forced`).")
    ]
    partner: Annotated[int, _doc("The partner's seat: (seat + teams) % players.")]
    team: Annotated[int, _doc("This seat's team: seat % teams. " + TEAM_NUMBERING)]


# ------------------------------------------------------------------ actions


class PlayAction(TypedDict):
    """Play a card on the discard pile; a Wild names the colour it calls."""

    type: Literal["play"]
    card: Card
    color: NotRequired[
        Annotated[
            Color | None,
            _doc("Required for a Wild (`W`, `WTP`, `WTD4`); absent (or null) for any other card."),
        ]
    ]


class DrawAction(TypedDict):
    """Draw a card: legal only with nothing playable in hand."""

    type: Literal["draw"]


class PassTurnAction(TypedDict):
    """Pass the turn: legal only with nothing playable and nothing left to draw (the draw
    pile is empty and the discard pile holds only its top card, so nothing can be
    reshuffled). Rare: most games never offer it. When every seat still in passes in a row
    the round ends blocked."""

    type: Literal["pass_turn"]


class TakePenaltyAction(TypedDict):
    """Take the stacked penalty waiting for this seat (decision `penalty`), instead of
    passing it on with a Draw 2."""

    type: Literal["take_penalty"]


class PassAction(TypedDict):
    """Pick the card to pass to the partner in a setup pass or a symbol swap. The pick may
    be changed until the last seat has picked, by sending another `pass` with a new key:
    the last pick counts. A retrying client should resend the same key, never a new one."""

    type: Literal["pass"]
    card: Card


class GiveAction(TypedDict):
    """Give cards to the partner (decision `give`): exactly view.must_give of them, from
    the hand. Never listed in `legal`."""

    type: Literal["give"]
    cards: list[Card]


class ConcedeAction(TypedDict):
    """The seat's team leaves the game (its hands go under the draw pile). Allowed any
    time while the team plays; never listed in `legal`."""

    type: Literal["concede"]


Action = Annotated[
    PlayAction
    | DrawAction
    | PassTurnAction
    | TakePenaltyAction
    | PassAction
    | GiveAction
    | ConcedeAction,
    Field(discriminator="type"),
]
LegalAction = Annotated[
    PlayAction | DrawAction | PassTurnAction | TakePenaltyAction | PassAction,
    Field(discriminator="type"),
]

# ------------------------------------------------------------------ the routes' shapes


class Error(Schema):
    detail: str


class Account(Schema):
    username: str
    name: str
    is_bot: bool


GameStatus = Literal["open", "active", "finished", "aborted"]


class Invitation(Schema):
    id: int
    game: int
    seat: int = Field(description="The seat it invites to. " + SEAT_NUMBERING)
    host: str
    players: int
    pace: Literal["realtime", "turn"]
    move_seconds: int | None = None
    created_at: datetime


class SeatOut(Schema):
    game: int
    seat: int = Field(description=SEAT_NUMBERING)
    status: GameStatus
    your_turn: bool
    last_seq: int


class OpenTable(Schema):
    game: int
    players: int
    pace: Literal["realtime", "turn"]
    free_seats: int


class JoinIn(Schema):
    seat: int | None = Field(
        None, ge=0, le=15, description="A seat number, from 0; none: the first free seat."
    )


class GameOut(Schema):
    game: int
    seat: int = Field(description=SEAT_NUMBERING)
    seq: int = Field(description="The number of the game's last event.")
    status: GameStatus = Field(
        description="`open` waiting for players, `active` being played, `finished`, "
        "`aborted` (abandoned)."
    )
    view: View | None = Field(
        None, description="Exactly the engine's view(seat) (null before the deal)."
    )
    legal: list[LegalAction] = Field(
        description="The seat's legal actions now, one per distinct card (one per colour for "
        "a Wild); [] when it has nothing to decide. Never `concede` (always allowed while "
        "the team plays) nor `give` (asked by view.must_give instead)."
    )
    deadline_at: datetime | None = Field(
        None,
        description="The earliest clock among the seats that must decide now (real time: "
        "the move timer; turn by turn: the turn's deadline); null when nobody's runs. "
        "This seat's own is `clock_due`.",
    )
    your_turn: bool = Field(
        description="The seat has a decision to make now: a legal "
        "action, or the cards view.must_give asks for."
    )
    site_bot: bool = Field(
        description="Three time-outs handed the seat to a site bot for "
        "the rest of the game: decisions are refused."
    )
    # The seat's condition (games.presenters.bot_view.condition, docs/clocks.md).
    clock_due: datetime | None = Field(
        None,
        description="When this seat's own move clock runs out; null when it has none "
        "running (nothing to decide, or a site bot decides for it).",
    )
    timeouts: int = Field(0, description="This seat's time-outs so far in this game.")
    timeout_limit: int | None = Field(
        None,
        description="Real time: the time-outs that hand the seat to a site bot for the rest "
        "of the game (3); null in turn-by-turn games. Time-outs during a disconnect hold "
        "are not counted.",
    )
    stand_in: Literal["away", "timeouts"] | None = Field(
        None,
        description="Who plays the seat now: null its holder; `away` a site bot until the "
        "holder's stream or page is back (the disconnect hold ran out); `timeouts` a site "
        "bot for the rest of the game.",
    )
    stand_in_since: datetime | None = Field(None, description="Since when `stand_in` plays.")
    hold_until: datetime | None = Field(
        None,
        description="Real time: the seat has no stream or page open, and a site bot takes "
        "it over at this time unless one opens before.",
    )


class DecisionIn(Schema):
    # Typed for the schema, judged by the seat door: an action of no engine shape is
    # answered 400 with the door's words (as on the stream), never a validator's.
    action: SkipValidation[Action] = Field(
        description='An engine action, e.g. {"type": "play", "card": "B7"}: one of the '
        "shapes below, told apart by `type`. See " + MODEL_DOCS + "#actions."
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
        description="Optional: the seq of the state the decision was made on. Refused (409) "
        "if an event since changed what this seat may do (another seat's pick in a "
        "simultaneous pass or swap does not); a seq past the game's last event is a 400.",
    )


class DecisionOut(Schema):
    seq: int
    replayed: bool


# Every route may refuse a malformed request (400), a missing or bad token (401) and a
# token over its rate limit (429).
REFUSALS = {400: Error, 401: Error, 429: Error}
