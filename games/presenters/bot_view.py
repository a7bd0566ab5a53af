"""What a bot account's seat is told, over HTTP (GET /api/bot/games/{id}) and on its stream
(games.bot_stream): one function, so that both say the same and neither says more than
the engine's view(seat) and legal_actions(seat) (docs/bot-accounts.md)."""

from games import store
from games.store import seats
from games.models import Game


def seat_state(game, seat, state=None):
    """{game, seat, seq, status, view, legal, your_turn, deadline_at, site_bot} for `seat`
    of `game` as its rows are now. `view` is None before the deal; `legal` is [] unless the
    game is being played. `your_turn`: the seat has a decision to make now (a legal action,
    or cards to give, which `legal` never lists: view.must_give says how many). `site_bot`:
    three time-outs handed the seat to a site bot for the rest of the game, so a decision
    sent for it is refused. The caller reads `game` and its snapshot in one transaction so
    that `seq` and `view` agree."""
    view, legal = None, []
    if game.status != Game.Status.OPEN:
        state = state or store.load_state(game)
        view = state.view(seat)
        if game.status == Game.Status.ACTIVE:
            legal = state.legal_actions(seat)
    site_bot = seats.for_good(game, seat)
    playing = game.status == Game.Status.ACTIVE and not (view or {}).get("game_over")
    return {
        "game": game.pk,
        "seat": seat,
        "seq": game.last_seq,
        "status": game.status,
        "view": view,
        "legal": legal,
        "your_turn": playing and not site_bot and bool(legal or (view or {}).get("must_give")),
        "deadline_at": game.deadline_at.isoformat() if game.deadline_at else None,
        "site_bot": site_bot,
    }
