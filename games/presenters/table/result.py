"""The round's result and, at the end, the game's: every hand left and its points, the
ranking, the rating changes and the links that follow a finished game."""

from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string
from django.urls import reverse
from markupsafe import Markup, escape

from games import engine
from games.engine.types import RoundResult, SeatView
from games.models import TEAM_SHAPES, Game
from games.presenters import fairness
from games.presenters import ratings as rating_views
from games.presenters.cards import card_face
from games.presenters.table import render

if TYPE_CHECKING:  # public.py imports this module for the result
    from games.presenters.table.public import PublicTable


def result(public: "PublicTable") -> Markup:
    """The result fragment, alike for every reader (table_parts.html, result)."""
    view, game = public.view, public.game
    outcome = view.get("round_over") or view.get("last_round")
    ranking = _ranking(view, public.teams)
    winner = outcome.get("winner") if outcome else None
    return render.parts().result(
        {
            "seq": public.seq,
            "view": view,
            "result": outcome,
            "result_rows": _hands(public, outcome),
            "result_team": TEAM_SHAPES[winner] if winner is not None else None,
            "teams": public.teams,
            "ranking": ranking,
            "rating_changes_html": _rating_changes(game) if ranking else "",
            "verify_url": (
                reverse("history:verify", args=[game.pk])
                if ranking and fairness.revealed(game)
                else None
            ),
            "lobby_url": reverse("lobby:index") if ranking else None,
        }
    )


# Where the result's headline goes: the result is rendered once for every reader, and the
# headline, which speaks from the reader's side, is filled in for each team (PublicTable).
HEADLINE_SLOT = "<slot:headline>"


def headline(public: "PublicTable", team: int | None) -> str:
    """The result's first line from the side of a reader of `team` (None: a spectator):
    "Your team won the game", "Your team lost the round", "Team circle won the game";
    a team that conceded reads that it did. "" while no round has just ended."""
    view = public.view
    over, ended = view.get("game_over"), view.get("round_over")
    if over:
        winner, what = over.get("winner"), "the game"
    elif ended:
        winner, what = ended.get("winner"), "the round"
    else:
        return ""
    lines = []
    if team is not None and view["departed"][team]:
        lines.append("Your team conceded this game.")
    if winner is None:
        lines.append(f"No team won {what}." if over else "Nobody won the round: it was blocked.")
    elif team is None:
        lines.append(f"Team {TEAM_SHAPES[winner]} won {what}.")
    else:
        lines.append(f"Your team {'won' if winner == team else 'lost'} {what}.")
    won = " won" if team is not None and winner == team else ""
    return (
        f'<p class="headline{won}" id="result-headline">'
        + " ".join(str(escape(line)) for line in lines)
        + "</p>"
    )


def _hands(public: "PublicTable", outcome: RoundResult | None) -> list[dict[str, Any]]:
    """Every seat's hand at the end of the round and what it counts against them."""
    half = public.half
    return [
        {
            "name": public.name(number),
            "shape": TEAM_SHAPES[number % half],
            "team": number % half,
            "cards": [card_face(c) for c in cards],
            "points": sum(engine.card_points(c) for c in cards),
        }
        for number, cards in enumerate(outcome.get("hands", []) if outcome else [])
    ]


def _ranking(view: SeatView, teams: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The teams in their final places, once the game is over (else [])."""
    over = view.get("game_over")
    if not over:
        return []
    return [
        {
            "team": team,
            "rank": rank,
            "shape": TEAM_SHAPES[team],
            "members": teams[team]["members"],
            "score": view["scores"][team],
        }
        for team, rank in over["ranking"]
    ]


def _rating_changes(game: Game) -> str:
    """The ratings' own Django template: shown once a game, not worth a copy."""
    changes = rating_views.rating_changes(game) if game.rated else []
    # A game played as rated that moved no rating says why (games.actions.ratings).
    note = game.rating_note if game.rated and not changes else ""
    return render_to_string("ratings/change.html", {"changes": changes, "note": note})
