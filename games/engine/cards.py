"""The 112-card Teams deck: card codes, points, hand order and what may be played on what.

Everything here is a constant table built once at import, so the hot paths of the engine
(legal moves, playing a card) are dictionary look-ups rather than string parsing.
"""

from collections.abc import Iterable

COLORS = ("R", "Y", "G", "B")
COLOR_NAMES = {"R": "Red", "Y": "Yellow", "G": "Green", "B": "Blue"}
WILDS = ("W", "WTP", "WTD4")
WILD_NAMES = {"W": "Wild", "WTP": "Wild Team Play", "WTD4": "Wild Team Draw 4"}
ACTION_NAMES = {"S": "Skip", "R": "Reverse", "D2": "Draw 2"}

# Kinds of card, as small ints for fast dispatch.
NUMBER, PASSING, SKIP, REVERSE, DRAW2, WILD, TEAM_PLAY, TEAM_DRAW4 = range(8)


def _build_deck() -> tuple[str, ...]:
    deck: list[str] = []
    for c in COLORS:
        deck.append(c + "0")
        for d in "134679":
            deck += [c + d, c + d]
        for d in "258":
            deck += [c + d, c + d + "P"]
        for a in ("S", "R", "D2"):
            deck += [c + a, c + a]
    for w in WILDS:
        deck += [w] * 4
    return tuple(deck)


DECK = _build_deck()
CODES = tuple(dict.fromkeys(DECK))

COLOR: dict[str, str | None] = {}  # code -> colour letter, None for Wilds
# code -> what it matches by: the digit, "S", "R", "D2", or the Wild's own code
FACE: dict[str, str] = {}
KIND: dict[str, int] = {}
POINTS: dict[str, int] = {}
RANK: dict[str, int] = {}  # position in the rule book's hand order
NAME: dict[str, str] = {}

for _code in CODES:
    if _code in WILDS:
        COLOR[_code] = None
        FACE[_code] = _code
        KIND[_code] = {"W": WILD, "WTP": TEAM_PLAY, "WTD4": TEAM_DRAW4}[_code]
        POINTS[_code] = 50
        RANK[_code] = 400 + WILDS.index(_code)
        NAME[_code] = WILD_NAMES[_code]
        continue
    _c, _rest = _code[0], _code[1:]
    COLOR[_code] = _c
    _ci = COLORS.index(_c)
    if _rest in ACTION_NAMES:
        FACE[_code] = _rest
        KIND[_code] = {"S": SKIP, "R": REVERSE, "D2": DRAW2}[_rest]
        POINTS[_code] = 20
        RANK[_code] = _ci * 100 + 20 + ("S", "R", "D2").index(_rest)
        NAME[_code] = f"{COLOR_NAMES[_c]} {ACTION_NAMES[_rest]}"
    else:
        _digit = _rest[0]
        _passing = _rest.endswith("P")
        FACE[_code] = _digit
        KIND[_code] = PASSING if _passing else NUMBER
        POINTS[_code] = int(_digit)
        RANK[_code] = _ci * 100 + int(_digit) * 2 + _passing
        NAME[_code] = f"{COLOR_NAMES[_c]} {_digit}" + (" with passing symbol" if _passing else "")

IS_WILD = frozenset(WILDS)
IS_NUMBER = frozenset(c for c in CODES if KIND[c] in (NUMBER, PASSING))
IS_DRAW2 = frozenset(c for c in CODES if KIND[c] == DRAW2)

# PLAYABLE[(face of the top card, colour in play)] = the codes that may be played on it.
PLAYABLE: dict[tuple[str, str | None], frozenset[str]] = {}
for _face in set(FACE.values()):
    for _c in COLORS:
        PLAYABLE[(_face, _c)] = frozenset(
            code for code in CODES if code in IS_WILD or COLOR[code] == _c or FACE[code] == _face
        )


def card_points(code: str) -> int:
    """What a card left in hand counts: its number, 20 for an action, 50 for any Wild."""
    try:
        return POINTS[code]
    except (KeyError, TypeError):
        raise ValueError(f"{code!r} is not a card") from None


def sort_hand(codes: Iterable[str]) -> list[str]:
    """The rule book's hand order: Red, Yellow, Green, Blue; numbers (a passing-symbol card
    straight after its plain twin), Skip, Reverse, Draw 2; then Wild, Team Play, Team Draw 4."""
    try:
        return sorted(codes, key=RANK.__getitem__)
    except (KeyError, TypeError):
        bad = [c for c in codes if not isinstance(c, str) or c not in RANK]
        raise ValueError(f"{bad[0]!r} is not a card") from None


def card_name(code: str) -> str:
    """A card as a person says it: 'Red 7', 'Blue 8 with passing symbol', 'Wild Team Play'."""
    return NAME.get(code, str(code))
