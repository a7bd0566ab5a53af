"""Everything the table screen shows one seat (or a spectator), and its fragments.

Built by `table_context` from `view(seat)` and `events_for(events, seat)` alone, so the
page, the HTTP resync and the socket pushes (games.effects) show exactly the same thing
and nothing more.
"""

import functools
import math
import uuid

from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe

from games import engine, store
from games.models import TEAM_SHAPES, Game
from games.presenters.cards import COLOR_NAMES, SYMBOLS, card_face, discard_list_html
from games.presenters.describe import row_lines
from games.store import spectators

LOG_LENGTH = 40
# Which template partials make up the live part of the page, in the order they are sent.
FRAGMENTS = ("status", "seats", "hand", "result", "log", "announce")



@functools.lru_cache(maxsize=4096)
def _act_url(prefix, game_id):
    """The move form's address (reverse() was a fifth of table_context's time); keyed by
    the script prefix too, which a request under a sub-path sets."""
    return reverse("games:act", args=[game_id])


# --- the whole table for one seat -------------------------------------------------------------


def _seat_position(number, me, players):
    """Percent coordinates on the felt: `me` at the bottom, clockwise from there."""
    angle = math.radians(90 + (number - me) * 360 / players)
    return round(50 + 44 * math.cos(angle), 2), round(50 + 41 * math.sin(angle), 2)


def _stand_in_note(game, seat):
    """How the screen says that a bot plays for a person (docs/clocks.md, stand_ins)."""
    stand_in = (game.stand_ins or {}).get(str(seat))
    if not stand_in:
        return ""
    if stand_in.get("reason") == "timeouts":
        return " (a bot plays for them: three time-outs)"
    return " (a bot plays while they are away)"


# --- the two hottest loops of the fragments, built here ------------------------------------
# A push renders the fragments once per seat; the seat plates and the hand's card buttons
# were most of the template's time (docs/load.md). These give exactly the markup the
# template's loops gave (tests/games/test_fragment_markup.py compares them).


def _plural(count):
    return "" if count == 1 else "s"


_STATES = (  # the first that applies, as the template's if/elif chain had it
    ("departed", '<span class="state">left</span>\n        '),
    ("out", '<span class="state">out</span>\n        '),
    ("to_play", '<span class="state turn">to play</span>\n        '),
    ("has_chosen", '<span class="state chosen">has chosen</span>\n        '),
    ("choosing", '<span class="state">choosing…</span>\n        '),
    ("waiting", '<span class="state">deciding…</span>'),
)


def players_html(players):
    """The seat plates (the `seats` partial's list items)."""
    parts = []
    for p in players:
        name, shape, cards = escape(p["name"]), escape(p["shape"]), p["cards"]
        state = next((text for key, text in _STATES if p[key]), "")
        parts.append(
            f'\n    <li class="plate team-{p["team"]}{" you" if p["you"] else ""}'
            f'{" to-play" if p["to_play"] else ""}{" is-out" if p["out"] else ""}'
            f'{" is-departed" if p["departed"] else ""}"\n'
            f'        style="--x: {p["x"]}%; --y: {p["y"]}%" id="seat-{p["number"]}"\n'
            f'        aria-label="{name}{" (you)" if p["you"] else ""}, team {shape}'
            f'{", your partner" if p["partner"] else ""}, {cards} card{_plural(cards)}'
            f'{", out" if p["out"] else ""}{", left the game" if p["departed"] else ""}'
            f'{", to play" if p["to_play"] else ""}">\n'
            f'      <div class="band"><svg class="shape shape-{shape}" aria-hidden="true">'
            f'<use href="#shape-{shape}"></use></svg><span class="team-name">Team {shape}</span>\n'
            f'        {_PARTNER_MARK if p["partner"] else ""}\n'
            f'        {_DEALER_MARK if p["dealer"] else ""}</div>\n'
            f'      <div class="who"><span class="name">{name}</span>'
            f'{_YOU_TAG if p["you"] else ""}</div>\n'
            f'      <div class="meta">\n'
            f'        <span class="count" title="cards in hand">{cards}<span class="visually-hidden">'
            f' card{_plural(cards)}</span></span>\n'
            f'        {state}\n'
            f'      </div>\n'
            f'    </li>\n    '
        )
    return mark_safe("".join(parts))


_PARTNER_MARK = ('<svg class="rings" aria-hidden="true"><use href="#sym-rings"></use></svg>'
                 '<span class="visually-hidden">your partner</span>')
_DEALER_MARK = '<span class="dealer" title="dealer">D</span>'
_YOU_TAG = ' <span class="tag">you</span>'


def hand_html(hand, mode):
    """The hand's card buttons (the `hand` partial's list items)."""
    if not hand:
        return mark_safe('<li class="empty">No cards.</li>\n      ')
    parts = []
    for card in hand:
        ident, name, code = escape(card["id"]), escape(card["name"]), escape(card["code"])
        disabled = "" if card["enabled"] else " disabled"
        if mode == "play":
            if card["wild"] and card["enabled"]:
                button = (f'<button type="button" class="card hand-card playable" id="{ident}" '
                          f'aria-label="{name}" data-wild="{code}" aria-expanded="false" '
                          f'aria-controls="colours-{code}">{card["html"]}</button>\n        \n      ')
            else:
                button = (f'<button type="submit" class="card hand-card'
                          f'{" playable" if card["playable"] else ""}" id="{ident}" name="play" '
                          f'value="{code}" aria-label="{name}"{disabled}>{card["html"]}</button>\n      ')
        elif mode in ("pick", "give"):
            button = (f'<button type="button" class="card hand-card choosable" id="{ident}" '
                      f'aria-label="{name}" aria-pressed="false" data-code="{code}"{disabled}>'
                      f'{card["html"]}</button>\n      ')
        else:
            button = (f'<button type="button" class="card hand-card" id="{ident}" '
                      f'aria-label="{name}" disabled>{card["html"]}</button>')
        parts.append(f"\n      <li>{button}</li>\n      ")
    return mark_safe("".join(parts))


def table_context(game, seat, *, state=None, rows=None, seats=None):
    """Everything the table template needs for `seat` (None: a spectator).

    Reads the game's snapshot (unless `state` is given), the last LOG_LENGTH
    event rows (unless `rows`) and the seats (unless `seats`). Nothing here
    looks at another seat's view.
    """
    if state is None:
        state = store.load_state(game)
    view = state.view(seat)
    n = game.players
    half = n // 2
    if seats is None:
        seats = store.table_seats(game.pk)
    # Bots are told apart by seat: three "Bot (Easy)" would make the log unreadable.
    names = {
        s.number: f"Bot {s.number + 1} ({s.get_bot_level_display()})" if s.is_bot
        else s.label() + _stand_in_note(game, s.number)
        for s in seats
    }
    bots = {s.number for s in seats if s.is_bot}
    if rows is None:
        rows = store.recent_events(game.pk, LOG_LENGTH)

    log = []
    names_key = tuple(names.items())
    for row in rows:
        for text, html in row_lines(row, seat, names, names_key, half):
            log.append({"seq": row.seq, "text": text, "html": html})
    log = log[-LOG_LENGTH:]
    latest = rows[-1].seq if rows else 0
    announce = [line["text"] for line in log if line["seq"] == latest]

    legal = state.legal_actions(seat) if seat is not None else []
    playable = {a["card"] for a in legal if a["type"] == "play"}
    wild_playable = sorted({a["card"] for a in legal if a["type"] == "play" and a.get("color")})
    kinds = {a["type"] for a in legal}
    finished = game.status != Game.Status.ACTIVE or bool(view.get("game_over"))
    decision = view.get("decision")
    me = seat if seat is not None else 0
    waiting = set(view.get("waiting_on") or [])
    choosing = set(view.get("choosing") or [])
    picked = set(view.get("picked") or [])

    players = []
    for number in range(n):
        x, y = _seat_position(number, me, n)
        players.append({
            "number": number,
            "name": names.get(number, f"Seat {number + 1}"),
            "bot": number in bots,
            "team": number % half,
            "shape": TEAM_SHAPES[number % half],
            "cards": view["hand_sizes"][number],
            "out": view["out"][number],
            "departed": view["departed"][number],
            "to_play": view.get("turn") == number and not finished,
            "waiting": number in waiting and not finished,
            "choosing": number in choosing and number not in picked,
            "has_chosen": number in picked,
            "you": number == seat,
            "partner": seat is not None and number == (seat + half) % n,
            "dealer": view.get("dealer") == number,
            "x": x, "y": y,
        })

    # Three time-outs hand a seat to a bot for the rest of the game: its person may watch
    # their hand but not move (the write door refuses it too).
    bot_for_good = (seat is not None
                    and (game.stand_ins or {}).get(str(seat), {}).get("reason") == "timeouts")
    mode = None  # what the hand's buttons do now
    if seat is not None and not finished and not bot_for_good:
        if view.get("must_give"):
            mode = "give"
        elif any(a["type"] == "pass" for a in legal):
            mode = "pick"
        elif legal:
            mode = "play"
    pickable = {a["card"] for a in legal if a["type"] == "pass"}
    hand = []
    for index, code in enumerate(view.get("hand", [])):
        face = card_face(code)
        if mode == "play":
            face["enabled"] = code in playable
        elif mode == "pick":
            face["enabled"] = code in pickable
        elif mode == "give":
            face["enabled"] = True
        else:
            face["enabled"] = False
        face["id"] = f"card-{index}-{code}"
        face["playable"] = mode == "play" and code in playable
        hand.append(face)

    result = view.get("round_over") or view.get("last_round")
    result_rows = []
    if result:
        for number, cards in enumerate(result.get("hands", [])):
            result_rows.append({
                "name": names.get(number, f"Seat {number + 1}"),
                "shape": TEAM_SHAPES[number % half], "team": number % half,
                "cards": [card_face(c) for c in cards],
                "points": sum(engine.card_points(c) for c in cards),
            })
    ranking = []
    if view.get("game_over"):
        for team, rank in view["game_over"]["ranking"]:
            ranking.append({
                "team": team, "rank": rank, "shape": TEAM_SHAPES[team],
                "members": [names.get(s, "") for s in range(n) if s % half == team],
                "score": view["scores"][team],
            })

    teams = [
        {"team": t, "shape": TEAM_SHAPES[t], "score": view["scores"][t],
         "members": [names.get(s, "") for s in range(n) if s % half == t],
         "departed": view["departed"][t], "yours": seat is not None and seat % half == t}
        for t in range(half)
    ]
    my_turn_label = None
    if seat is not None and not finished and not bot_for_good:
        if mode == "give":
            my_turn_label = f"Give {view['must_give']} card{'s' if view['must_give'] != 1 else ''} to your partner"
        elif mode == "pick":
            my_turn_label = ("Choose a card to pass to your partner" if decision == "setup"
                             else "Choose a card to swap with your partner")
        elif "take_penalty" in kinds:
            my_turn_label = f"A penalty of {view['penalty']} waits for you: stack or take it"
        elif mode == "play":
            my_turn_label = "Your turn"
    turn_name = None
    if view.get("turn") is not None and not finished:
        turn_name = "You" if view["turn"] == seat else names.get(view["turn"])
    show_deadline = bool(game.deadline_at) and not finished and bool(waiting - set(bots))
    discard = view["discard"]
    return {
        "game": game,
        "seq": game.last_seq,
        "seat": seat,
        "view": view,
        "players": players,
        "players_html": players_html(players),
        "teams": teams,
        "hand": hand,
        "hand_html": hand_html(hand, mode),
        "mode": mode,
        "pick_label": "Pass card",
        "decision": decision,
        "bot_for_good": bot_for_good,
        "can_draw": "draw" in kinds and not bot_for_good,
        "can_pass": "pass_turn" in kinds and not bot_for_good,
        "can_take": "take_penalty" in kinds and not bot_for_good,
        "wild_playable": [] if bot_for_good else [card_face(c) for c in wild_playable],
        "colors": [{"code": c, "name": COLOR_NAMES[c], "symbol": SYMBOLS[c]} for c in "RYGB"],
        "can_concede": (seat is not None and not finished and not view["departed"][seat]
                        and not bot_for_good),
        "finished": finished,
        "my_turn_label": my_turn_label,
        "turn_name": turn_name,
        "waiting_names": [names.get(s) for s in sorted(waiting) if s != seat],
        "choosing_names": [names.get(s) for s in sorted(choosing - picked)],
        "picked_names": [names.get(s) for s in sorted(picked)],
        "my_pick": card_face(view["my_pick"]) if view.get("my_pick") else None,
        "received": [card_face(c) for c in view.get("received") or []],
        "gave": [card_face(c) for c in view.get("gave") or []],
        "top": card_face(discard[-1]) if discard else None,
        "discard_pile": [card_face(c) for c in discard],
        "discard_html": discard_list_html(discard),
        "color_name": COLOR_NAMES.get(view.get("color")),
        "color_symbol": SYMBOLS.get(view.get("color")),
        "deadline": game.deadline_at if show_deadline else None,
        "watching": spectators.count(game.pk) if game.spectators else None,
        "deadline_mine": show_deadline and seat in waiting,
        "result": result,
        "result_rows": result_rows,
        "result_team": TEAM_SHAPES[result["winner"]] if result and result.get("winner") is not None else None,
        "ranking": ranking,
        "log": log,
        # The lines as markup, newest move first, each move's own steps in the order
        # they happened: 40 cached escaped strings joined here beat a template loop.
        "log_html": mark_safe("".join(
            line["html"] for line in sorted(log, key=lambda line: -line["seq"]))),
        "announce": announce,
        "key": uuid.uuid4().hex,
        "act_url": _act_url(get_script_prefix(), game.pk),  # once, not once per form
        "target_score": view["options"].get("target_score"),
    }


def render_fragments(context, request=None):
    """The live fragments as one HTML string of out-of-band swaps (stable ids)."""
    return render_to_string("games/table.html#fragments", context, request=request)


