"""The middle of the felt: the direction of play, and the piles (the discard pile's top card
and the colour to follow, the draw pile), from the public view alone."""

from games.presenters.cards import COLOR_NAMES, SYMBOLS, card_face, discard_list_html
from games.presenters.table import render


def direction(view):
    return render.parts().direction(view)


def centre(view):
    discard = view["discard"]
    return render.parts().centre(
        view, card_face(discard[-1]) if discard else None, COLOR_NAMES.get(view.get("color")),
        SYMBOLS.get(view.get("color")), len(discard), discard_list_html(discard))
