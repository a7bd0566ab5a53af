"""One reader's hand and what they may do with it: the card buttons, what those buttons do
now (`mode`), the controls (draw, pass, take the penalty, a Wild's colours, concede, play
again), the line that says it is their move, and the cards a trade just moved.

From the reader's own view and their legal actions only. A card button's and a Wild's
colour choice's markup depends on their arguments alone: each is rendered once per process
and found again by exactly those arguments (as a plate is: plates.py).
"""

import functools
from collections.abc import Collection, Sequence
from typing import Any

from django.urls import reverse
from django.utils.safestring import mark_safe
from markupsafe import Markup

from games import engine
from games.engine.types import Action, SeatView
from games.models import Game, GameEvent
from games.presenters.cards import COLOR_NAMES, SYMBOLS, card_face
from games.presenters.table import render
from games.presenters.table.public import PublicTable
from games.store import EventRow, seats


def hand_context(
    game: Game, seat: int | None, view: SeatView, public: PublicTable
) -> dict[str, Any]:
    """The keys of the hand fragment for reader `seat` (None: a spectator, who holds none)."""
    legal = public.state.legal_actions(seat) if seat is not None else []
    kinds = {a["type"] for a in legal}
    bot_for_good = _bot_for_good(game, seat)
    acting = seat is not None and not public.finished and not bot_for_good
    mode = _mode(view, legal) if acting else None
    received = received_since_last_move(public.rows, seat) if seat is not None else []
    hand = _cards(view, legal, mode, received)
    decision, my_pick = view.get("decision"), view.get("my_pick")
    return {
        "hand": hand,
        "hand_html": mark_safe("".join(card["button"] for card in hand)),
        "mode": mode,
        # The one pick button says which trade it makes (its id stays btn-pick).
        "pick_label": "Swap card" if decision == "swap" else "Pass card",
        "decision": decision,
        "my_turn_label": _turn_label(view, mode, kinds) if acting else None,
        "can_concede": acting and seat is not None and not view["departed"][seat],
        "my_pick": card_face(my_pick) if my_pick else None,
        "any_received": any(card["received"] for card in hand),
        # A team that conceded holds no cards while the others may play on (at 6 or 8):
        # the hand says so, and the way out.
        "conceded": seat is not None and view["departed"][seat],
        "lobby_url": render.lobby_url(public.script_prefix),
        **_controls(legal, kinds, bot_for_good),
        **_trade(view, seat, public.rows),
        **_play_again(game, seat, public),
    }


def _bot_for_good(game: Game, seat: int | None) -> bool:
    """Three time-outs hand a seat to a bot for the rest of the game: its person may watch
    their hand but not move (the write door refuses it too)."""
    return seat is not None and seats.for_good(game, seat)


def _controls(
    legal: Sequence[Action], kinds: Collection[str], bot_for_good: bool
) -> dict[str, Any]:
    """The buttons beside the hand: none while a bot plays the seat for good."""
    playing = not bot_for_good
    return {
        "bot_for_good": bot_for_good,
        "can_draw": "draw" in kinds and playing,
        "can_pass": "pass_turn" in kinds and playing,
        "can_take": "take_penalty" in kinds and playing,
        "wild_playable": _wild_choices(legal) if playing else [],
    }


def _mode(view: SeatView, legal: Sequence[Action]) -> str | None:
    """What the hand's buttons do now: give cards, pick one to trade, play one, or nothing."""
    if view.get("must_give"):
        return "give"
    if any(a["type"] == "pass" for a in legal):
        return "pick"
    return "play" if legal else None


def _cards(
    view: SeatView, legal: Sequence[Action], mode: str | None, received: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The hand's cards, each with whether its button is enabled, whether a trade brought it
    in since the reader's last move (`received`, one mark per card received), and the button
    itself."""
    playable = {a["card"] for a in legal if a["type"] == "play"}
    pickable = {a["card"] for a in legal if a["type"] == "pass"}
    by_mode: dict[str | None, set[str]] = {"play": playable, "pick": pickable}
    enabled_in = by_mode.get(mode)
    unmarked = list(received)
    hand: list[dict[str, Any]] = []
    for index, code in enumerate(view.get("hand", [])):
        enabled = code in enabled_in if enabled_in is not None else mode == "give"
        new = code in unmarked
        if new:
            unmarked.remove(code)
        hand.append(
            {
                "code": code,
                "enabled": enabled,
                "received": new,
                "button": _hand_card(
                    index, code, mode, enabled, mode == "play" and code in playable, new
                ),
            }
        )
    return hand


def received_since_last_move(rows: Sequence[EventRow | GameEvent], seat: int) -> list[str]:
    """The cards trades brought `seat` since their own last move (a setup pass, a symbol
    swap, a half pass or tag-in they received), read from the events they may see in the
    rows the presenter already holds (no query). A row is a seat's move when its first
    seated event is theirs, as the plates read it (plates.last_moves); that row counts too
    when it completed a trade of theirs (their pick finished a swap). A new deal ends it."""
    found: list[str] = []
    for row in reversed(rows):
        seen = engine.events_for(row.events, seat)
        for event in seen:
            kind = event.get("type")
            if kind == "traded" and event.get("seat") == seat:
                found.append(event["received"])
            elif kind == "gave" and event.get("to") == seat:
                found.extend(event["cards"])
        seated = [e for e in seen if e.get("seat") is not None and e["type"] != "moderator"]
        if any(e["type"] == "hand" for e in seated) or (seated and seated[0]["seat"] == seat):
            break
    return found


def _turn_label(view: SeatView, mode: str | None, kinds: Collection[str]) -> str | None:
    """The line that tells a reader it is their move, and what it is."""
    if mode == "give":
        count = view["must_give"]
        return f"Give {count} card{'s' if count != 1 else ''} to your partner"
    if mode == "pick":
        return (
            "Choose a card to pass to your partner"
            if view.get("decision") == "setup"
            else "Choose a card to swap with your partner"
        )
    if "take_penalty" in kinds:
        return f"A penalty of {view['penalty']} waits for you: stack or take it"
    return "Your turn" if mode == "play" else None


def _trade(
    view: SeatView, seat: int | None, rows: Sequence[EventRow | GameEvent]
) -> dict[str, list[dict[str, Any]]]:
    """The hand's "You gave ... You received ...": it belongs to the move that completed the
    trade, shows while that move is the newest and goes with the next move by anyone
    (docs/table.md); the log keeps the trade's line."""
    just_traded = seat is not None and bool(rows) and _completes_trade(rows[-1], seat)
    if not just_traded:
        return {"received": [], "gave": []}
    return {
        "received": [card_face(c) for c in view.get("received") or []],
        "gave": [card_face(c) for c in view.get("gave") or []],
    }


def _completes_trade(row: EventRow | GameEvent, seat: int) -> bool:
    """Whether event row `row` completed a trade `seat` took part in: its setup pass or
    symbol swap (their own "traded" event), or a half pass or tag-in they gave or received."""
    for event in row.events:
        kind = event.get("type")
        if kind == "traded" and event.get("seat") == seat:
            return True
        if kind == "gave" and seat in (event.get("seat"), event.get("to")):
            return True
    return False


def _play_again(game: Game, seat: int | None, public: PublicTable) -> dict[str, Any]:
    """A finished game's players may play again, or join (or decline) the table a player
    of it opened after it."""
    again = seat is not None and game.status == Game.Status.FINISHED
    return {
        "play_again": again,
        "again_url": reverse("games:again", args=[game.pk]) if again else None,
        "rules_url": render.rules_url(public.script_prefix),
        "rematch": public.rematch,
        "decline_url": (
            reverse("lobby:decline", args=[public.rematch]) if seat in public.rematch_held else None
        ),
    }


def _wild_choices(legal: Sequence[Action]) -> list[dict[str, Any]]:
    """The playable Wilds, each with its four colour buttons."""
    wilds = sorted({a["card"] for a in legal if a["type"] == "play" and a.get("color")})
    return [dict(card_face(code), choice=_colour_choice(code)) for code in wilds]


@functools.lru_cache(maxsize=8192)
def _hand_card(
    index: int, code: str, mode: str | None, enabled: bool, playable: bool, received: bool = False
) -> Markup:
    """One card button of a hand."""
    card = card_face(code)
    card.update(id=f"card-{index}-{code}", enabled=enabled, playable=playable, received=received)
    return render.parts().hand_card(card, mode)


@functools.lru_cache(maxsize=64)
def _colour_choice(code: str) -> Markup:
    """A playable Wild's four colour buttons: the same for every reader."""
    return render.parts().colour_choice(
        card_face(code), [{"code": c, "name": COLOR_NAMES[c], "symbol": SYMBOLS[c]} for c in "RYGB"]
    )
