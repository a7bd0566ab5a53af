"""The middle of the felt: the direction of play, and the piles (the discard pile's top card
and the colour to follow, the draw pile), and the discard pile's list, from the public view
alone."""

from markupsafe import Markup

from games.engine.types import SeatView
from games.presenters.cards import COLOR_NAMES, SYMBOLS, card_face, discard_list_html
from games.presenters.table import render


def direction(view: SeatView) -> Markup:
    return render.parts().direction(view)


def piles(view: SeatView) -> Markup:
    discard, color = view["discard"], view.get("color")
    return render.parts().piles(
        view,
        card_face(discard[-1]) if discard else None,
        None if color is None else COLOR_NAMES.get(color),
        None if color is None else SYMBOLS.get(color),
    )


def discard_summary(view: SeatView) -> Markup:
    return render.parts().discard_summary(len(view["discard"]))


def discard_cards(view: SeatView) -> Markup:
    return render.parts().discard_cards(discard_list_html(view["discard"]))


def discard_list(summary: Markup, cards: Markup) -> Markup:
    """The browsable discard pile, folded under its summary (the count)."""
    return (
        Markup('<details class="discard-list" id="discard-list">')
        + summary
        + cards
        + Markup("</details>")
    )
