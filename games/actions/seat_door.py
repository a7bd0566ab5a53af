"""The seat door: a decision sent for a seat, whichever way it came, is parsed once, submitted
once and its refusal answered from one table.

A seat is reached four ways, each an adapter of a few lines around this module:

- the table's form (games.views.table): its reader is `person_at` (the session); the move
  comes as form fields; a refusal is answered with its HTTP status, the reason in the
  table's status bar;
- the table socket (games.consumers, games.act_frames): `person_at`, when it connected; an
  `act` frame; an error frame;
- the Bot API's POST (games.api.routes.play): `program_at` (the bot token); a JSON body; the HTTP
  status and `{"detail": reason}`;
- the Bot API's stream (games.bot_stream, games.act_frames): `program_at`, when it
  connected; an `act` frame; an error frame.

Each adapter takes its reader, hands the move to `decide` (or `decide_frame`) and answers
with `refusal(exc)`. Whether the game may take the move now, and whether the reader still
holds the seat, is judged by the write door (games.actions.decisions.apply_decision) under
the game's lock: a socket's reader was built when it connected and its game row is as it
was then. A refusal whose `recheck` is set makes a socket or stream check its access again;
it closes with one of the CLOSE_* codes below if the check fails.
"""

from dataclasses import dataclass
from typing import Final, TypedDict

from games.actions import decisions, moves
from games.actions.access import PERSON, PROGRAM, Kind, Reader
from games.engine.types import Action
from games.models import GameEvent

# Why a socket or a stream was closed, as the page (static/js/table.js) and a program read it.
# The server cannot carry on (Redis lost): reconnect. Not 1011: Daphne's websocket library
# lets an application close only with 1000 or 3000-4999, and raised on 1011 instead.
CLOSE_SERVER_ERROR: Final = 4503
# A socket: no session, or it ended (log-out, a new password, expiry).
CLOSE_LOGGED_OUT: Final = 4401
# A stream: no token, an unknown or revoked one, or an account that may not play.
CLOSE_BAD_TOKEN: Final = 4401
CLOSE_FORBIDDEN: Final = 4403  # this user may not listen at this table
CLOSE_NO_SEAT: Final = 4404  # a stream: the bot holds no seat at this game (or no such game)
CLOSE_SEAT_LOST: Final = 4410  # the seat is no longer the reader's (moved, removed, taken over)
CLOSE_RESTRICTED: Final = 4423  # the account is banned or suspended
CLOSE_TOO_MANY: Final = 4429  # a stream: the bot account has its API_STREAMS_PER_BOT open
# The account's event stream: its `since` is no event id.
CLOSE_BAD_REQUEST: Final = 4400

# Why a Bot API stream closed, in words: sent in a `closing` frame just before the close, and
# as the close frame's reason. Daphne (4.2) drops an application's close reason and sends the
# code alone, so the frame is what a program can count on; a server that keeps the reason
# sends it as well. A close frame's reason holds at most 123 bytes: these are shorter.
CLOSE_REASONS: Final[dict[int, str]] = {
    CLOSE_BAD_REQUEST: "since is the id of an event you were sent: a whole number from 0.",
    CLOSE_BAD_TOKEN: "No valid bot token: send 'Authorization: Bearer <token>' of a live token.",
    CLOSE_NO_SEAT: "This bot account holds no seat at this game.",
    CLOSE_SEAT_LOST: "This seat is no longer this bot account's.",
    CLOSE_TOO_MANY: "This bot account has too many streams open: close one first.",
    CLOSE_SERVER_ERROR: "The server cannot carry on with this stream: reconnect shortly.",
}


class ClosingFrame(TypedDict):
    type: str
    code: int
    reason: str


def closing_frame(code: int) -> ClosingFrame:
    """What a Bot API stream sends just before it closes with `code`: the code and why."""
    return {"type": "closing", "code": code, "reason": CLOSE_REASONS[code]}


NOT_A_MOVE: Final[dict[Kind, str]] = {
    PERSON: "That is not a move.",
    PROGRAM: "That is not a move: see the action shapes at /bots/docs/model/#actions.",
    "spectator": "That is not a move.",
}
BAD_KEY: Final = (
    f"Every move needs its key, 1 to {moves.MAX_KEY} printable characters: "
    "reload the page, or send the move again with one."
)
BAD_SEQ: Final = (
    "seq, when sent, is the number of the game's last event as your state showed it: "
    "a whole number from 0."
)
MAX_SEQ: Final = 2**31 - 1  # event numbers are PostgreSQL integers
SPECTATOR: Final = "Spectators cannot play."
OTHER_SEAT: Final = "You can only make moves for your own seat."

# The prefix of a decision's idempotency key, by the kind of its sender: a page may resend a
# move over its form or its socket alike, a program over HTTP or its stream alike, and it
# is made once; a program never sends a page's key, nor a page a program's.
_KEY_PREFIX: Final[dict[Kind, str]] = {PERSON: "u", PROGRAM: "api"}


@dataclass(frozen=True)
class Move:
    """A decision as its sender sent it, once its shape is checked."""

    action: Action
    key: str | None  # the sender's own key (None: a form sent without one)
    expected_seq: int | None = None  # refuse it unless the game's last event is this one


@dataclass(frozen=True)
class Refusal:
    """How a refused decision is answered: the HTTP status of the form and the Bot API, and
    whether a socket or stream checks its access again. The reason is `str(exc)`, the same
    in an HTTP answer and an error frame (`error_frame`)."""

    status: int
    recheck: bool = False


# A bad move is the sender's fault (400); a move the game's state no longer allows is a
# conflict (409); a lost database connection is worth a retry (503); anything else (the seat
# lost, a site bot playing it for good, a spectator's move) is refused (403).
REFUSALS: Final[dict[type[decisions.DecisionRefused], Refusal]] = {
    decisions.IllegalDecision: Refusal(400),
    decisions.GameNotActive: Refusal(409),
    decisions.StaleDecision: Refusal(409),
    # A seq the game has not reached was never read from it: the sender's mistake, not a
    # race (a stale seq is a race: 409), so a program can tell the two apart.
    decisions.FutureSeq: Refusal(400),
    decisions.IdempotencyConflict: Refusal(409),
    decisions.DecisionNotSaved: Refusal(503),
    decisions.SeatLost: Refusal(403, recheck=True),
    decisions.SeatTakenOver: Refusal(403),
    decisions.DecisionRefused: Refusal(403),
}


def refusal(exc: decisions.DecisionRefused) -> Refusal:
    """The answer to `exc`: its class's row, or its nearest base class's."""
    for kind in type(exc).__mro__:
        if kind in REFUSALS:
            return REFUSALS[kind]
    return REFUSALS[decisions.DecisionRefused]


class ErrorFrame(TypedDict):
    type: str
    message: str
    key: str | None


def error_frame(message: str, key: object) -> ErrorFrame:
    """A socket's or stream's answer to a message it refused: the reason, and the sender's
    key when the message carried a valid one (so that it knows which move was refused)."""
    return {"type": "error", "message": message, "key": moves.clean_key(key)}


def parse_move(
    reader: Reader,
    action: object,
    key: object,
    *,
    key_needed: bool = True,
    expected_seq: int | None = None,
) -> Move:
    """The move `reader` sent, if it is one; IllegalDecision (400) with the reason if not.
    A spectator's move is refused (403) before its shape is looked at."""
    if not reader.may_act:
        raise decisions.DecisionRefused(SPECTATOR)
    if key is not None or key_needed:
        if moves.clean_key(key) is None:
            raise decisions.IllegalDecision(BAD_KEY)
    clean = moves.clean_action(action)
    if clean is None:
        raise decisions.IllegalDecision(NOT_A_MOVE[reader.kind])
    return Move(clean, moves.clean_key(key), expected_seq)


def submit(reader: Reader, move: Move) -> decisions.DecisionResult:
    """`move` through the write door for `reader`'s seat. A seat's holder, a person or a
    program, acts as PERSON: a bot account's seat is a person's seat played by a program,
    timed out and handed to a site bot like anyone's."""
    assert reader.seat is not None  # parse_move refused a spectator's move
    key = None if move.key is None else f"{_KEY_PREFIX[reader.kind]}{reader.user_id}-{move.key}"
    return decisions.apply_decision(
        reader.game.pk,
        reader.seat,
        move.action,
        GameEvent.Actor.PERSON,
        user=reader.user,
        idempotency_key=key,
        expected_seq=move.expected_seq,
    )


def decide(
    reader: Reader,
    action: object,
    key: object,
    *,
    key_needed: bool = True,
    expected_seq: int | None = None,
) -> decisions.DecisionResult:
    """Parse and submit: the whole way of one decision through the door. Raises
    DecisionRefused (answer it with `refusal`)."""
    move = parse_move(reader, action, key, key_needed=key_needed, expected_seq=expected_seq)
    return submit(reader, move)


def frame_seq(content: dict[str, object]) -> int | None:
    """The `seq` of an act frame (None when it sends none), as the HTTP body's `seq` is
    checked; IllegalDecision (400) if it is no event number."""
    seq = content.get("seq")
    if seq is None:
        return None
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= MAX_SEQ:
        raise decisions.IllegalDecision(BAD_SEQ)
    return seq


def decide_frame(reader: Reader, content: dict[str, object]) -> decisions.DecisionResult:
    """An `act` frame of a socket or stream, `{"type": "act", "action": ..., "key": ...,
    "seq": n?}`: a frame that names a seat names the reader's own; a `seq` is honoured as
    the HTTP body's is (decisions.still_valid)."""
    if reader.may_act and "seat" in content and content["seat"] != reader.seat:
        raise decisions.DecisionRefused(OTHER_SEAT)
    return decide(
        reader, content.get("action"), content.get("key"), expected_seq=frame_seq(content)
    )
