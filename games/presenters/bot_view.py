"""What a bot account's seat is told, over HTTP (GET /api/bot/games/{id}) and on its stream
(games.bot_stream): one function, so that both say the same and neither says more than
the engine's view(seat) and legal_actions(seat) (docs/bot-accounts.md)."""

from typing import TypedDict

from games import store
from games.engine import GameState
from games.engine.types import Action, SeatView
from games.models import Game
from games.store import seats


class SeatState(TypedDict):
    game: int
    seat: int
    seq: int
    status: str
    view: SeatView | None
    legal: list[Action]
    your_turn: bool
    deadline_at: str | None
    site_bot: bool


def seat_state(game: Game, seat: int, state: GameState | None = None) -> SeatState:
    """{game, seat, seq, status, view, legal, your_turn, deadline_at, site_bot} for `seat`
    of `game` as its rows are now. `view` is None before the deal; `legal` is [] unless the
    game is being played. `your_turn`: the seat has a decision to make now (a legal action,
    or cards to give, which `legal` never lists: view.must_give says how many). `site_bot`:
    three time-outs handed the seat to a site bot for the rest of the game, so a decision
    sent for it is refused. The caller reads `game` and its snapshot in one transaction so
    that `seq` and `view` agree."""
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
    }
