"""What a bot account's seat is told, over HTTP (GET /api/bot/games/{id}) and on its stream
(games.bot_stream): one function, so that both say the same and neither says more than
the engine's view(seat) and legal_actions(seat) (docs/bot-accounts.md)."""

from typing import TypedDict

from django.conf import settings

from games import store
from games.engine import GameState
from games.engine.types import Action, SeatView
from games.models import Game
from games.store import seats


class Condition(TypedDict):
    """The seat's condition (docs/clocks.md): its own clock, its time-outs, its stand-in and
    its disconnect hold, as the game's row says at the state's `seq`."""

    clock_due: str | None
    timeouts: int
    timeout_limit: int | None
    stand_in: str | None
    stand_in_since: str | None
    hold_until: str | None


class SeatState(Condition):
    game: int
    seat: int
    seq: int
    status: str
    view: SeatView | None
    legal: list[Action]
    your_turn: bool
    deadline_at: str | None
    site_bot: bool


def condition(game: Game, seat: int) -> Condition:
    """The seat's own condition at its table: when its clock runs out (`clock_due`, None
    when it has none running: nothing to decide, or a bot decides for it), its time-outs
    so far and how many hand it to a site bot for good (real time), who plays it now
    (`stand_in`: None, its holder; "away": a site bot until the holder is back, after a
    disconnect hold ran out; "timeouts": a site bot for the rest of the game) and when a
    running disconnect hold ends (`hold_until`)."""
    due = seats.due(game, seat)
    entry = seats.stand_in(game, seat)
    hold_until = seats.presence(game, seat)["hold_until"] if entry is None else None
    return {
        "clock_due": due.isoformat() if due else None,
        "timeouts": seats.timeouts_of(game, seat),
        # Only a real-time seat is handed away for its time-outs.
        "timeout_limit": (
            settings.TIMEOUTS_BEFORE_BOT if game.pace == Game.Pace.REALTIME else None
        ),
        "stand_in": entry["reason"] if entry else None,
        "stand_in_since": entry["since"] if entry else None,
        "hold_until": hold_until,
    }


def seat_state(game: Game, seat: int, state: GameState | None = None) -> SeatState:
    """{game, seat, seq, status, view, legal, your_turn, deadline_at, site_bot} and the
    seat's `condition` for `seat` of `game` as its rows are now. `view` is None before the
    deal; `legal` is [] unless the game is being played. `your_turn`: the seat has a
    decision to make now (a legal action, or cards to give, which `legal` never lists:
    view.must_give says how many). `site_bot`: three time-outs handed the seat to a site
    bot for the rest of the game, so a decision sent for it is refused. The caller reads
    `game` and its snapshot in one transaction so that `seq` and `view` agree."""
    view: SeatView | None = None
    legal: list[Action] = []
    if game.status != Game.Status.OPEN:
        state = state or store.load_state(game)
        view = state.view(seat)
        if game.status == Game.Status.ACTIVE:
            legal = state.legal_actions(seat)
    site_bot = seats.for_good(game, seat)
    playing = game.status == Game.Status.ACTIVE and not (view and view.get("game_over"))
    must_give = bool(view and view.get("must_give"))
    now = condition(game, seat)
    return {
        "game": game.pk,
        "seat": seat,
        "seq": game.last_seq,
        "status": game.status,
        "view": view,
        "legal": legal,
        "your_turn": playing and not site_bot and bool(legal or must_give),
        "deadline_at": game.deadline_at.isoformat() if game.deadline_at else None,
        "site_bot": site_bot,
        "clock_due": now["clock_due"],
        "timeouts": now["timeouts"],
        "timeout_limit": now["timeout_limit"],
        "stand_in": now["stand_in"],
        "stand_in_since": now["stand_in_since"],
        "hold_until": now["hold_until"],
    }
