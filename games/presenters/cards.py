"""How a card is drawn: its colour, symbol, mark and caption, and its markup.

A card's face depends on its code alone, so each is rendered once per process
(templates/games/cards.html).
"""

import functools
from collections.abc import Iterable
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from games import engine
from games.engine.cards import COLOR as CARD_COLOR
from games.engine.cards import COLOR_NAMES as COLOR_NAMES
from games.engine.cards import KIND as CARD_KIND

# COLOR_NAMES (imported above as itself, which says it is re-exported: what the presenters
# use) is the engine's own, as its card names spell a colour ("Red 8"): a chosen colour, a
# colour button and the log never spell one differently.
SYMBOLS = {"R": "flame", "Y": "sun", "G": "leaf", "B": "wave"}
ACTION_MARKS = {"S": "⊘", "R": "⇄", "D2": "+2"}


def card_face(code: str) -> dict[str, Any]:
    """How to draw one card: colour, symbol, the big mark, passing badge, its name and markup.

    A fresh dict each call (callers add `enabled`, `id`...) from a cache per card code: the
    face depends on the code alone, so drawing it once per process is enough.
    """
    return dict(_card_face(code))


@functools.cache
def _card_face(code: str) -> dict[str, Any]:
    color = CARD_COLOR[code]
    face: dict[str, Any]
    if color is None:
        mark = {"W": "W", "WTP": "TP", "WTD4": "+4"}[code]
        face = {
            "code": code,
            "name": engine.card_name(code),
            "color": "W",
            "symbol": "wild",
            "mark": mark,
            "passing": False,
            "wild": True,
            "caption": {"W": "Wild", "WTP": "Team Play", "WTD4": "Team Draw 4"}[code],
        }
    else:
        rest = code[1:].rstrip("P")
        passing = code.endswith("P") and rest.isdigit()
        mark = ACTION_MARKS.get(rest, rest)
        caption = {"S": "Skip", "R": "Reverse", "D2": "Draw 2"}.get(rest, "")
        face = {
            "code": code,
            "name": engine.card_name(code),
            "color": color,
            "symbol": SYMBOLS[color],
            "mark": mark,
            "passing": passing,
            "wild": False,
            "caption": caption,
            "kind": CARD_KIND[code],
        }
    face["html"] = render_to_string("games/cards.html#face", {"card": face})
    face["mini"] = render_to_string("games/cards.html#mini", {"card": face})
    return face


def discard_list_html(discard: Iterable[str]) -> SafeString:
    """The browsable discard pile, oldest first: one cached <li> per card code."""
    return mark_safe("".join(_card_face(code)["mini"] for code in discard))
