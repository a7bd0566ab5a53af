"""The Bot API's data model as TypedDicts, made from the site's OpenAPI schema
(Wild Cards Teams Bot API, version 1) by `python -m wildcards_bot.generate`.
Do not edit: generate it again.

Seats and teams are numbered from 0 in the API (the site's pages show seat + 1).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

__all__ = [
    "Account",
    "AccountEvent",
    "Card",
    "Color",
    "ConcedeAction",
    "DecisionIn",
    "DecisionOut",
    "DrawAction",
    "Error",
    "GameOut",
    "GameOver",
    "GiveAction",
    "Invitation",
    "InvitationOut",
    "InviteIn",
    "JoinIn",
    "OpenTable",
    "PassAction",
    "PassTurnAction",
    "PlayAction",
    "RoundResult",
    "RuleOptions",
    "SeatListed",
    "SeatOut",
    "SeatResult",
    "SeatsQuery",
    "SiteBotIn",
    "TableOptions",
    "TableOut",
    "TableSeat",
    "TakePenaltyAction",
    "View",
]


class Account(TypedDict):
    username: str
    name: str
    is_bot: bool


class AccountEvent(TypedDict):
    """One event of the account, numbered by `id` (increasing; resume with ?since=<id>).
    Besides the fields below, each type carries its own: `invitation` (invitation, seat,
    host, players, pace, move_seconds), `invitation_closed` (invitation, seat, reason:
    declined, cancelled or lapsed), `seated` (seat), `game_started` (seat, players, pace),
    `your_turn` (seat, seq, decision), `game_finished` (seat, result), `stand_in_started`
    and `stand_in_ended` (seat, reason), `timed_out` (seat, count, of: the time-outs so far
    and the limit, 3), `seat_handed_over` (seat). Never a card.
    """

    # The event's number: pass the last one seen as ?since= to resume.
    id: int
    type: Literal[
        "invitation",
        "invitation_closed",
        "seated",
        "game_started",
        "your_turn",
        "game_finished",
        "stand_in_started",
        "stand_in_ended",
        "timed_out",
        "seat_handed_over",
    ]
    # When it happened (UTC).
    at: str
    # The game it is about, or null.
    game: int | None
    # The account's seat at that game, from 0.
    seat: NotRequired[int | None]


class ConcedeAction(TypedDict):
    """The seat's team leaves the game (its hands go under the draw pile). Allowed any time
    while the team plays; never listed in `legal`.
    """

    type: Literal["concede"]


class DecisionIn(TypedDict):
    # An engine action, e.g. {"type": "play", "card": "B7"}: one of the shapes below, told apart
    # by `type`. See /bots/docs/model/#actions.
    action: (
        PlayAction
        | DrawAction
        | PassTurnAction
        | TakePenaltyAction
        | PassAction
        | GiveAction
        | ConcedeAction
    )
    # Idempotency key: sending the same key again answers the first result and moves nothing.
    key: str
    # Optional: the seq of the state the decision was made on. Refused (409) if an event since
    # changed what this seat may do (another seat's pick in a simultaneous pass or swap does
    # not); a seq past the game's last event is a 400.
    seq: NotRequired[int | None]


class DecisionOut(TypedDict):
    seq: int
    replayed: bool


class DrawAction(TypedDict):
    """Draw a card: legal only with nothing playable in hand."""

    type: Literal["draw"]


class Error(TypedDict):
    detail: str


class GameOut(TypedDict):
    game: int
    # Seats are numbered from 0 clockwise (the table's page shows seat + 1); a seat's team is
    # seat % teams, its partner (seat + teams) % players.
    seat: int
    # The number of the game's last event.
    seq: int
    # `open` waiting for players, `active` being played, `finished`, `aborted` (abandoned).
    status: Literal["open", "active", "finished", "aborted"]
    # Exactly the engine's view(seat) (null before the deal).
    view: NotRequired[View | None]
    # The seat's legal actions now, one per distinct card (one per colour for a Wild); [] when
    # it has nothing to decide. Never `concede` (always allowed while the team plays) nor `give`
    # (asked by view.must_give instead).
    legal: list[PlayAction | DrawAction | PassTurnAction | TakePenaltyAction | PassAction]
    # The earliest clock among the seats that must decide now (real time: the move timer; turn
    # by turn: the turn's deadline); null when nobody's runs. This seat's own is `clock_due`.
    deadline_at: NotRequired[str | None]
    # The seat has a decision to make now: a legal action, or the cards view.must_give asks for.
    your_turn: bool
    # Three time-outs handed the seat to a site bot for the rest of the game: decisions are
    # refused.
    site_bot: bool
    # When this seat's own move clock runs out; null when it has none running (nothing to
    # decide, or a site bot decides for it).
    clock_due: NotRequired[str | None]
    # This seat's time-outs so far in this game.
    timeouts: NotRequired[int]
    # Real time: the time-outs that hand the seat to a site bot for the rest of the game (3);
    # null in turn-by-turn games. Time-outs during a disconnect hold are not counted.
    timeout_limit: NotRequired[int | None]
    # Who plays the seat now: null its holder; `away` a site bot until the holder's stream or
    # page is back (the disconnect hold ran out); `timeouts` a site bot for the rest of the
    # game.
    stand_in: NotRequired[Literal["away", "timeouts"] | None]
    # Since when `stand_in` plays.
    stand_in_since: NotRequired[str | None]
    # Real time: the seat has no stream or page open, and a site bot takes it over at this time
    # unless one opens before.
    hold_until: NotRequired[str | None]


class GameOver(TypedDict):
    """How the game ended."""

    # The winning team, or null.
    winner: int | None
    # [team, rank] pairs, best first. Ranks are competition ranks from 1 (1, 2, 2, 4: tied teams
    # share one). Teams that stayed come before teams that conceded; within each, the winner,
    # then the higher score, then fewer points left in hand.
    ranking: list[list[int]]


class GiveAction(TypedDict):
    """Give cards to the partner (decision `give`): exactly view.must_give of them, from the
    hand. Never listed in `legal`.
    """

    type: Literal["give"]
    cards: list[Card]


class Invitation(TypedDict):
    id: int
    game: int
    # The seat it invites to. Seats are numbered from 0 clockwise (the table's page shows seat +
    # 1); a seat's team is seat % teams, its partner (seat + teams) % players.
    seat: int
    host: str
    players: int
    pace: Literal["realtime", "turn"]
    move_seconds: NotRequired[int | None]
    created_at: str


class InvitationOut(TypedDict):
    # The invitation's id (the invitee's accept/decline use it).
    id: int
    game: int
    seat: int
    # The invited account's username.
    invitee: str
    invitee_is_bot: bool
    status: Literal["open", "accepted", "declined", "withdrawn", "lapsed"]


class InviteIn(TypedDict):
    # An empty seat's number, from 0.
    seat: int
    # A bot account's username, or a person's who allows bot accounts to invite them (a setting
    # of their profile).
    username: str


class JoinIn(TypedDict):
    # A seat number, from 0; none: the first free seat.
    seat: NotRequired[int | None]


class OpenTable(TypedDict):
    game: int
    players: int
    pace: Literal["realtime", "turn"]
    free_seats: int


class PassAction(TypedDict):
    """Pick the card to pass to the partner in a setup pass or a symbol swap. The pick may be
    changed until the last seat has picked, by sending another `pass` with a new key: the
    last pick counts. A retrying client should resend the same key, never a new one.
    """

    type: Literal["pass"]
    card: Card


class PassTurnAction(TypedDict):
    """Pass the turn: legal only with nothing playable and nothing left to draw (the draw pile
    is empty and the discard pile holds only its top card, so nothing can be reshuffled).
    Rare: most games never offer it. When every seat still in passes in a row the round ends
    blocked.
    """

    type: Literal["pass_turn"]


class PlayAction(TypedDict):
    """Play a card on the discard pile; a Wild names the colour it calls."""

    type: Literal["play"]
    card: Card
    # Required for a Wild (`W`, `WTP`, `WTD4`); absent (or null) for any other card.
    color: NotRequired[Color | None]


class RoundResult(TypedDict):
    """How a round ended."""

    # The winning team; null for a blocked round.
    winner: int | None
    # Nobody could play or draw: every seat still in passed in a row.
    blocked: bool
    # The points the round scored.
    points: int
    # Every seat's hand as the round ended, revealed, by seat.
    hands: list[list[Card]]
    # Present (true) when the round ended by a concession.
    conceded: NotRequired[bool]


class RuleOptions(TypedDict):
    """The table's rule options."""

    # 4, 6 or 8 seats.
    players: int
    # A Draw 2 may be answered with a Draw 2 (penalties add up).
    stacking: bool
    # Going down to one card without saying so costs cards (the rule book's).
    final_card_penalty: bool
    # Rounds are played until a team reaches it; null: a single round.
    target_score: int | None


class SeatListed(TypedDict):
    game: int
    # Seats are numbered from 0 clockwise (the table's page shows seat + 1); a seat's team is
    # seat % teams, its partner (seat + teams) % players.
    seat: int
    status: Literal["open", "active", "finished", "aborted"]
    your_turn: bool
    last_seq: int
    # Only with ?finished=true: when the game ended.
    finished_at: NotRequired[str | None]
    # Only with ?finished=true, for a finished game: its result.
    result: NotRequired[SeatResult | None]


class SeatOut(TypedDict):
    game: int
    # Seats are numbered from 0 clockwise (the table's page shows seat + 1); a seat's team is
    # seat % teams, its partner (seat + teams) % players.
    seat: int
    status: Literal["open", "active", "finished", "aborted"]
    your_turn: bool
    last_seq: int


class SeatResult(TypedDict):
    """How a finished game ended for the seat's team, as the site's history shows it."""

    # The seat's team, numbered from 0 (seat % teams).
    team: int
    won: bool
    # The team's place, 1 for the winner.
    rank: int | None
    # The team's final score.
    score: int
    # Every team's final score, by team number.
    scores: list[int]


class SeatsQuery(TypedDict):
    # Also list the seat's ended games (finished or aborted, the 50 newest), each finished one
    # with its result.
    finished: NotRequired[bool]


class SiteBotIn(TypedDict):
    # An empty seat's number, from 0.
    seat: int
    level: NotRequired[Literal["easy", "normal", "hard"]]


class TableOptions(TypedDict):
    """A table's options, as the lobby's create form offers them (its defaults too)."""

    # Seats: 4, 6 or 8 (teams of two).
    players: NotRequired[Literal[4, 6, 8]]
    # `realtime` (a move timer) or `turn` (a deadline per turn).
    pace: NotRequired[Literal["realtime", "turn"]]
    # Real time: seconds for a move (45, 30 or 15).
    move_seconds: NotRequired[Literal[45, 30, 15]]
    # Turn by turn: hours for a turn (12, 24 or 72).
    turn_hours: NotRequired[Literal[12, 24, 72]]
    # Real time: how fast site bots play (`quick`: three times faster).
    bot_speed: NotRequired[Literal["steady", "quick"]]
    # Turn by turn, a missed deadline: `bot` (a bot plays that turn) or `leave` (the player is
    # treated as having left).
    missed_deadline: NotRequired[Literal["bot", "leave"]]
    # Draw cards may be stacked.
    stacking: NotRequired[bool]
    # The final-card draw penalty applies.
    final_card_penalty: NotRequired[bool]
    # Play to this score (50 to 5000); null: a single round.
    target_score: NotRequired[int | None]
    # People may watch the game.
    spectators: NotRequired[bool]
    # Not listed in the lobby: joined by invitation or the invite link.
    private: NotRequired[bool]
    # Rated: a table of bot accounts only is rated on the bots' ladder; with a site bot, or
    # people and bot accounts together, it is dealt casual.
    rated: NotRequired[bool]
    # Bot accounts may join it by themselves (a public table only).
    bot_accounts: NotRequired[bool]


class TableOut(TypedDict):
    # The table's (game's) id: the same id as /games/{id}.
    game: int
    status: Literal["open", "active", "finished", "aborted"]
    # The host's name.
    host: str
    you_host: bool
    # This bot's seat, or null.
    your_seat: int | None
    options: TableOptions
    seats: list[TableSeat]
    # The host only: the link that lets a person see a private table and sit down (people are
    # invited with it, as on the site).
    invite_link: NotRequired[str | None]


class TableSeat(TypedDict):
    # The seat's number, from 0 (the page shows seat + 1).
    seat: int
    occupant: Literal["empty", "person", "bot_account", "site_bot"]
    # Who sits there (a site bot: its level's name).
    name: NotRequired[str | None]
    # A site bot's level.
    level: NotRequired[Literal["easy", "normal", "hard"] | None]
    # The seat is this bot account's.
    you: bool
    # An empty seat's open invitation: the invited account's name.
    invited: NotRequired[str | None]


class TakePenaltyAction(TypedDict):
    """Take the stacked penalty waiting for this seat (decision `penalty`), instead of passing
    it on with a Draw 2.
    """

    type: Literal["take_penalty"]


class View(TypedDict):
    """What the seat sees: the engine's view(seat), exactly what a person in the seat sees and
    nothing more. See /bots/docs/model/#view.
    """

    # This seat. Seats are numbered from 0 clockwise (the table's page shows seat + 1); a seat's
    # team is seat % teams, its partner (seat + teams) % players.
    seat: int
    # Seats at the table: 4, 6 or 8.
    players: int
    # players / 2. Teams are numbered from 0 (the page shows team + 1); team t is seats t and t
    # + teams.
    teams: int
    # Cards in each seat's hand, by seat.
    hand_sizes: list[int]
    # By seat: its hand is empty while its team still plays (it is out).
    out: list[bool]
    # By seat: its team conceded and left the game.
    departed: list[bool]
    # The whole discard pile, bottom first: the top is last.
    discard: list[Card]
    # Cards left to draw (their order is never shown).
    draw_pile_size: int
    # The colour in play (a Wild's chosen one); null before the first play.
    color: Color | None
    # 1 clockwise, -1 counter-clockwise.
    direction: Literal[1, -1]
    # The seat whose turn it is; null during the setup pass and once the game is over. During a
    # swap, a half pass or a tag-in pass it stays on the seat whose play caused it: `waiting_on`
    # says who must decide.
    turn: int | None
    # The seats with a decision pending now (in a setup pass or a swap: those that have not
    # picked yet).
    waiting_on: list[int]
    # Cards of a stacked penalty waiting for the seat to turn (0: none).
    penalty: int
    # The round, from 1.
    round: int
    # The dealer's seat.
    dealer: int
    # Each team's total, by team.
    scores: list[int]
    # How the round just finished ended; in a game to a target score it stays until the next
    # round's setup pass is done.
    round_over: RoundResult | None
    # How the game ended; null while it goes on.
    game_over: GameOver | None
    # `setup`: the round's setup pass (each seat picks a card for its partner); `play`: the
    # round is played; `over`: the game is over.
    stage: Literal["setup", "play", "over"]
    # What the table waits for: `setup` the setup pass, `swap` the symbol swap after a
    # passing-symbol card (the partners each pick a card), `give` a half pass or a tag-in pass
    # (`giving` gives `give_count` cards), `forced` the seat to turn must play the card it drew
    # (`must_play`), `penalty` a stacked penalty waits (play a Draw 2 or take it), `turn` an
    # ordinary turn; null once the game is over. See /bots/docs/model/#decisions.
    decision: Literal["setup", "swap", "give", "forced", "penalty", "turn"] | None
    # In a setup pass or a swap: the seats that pick; else [].
    choosing: list[int]
    # In a setup pass or a swap: the seats that have picked (never what); else [].
    picked: list[int]
    # The seat that must give cards (decision `give`).
    giving: int | None
    # How many cards `giving` must give (0: none).
    give_count: int
    # Why cards are given: `half_pass` (a seat went out and its partner gives it half of its
    # hand) or `tag_in` (a seat drew while its partner was out and gives it cards to come back
    # in); null when nobody gives.
    give_reason: Literal["half_pass", "tag_in"] | None
    # The last finished round's result, kept through the next.
    last_round: RoundResult | None
    options: RuleOptions
    # This seat's cards, in the rule book's hand order.
    hand: list[Card]
    # Cards this seat must give now (0: none): answer with a `give` action of exactly that many
    # cards from `hand`. `legal` never lists a give.
    must_give: int
    # The cards this seat received in its latest trade ([] if none).
    received: list[Card]
    # The cards this seat gave in its latest trade.
    gave: list[Card]
    # This seat's pick in the setup pass or swap under way (null: none yet, or no pass under
    # way).
    my_pick: Card | None
    # The card this seat drew and must play now (decision `forced`).
    must_play: Card | None
    # The partner's seat: (seat + teams) % players.
    partner: int
    # This seat's team: seat % teams. Teams are numbered from 0 (the page shows team + 1); team
    # t is seats t and t + teams.
    team: int


# A card's code. A number card is its colour letter and digit (`R0`..`B9`); a 2, 5 or 8 with the
# passing symbol adds `P` (`R2P`, `G5P`, `B8P`); Skip, Reverse and Draw 2 are `RS`, `RR`, `RD2`
# (likewise `Y…`, `G…`, `B…`); the Wilds are `W` (Wild), `WTP` (Wild Team Play) and `WTD4` (Wild
# Team Draw 4). The two copies of a card share its code: naming it means either copy in the
# hand. See /bots/docs/model/#cards.
Card: TypeAlias = Literal[
    "R0",
    "R1",
    "R3",
    "R4",
    "R6",
    "R7",
    "R9",
    "R2",
    "R2P",
    "R5",
    "R5P",
    "R8",
    "R8P",
    "RS",
    "RR",
    "RD2",
    "Y0",
    "Y1",
    "Y3",
    "Y4",
    "Y6",
    "Y7",
    "Y9",
    "Y2",
    "Y2P",
    "Y5",
    "Y5P",
    "Y8",
    "Y8P",
    "YS",
    "YR",
    "YD2",
    "G0",
    "G1",
    "G3",
    "G4",
    "G6",
    "G7",
    "G9",
    "G2",
    "G2P",
    "G5",
    "G5P",
    "G8",
    "G8P",
    "GS",
    "GR",
    "GD2",
    "B0",
    "B1",
    "B3",
    "B4",
    "B6",
    "B7",
    "B9",
    "B2",
    "B2P",
    "B5",
    "B5P",
    "B8",
    "B8P",
    "BS",
    "BR",
    "BD2",
    "W",
    "WTP",
    "WTD4",
]


# A colour: `R` red, `Y` yellow, `G` green, `B` blue.
Color: TypeAlias = Literal["R", "Y", "G", "B"]
