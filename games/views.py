"""The table screen: one page per game, its fragments, and the form that acts.

Everything a seat sees is built by `table_context` from `view(seat)` and
`events_for(events, seat)` alone, so the page, the HTTP resync and the socket
pushes (games.notify) show exactly the same thing and nothing more.
"""

import functools
import json
import math
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from games import engine, services, spectators, store
from games.engine.cards import COLOR as CARD_COLOR
from games.engine.cards import KIND as CARD_KIND
from games.models import TEAM_SHAPES, Game, GameEvent

LOG_LENGTH = 40
COLOR_NAMES = {"R": "Red", "Y": "Yellow", "G": "Green", "B": "Blue"}
SYMBOLS = {"R": "flame", "Y": "sun", "G": "leaf", "B": "wave"}
ACTION_MARKS = {"S": "⊘", "R": "⇄", "D2": "+2"}
# Which template partials make up the live part of the page, in the order they are sent.
FRAGMENTS = ("status", "seats", "hand", "result", "log", "announce")


def _get_game_for_user(request, game_id):
    """(game, seat number or None for a spectator); PermissionDenied for others."""
    game = get_object_or_404(
        Game.objects.select_related("snapshot").exclude(status=Game.Status.OPEN), pk=game_id
    )
    seat = game.seats.filter(user=request.user).values_list("number", flat=True).first()
    if seat is None and not (game.spectators and not game.private):
        raise PermissionDenied("You are not playing at this table.")
    return game, seat


# --- cards -------------------------------------------------------------------------------


def card_face(code):
    """How to draw one card: colour, symbol, the big mark, passing badge, its name and markup.

    A fresh dict each call (callers add `enabled`, `id`...) from a cache per card code: the
    face depends on the code alone, so drawing it once per process is enough.
    """
    return dict(_card_face(code))


@functools.cache
def _card_face(code):
    color = CARD_COLOR[code]
    if color is None:
        mark = {"W": "W", "WTP": "TP", "WTD4": "+4"}[code]
        face = {"code": code, "name": engine.card_name(code), "color": "W", "symbol": "wild",
                "mark": mark, "passing": False, "wild": True,
                "caption": {"W": "Wild", "WTP": "Team Play", "WTD4": "Team Draw 4"}[code]}
    else:
        rest = code[1:].rstrip("P")
        passing = code.endswith("P") and rest.isdigit()
        mark = ACTION_MARKS.get(rest, rest)
        caption = {"S": "Skip", "R": "Reverse", "D2": "Draw 2"}.get(rest, "")
        face = {"code": code, "name": engine.card_name(code), "color": color,
                "symbol": SYMBOLS[color], "mark": mark, "passing": passing, "wild": False,
                "caption": caption, "kind": CARD_KIND[code]}
    face["html"] = _face_html(face)
    face["mini"] = format_html('<li class="mini c-{}">{}</li>', face["color"], face["name"])
    return face


def _face_html(card):
    """The card's face (the markup the template used to build per card, per seat, per push)."""
    return format_html(
        '<span class="face c-{}{}" aria-hidden="true"><span class="corner">{}</span>'
        '<svg class="sym"><use href="#sym-{}"></use></svg><span class="big">{}</span>{}{}</span>',
        card["color"], " wild" if card["wild"] else "", card["mark"], card["symbol"], card["mark"],
        format_html('<span class="caption">{}</span>', card["caption"]) if card["caption"] else "",
        mark_safe('<span class="pass-badge" title="passing symbol"><svg><use href="#sym-passing">'
                  '</use></svg></span>') if card["passing"] else "",
    )


def discard_list_html(discard):
    """The browsable discard pile, oldest first: one cached <li> per card code."""
    return mark_safe("".join(_card_face(code)["mini"] for code in discard))


# --- the move log ------------------------------------------------------------------------


def _cards(codes):
    names = [engine.card_name(c) for c in codes]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def describe(event, seat, names, teams):
    """One line of the move log for `seat`, from an event that seat may see.

    Only fields of the event itself are used, and `events_for` has already
    dropped what the seat may not see, so no hidden card can reach the text.
    """
    kind = event["type"]
    who = event.get("seat")

    def name(s):
        if s is None:
            return "Nobody"
        return "you" if s == seat else names.get(s, f"Seat {s + 1}")

    def subject(s):
        text = name(s)
        return text[:1].upper() + text[1:]

    def team(t):
        return f"Team {TEAM_SHAPES[t]}" if t is not None else "No team"

    if kind == "deal":
        return (f"Round {event['round']}: {subject(event['dealer'])} dealt; the first card is "
                f"{engine.card_name(event['starter'])}.")
    if kind == "hand":
        return f"You were dealt {_cards(event['cards'])}."
    if kind == "picked":
        what = "a card to pass" if event.get("kind") == "setup" else "a card to swap"
        return f"{subject(who)} {'have' if who == seat else 'has'} chosen {what}."
    if kind == "pick":
        return f"You chose {engine.card_name(event['card'])} to give your partner."
    if kind in ("setup_pass", "swap"):
        seats = event.get("seats", [])
        pairs = []
        for s in seats:
            partner = (s + len(names) // 2) % len(names) if names else s
            if s < partner and partner in seats:
                pairs.append(f"{subject(s)} and {name(partner)}")
        verb = "passed each other a card" if kind == "setup_pass" else "swapped a card"
        return f"{'; '.join(pairs) or 'Partners'} {verb}."
    if kind == "traded":
        return (f"You gave {engine.card_name(event['gave'])} and received "
                f"{engine.card_name(event['received'])}.")
    if kind == "play":
        text = f"{subject(who)} played {engine.card_name(event['card'])}"
        if CARD_COLOR.get(event["card"]) is None and event.get("color"):
            text += f" and chose {COLOR_NAMES[event['color']]}"
        return text + "."
    if kind == "draw":
        count = event.get("count", 1)
        what = "a card" if count == 1 else f"{count} cards"
        why = {"penalty": " as a penalty", "team_play": " for a Team Play",
               "final": " for the final-card penalty"}.get(event.get("reason"), "")
        return f"{subject(who)} drew {what}{why}."
    if kind == "drew":
        return f"You drew {_cards(event['cards'])}."
    if kind == "reshuffle":
        return f"The discard pile was shuffled into a new draw pile of {event['size']} cards."
    if kind == "give":
        count = event.get("count", 0)
        return (f"{subject(who)} gave {name(event.get('to'))} {count} card{'s' if count != 1 else ''}"
                f"{' to bring them back in' if event.get('reason') == 'tag_in' else ''}.")
    if kind == "gave":
        if who == seat:
            return f"You gave {name(event['to'])} {_cards(event['cards'])}."
        return f"{subject(who)} gave you {_cards(event['cards'])}."
    if kind == "out":
        return f"{subject(who)} {'are' if who == seat else 'is'} out."
    if kind == "in":
        return f"{subject(who)} {'are' if who == seat else 'is'} back in."
    if kind == "skip":
        return f"{subject(who)} {'lose' if who == seat else 'loses'} a turn."
    if kind == "reverse":
        way = "clockwise" if event.get("direction") == 1 else "counter-clockwise"
        return f"Play now goes {way}."
    if kind == "penalty":
        total = event.get("total")
        return f"A penalty{f' of {total}' if total else ''} is aimed at {name(who)}."
    if kind == "team_play":
        return f"{subject(who)}'s partner must play next."
    if kind == "pass_turn":
        return f"{subject(who)} passed."
    if kind == "concede":
        return f"{team(event.get('team'))} conceded."
    if kind == "round_over":
        if event.get("blocked"):
            return f"The round is blocked. {team(event.get('winner'))} scores {event['points']}."
        return f"{team(event.get('winner'))} wins the round and scores {event['points']} points."
    if kind == "game_over":
        return f"Game over. {team(event.get('winner'))} wins."
    if kind == "round_start":
        return f"Round {event['round']} begins; {name(event.get('dealer'))} deals."
    return kind.replace("_", " ").capitalize() + "."


# A push describes the last LOG_LENGTH event rows for every seat, and all but one of them
# were described for that seat by the push before (docs/load.md, fourth round). The lines of
# one row for one seat are kept here, keyed by the row's stored JSON text itself (with the
# row's number, the seat and the seat names the lines use), not by its game and number
# alone: a key can only ever give back what describing that very text for that very seat
# gives, so no line can reach another seat or outlive a change of its row. Bounded: the
# oldest half goes when full.
_LOG_CACHE = {}
LOG_CACHE_SIZE = 40_000


def _row_log(row, seat, names, names_key, half):
    """((text, <li> markup), ...) of one event row for `seat`, from cache when it can."""
    raw = getattr(row, "raw", None)
    if raw is None:  # rows read without their JSON text (SQLite): described each time
        return _describe_row(row.events, row.seq, seat, names, half)
    key = (raw, row.seq, seat, names_key, half)
    lines = _LOG_CACHE.get(key)
    if lines is None:
        lines = _describe_row(row.events, row.seq, seat, names, half)
        if len(_LOG_CACHE) >= LOG_CACHE_SIZE:
            for old in list(_LOG_CACHE)[:LOG_CACHE_SIZE // 2]:
                _LOG_CACHE.pop(old, None)
        _LOG_CACHE[key] = lines
    return lines


def _describe_row(events, seq, seat, names, half):
    lines = []
    for event in engine.events_for(events, seat):
        text = describe(event, seat, names, half)
        lines.append((text, f'<li data-seq="{seq}">{escape(text)}</li>'))
    return tuple(lines)


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
        state = services.load_state(game)
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
        for text, html in _row_log(row, seat, names, names_key, half):
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


# --- views -------------------------------------------------------------------------------------


@login_required
def play(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    context = table_context(game, seat)
    if request.htmx:
        # A resync (reconnect or a gap in the pushes): every fragment at once.
        return render(request, "games/table.html#fragments", context)
    return render(request, "games/table.html", context)


ACTION_KEYS = {"type", "card", "color", "cards"}
MAX_GIVE = 120  # more cards than any hand can hold


def _code(value):
    return isinstance(value, str) and 0 < len(value) <= 8 and value.isalnum() and value.isascii()


def clean_action(action):
    """`action` if it has the shape of an engine action (ENGINE_CONTRACT.md), else None.

    The engine ignores keys it does not know and the event row keeps the action as
    sent, so a form or a socket message could otherwise store anything (a megabyte, a
    NUL that PostgreSQL's jsonb refuses) in the game's log. Whether the move is legal
    is still the engine's to say.
    """
    if not isinstance(action, dict) or not set(action) <= ACTION_KEYS:
        return None
    kind = action.get("type")
    if not (isinstance(kind, str) and 0 < len(kind) <= 20 and kind.replace("_", "").isalpha()
            and kind.isascii()):
        return None
    if "card" in action and action["card"] is not None and not _code(action["card"]):
        return None
    if "color" in action and not _code(action["color"]):
        return None
    if "cards" in action:
        cards = action["cards"]
        if not isinstance(cards, list) or len(cards) > MAX_GIVE or not all(map(_code, cards)):
            return None
    return action


def _parse_action(post):
    """The engine action a form describes, or None."""
    return clean_action(_form_action(post))


def _form_action(post):
    if "give" in post:
        return {"type": "give", "cards": post.getlist("cards")}
    if "pick" in post:
        cards = post.getlist("cards")
        return {"type": "pass", "card": cards[0]} if len(cards) == 1 else {"type": "pass", "card": None}
    if post.get("concede"):
        return {"type": "concede"}
    if post.get("play"):
        action = {"type": "play", "card": post["play"]}
        if post.get("color"):
            action["color"] = post["color"]
        return action
    simple = post.get("do")
    if simple in ("draw", "pass_turn", "take_penalty"):
        return {"type": simple}
    raw = post.get("action")
    if raw:
        try:
            action = json.loads(raw)
        except (ValueError, RecursionError):  # thousands of nested brackets: no move's shape
            return None
        return action if isinstance(action, dict) else None
    return None


# How a refused move is answered (docs/security.md): a bad move is the sender's fault (400);
# a move the game's state no longer allows is a conflict (409); anything else is refused (403).
REFUSED_STATUS = {
    services.IllegalDecision: 400,
    services.GameNotActive: 409,
    services.StaleDecision: 409,
    services.IdempotencyConflict: 409,
    services.DecisionNotSaved: 503,  # the database connection was lost: try again
}


@login_required
@require_POST
def act(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    if seat is None:
        raise PermissionDenied("Spectators cannot play.")
    action = _parse_action(request.POST)
    key = (request.POST.get("key") or "")[:40] or None
    error, status = None, 200
    try:
        if action is None:
            raise services.IllegalDecision("That is not a move.")
        if key is not None and not key.isprintable():
            raise services.IllegalDecision("That form is damaged; reload the page.")
        services.apply_decision(
            game.pk, seat, action, GameEvent.Actor.PERSON, user=request.user,
            idempotency_key=key and f"u{request.user.pk}-{key}",
        )
    except services.DecisionRefused as exc:
        error = str(exc)
        status = REFUSED_STATUS.get(type(exc), 403)
    if not request.htmx and error is None:
        return redirect("games:play", game_id=game.pk)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    context = table_context(game, seat)
    if request.htmx:
        # The fragments, with the reason in the status bar; table.js shows a refused
        # answer's fragments too.
        context["error"] = error
        return render(request, "games/table.html#fragments", context, status=status)
    messages.error(request, error)
    return render(request, "games/table.html", context, status=status)
