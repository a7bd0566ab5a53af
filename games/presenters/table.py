"""Everything the table screen shows one reader (a seat, or a spectator), and its fragments.

In two parts, so that a push renders what every reader sees alike once, not once per reader:

- `PublicTable`: the position as everyone sees it, from the public view `view(None)` and the
  seats alone: the seat plates, the direction, the piles, the round's result. Each piece is
  rendered at most once, when a reader's fragments first need it.
- `table_context(game, seat, public=...)`: one reader's own part, from `view(seat)` and
  `events_for(events, seat)`: the hand and its controls, the status line, the move log, and
  their own and their partner's plate.

So the page, the HTTP resync and the socket pushes (games.effects) show exactly the same
thing, and nothing that reader may not see: the public part holds nothing hidden from anyone.
"""

import functools
import secrets
from datetime import timedelta

from django.conf import settings
from django.template import engines
from django.template.backends.utils import csrf_input_lazy
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.functional import cached_property
from django.utils.safestring import mark_safe

from games import deadlines, engine, store
from games.models import TEAM_SHAPES, Game, Seat
from games.presenters import fairness
from games.presenters import ratings as rating_views
from games.presenters.cards import COLOR_NAMES, SYMBOLS, card_face, discard_list_html
from games.presenters.describe import row_move, seat_names
from games.store import spectators

# How many event rows the move log reads: on a page or a resync every row, so that the whole
# game can be scrolled back through on the table; in a push only the newest ones, since the
# page keeps the moves it already shows (static/js/table.js carries them over), and a push
# that held the whole game would grow with it for every reader on every move.
LOG_LENGTH = None
PUSH_LOG_ROWS = 40
# When a seat's time is running out (docs/table.md, "Time running out"): the last 10 s of a
# real-time move timer, the last tenth of a turn-by-turn deadline.
WARN_SECONDS = 10
WARN_SHARE = 10


def clock_warning(game, number):
    """Seat `number`'s running clock as the page counts it down: `(due, warn, key)`, the
    ISO times it runs out and from when it is running out, and the clock's identity (seat
    and `since`, so that the page announces each clock's warning once); None without a
    clock. Read from `Game.clocks`, which is public: the page shows it at the right moment
    by itself, and each push or resync hands it the clock as it is then."""
    clock = (game.clocks or {}).get(str(number)) if game.status == Game.Status.ACTIVE else None
    if not clock or not clock.get("due"):
        return None
    due = deadlines.at(clock["due"])
    if game.pace == Game.Pace.REALTIME:
        warn = due - timedelta(seconds=WARN_SECONDS)
    else:
        started = deadlines.at(clock.get("started")) or due - game.decision_window()
        warn = due - (due - started) / WARN_SHARE
    return due.isoformat(), warn.isoformat(), f"{number}-{clock.get('since', 0)}"


def _jinja():
    """The Jinja2 environment (settings.TEMPLATES, config/jinja2.py) the table's live parts
    are rendered with: they are rendered for every move of every table, and Jinja2 compiles a
    template to Python where Django's engine walks its nodes on every render (docs/table.md,
    "Templates")."""
    return engines["jinja2"].env


_loaded = {}  # template name -> (environment, template): see _template


def _template(name):
    """A template of the Jinja2 environment, looked up once per process unless the
    environment reloads changed files (DEBUG): Jinja2's get_template takes a lock and
    reorders its cache on every call, and the table's macros are called a dozen times a
    push (under load that lookup was a tenth of a push's samples: docs/load.md)."""
    env = _jinja()
    if env.auto_reload:
        return env.get_template(name)
    found = _loaded.get(name)
    if found is None or found[0] is not env:  # a new environment (settings changed in a test)
        found = _loaded[name] = (env, env.get_template(name))
    return found[1]


def _parts():
    """templates/jinja2/games/table_parts.html's macros."""
    return _template("games/table_parts.html").module


@functools.lru_cache(maxsize=4096)
def _act_url(prefix, game_id):
    """The move form's address (reverse() was a fifth of table_context's time); keyed by
    the script prefix too, which a request under a sub-path sets."""
    return reverse("games:act", args=[game_id])


@functools.lru_cache(maxsize=4096)
def _verify_url(prefix, game_id):
    """The deal commitment's link, on every push (see _act_url)."""
    return reverse("history:verify", args=[game_id])


def _stand_in_note(game, seat):
    """How the screen says that a bot plays for a person (docs/clocks.md, stand_ins)."""
    stand_in = (game.stand_ins or {}).get(str(seat))
    if not stand_in:
        return ""
    if stand_in.get("reason") == "timeouts":
        return " (a bot plays for them: three time-outs)"
    return " (a bot plays while they are away)"


# --- what every reader sees alike -------------------------------------------------------------


class PublicTable:
    """The table at one position as every reader sees it, each piece rendered at most once.

    Built from `state.view(None)` and the seats only. A push builds one for all the seats
    it renders (games.effects.seat_pushes); a page or a resync builds its own. The plates
    carry no position: the felt places them around the reader by CSS (static/css/table.css,
    `data-me`), so one plate's markup serves every reader but the two it is rendered for
    with a `role` (their own seat, their partner's).
    """

    def __init__(self, game, state, seats, rows):
        self.game, self.state, self.seats, self.rows = game, state, seats, rows
        self.view = view = state.view(None)
        self.players = n = game.players
        self.half = half = n // 2
        self.seq = game.last_seq
        # The log names a seat by who sits there; the plates and the status line add that
        # a bot plays for them.
        self.log_names = seat_names(seats)
        self.log_names_key = tuple(self.log_names.items())
        self.bots = {s.number for s in seats if s.is_bot}
        self.bot_accounts = {s.number for s in seats if s.user_id and s.user.is_bot}
        self.names = {
            number: name if number in self.bots else name + _stand_in_note(game, number)
            for number, name in self.log_names.items()
        }
        # Read once per push: the prefix is a context-local look-up, and every plate and
        # reader's form needs it.
        self.script_prefix = get_script_prefix()
        self.finished = game.status != Game.Status.ACTIVE or bool(view.get("game_over"))
        self.waiting = set(view.get("waiting_on") or [])
        self.choosing = set(view.get("choosing") or [])
        self.picked = set(view.get("picked") or [])
        self.teams = [
            {"team": t, "shape": TEAM_SHAPES[t], "score": view["scores"][t],
             "members": [self.names.get(s, "") for s in range(n) if s % half == t],
             "departed": view["departed"][t]}
            for t in range(half)
        ]
        self._scores_key = tuple((t, TEAM_SHAPES[t], view["scores"][t], view["departed"][t])
                                 for t in range(half))
        # A read of the cache (Redis in production): once per push, not once per reader.
        self.watching = spectators.count(game.pk) if game.spectators else None
        # Play again: the open table a player of this finished game opened after it.
        # A rated game's plates carry each person's rating (one read per push; a casual
        # game, which every game with a bot is, reads nothing).
        self.ratings = rating_views.plate_ratings(game, seats) if game.rated else {}
        self._slotted, self._plates = {}, {}  # this position's plates: see plate()
        self.rematch = (Game.objects.filter(rematch_of=game.pk, status=Game.Status.OPEN)
                        .values_list("pk", flat=True).first()
                        if game.status == Game.Status.FINISHED else None)
        # ...and the seats it still holds for their people, who may decline them there.
        self.rematch_held = (set(Seat.objects.held().filter(game_id=self.rematch)
                                 .values_list("number", flat=True)) if self.rematch else set())

    def name(self, number):
        return self.names.get(number, f"Seat {number + 1}")

    @cached_property
    def plate_data(self):
        view, finished = self.view, self.finished
        # The newest move everyone may see: who made it (the plate of the last player to act
        # is marked) and which partners traded in it, which the counts alone do not show
        # (a setup pass or a symbol swap leaves them as they were; static/js/motion.js
        # slides a card back between the two). A moderator's event names the seat it acted
        # on, not one that acted.
        last, traded = None, set()
        for row in reversed(self.rows):
            seated = [e for e in engine.events_for(row.events, None)
                      if e.get("seat") is not None and e["type"] != "moderator"]
            if seated:
                last = seated[0]["seat"]
                break
        for e in engine.events_for(self.rows[-1].events, None) if self.rows else ():
            if e["type"] in ("setup_pass", "swap"):
                traded.update(e["seats"])
            elif e["type"] == "give":
                traded.update((e["seat"], e["to"]))
        # Time-outs are counted in real time only (a missed turn-by-turn deadline is played
        # by a bot or concedes, and is not counted: games.actions.timeouts), and a plate
        # shows them once there is one (docs/table.md).
        realtime = self.game.pace == Game.Pace.REALTIME
        counts = (self.game.timeouts or {}) if realtime else {}
        limit = settings.TIMEOUTS_BEFORE_BOT
        # A clock is public: the page counts it down and shows when it runs low by itself.
        clocks = {number: (None if finished else clock_warning(self.game, number))
                  or (None, None, None) for number in range(self.players)}
        return [
            _plate_words(self.script_prefix, {
                "number": number,
                "name": self.name(number),
                "team": number % self.half,
                "shape": TEAM_SHAPES[number % self.half],
                "cards": view["hand_sizes"][number],
                "out": view["out"][number],
                "departed": view["departed"][number],
                "to_play": view.get("turn") == number and not finished,
                "waiting": number in self.waiting and not finished,
                "choosing": number in self.choosing and number not in self.picked,
                "has_chosen": number in self.picked,
                "dealer": view.get("dealer") == number,
                "last": number == last,
                "traded": number in traded,
                "timeouts": min(int(counts.get(str(number), 0)), limit),
                "timeouts_limit": limit,
                "due": clocks[number][0],
                "warn": clocks[number][1],
                "clock": clocks[number][2],
                "rating": self.ratings.get(number),
                "bot_account": number in self.bot_accounts,
            })
            for number in range(self.players)
        ]

    def plate(self, number, role=None):
        """Seat `number`'s plate for a reader whose seat it is (`role` "you"), whose
        partner's it is ("partner"), or neither (None): rendered once per push with its
        reader's places as markers, which are filled in here for each role."""
        key = (number, role)
        found = self._plates.get(key)
        if found is None:
            slotted = self._slotted.get(number)
            if slotted is None:
                slotted = self._slotted[number] = _plate(tuple(self.plate_data[number].items()))
            found = self._plates[key] = _fill_slots(slotted, role)
        return found

    def plates_for(self, seat):
        """Every plate in seat order, as reader `seat` (None: a spectator) sees them."""
        partner = None if seat is None else (seat + self.half) % self.players
        return mark_safe("".join(
            self.plate(number, "you" if number == seat else "partner" if number == partner
                       else None)
            for number in range(self.players)
        ))

    def scores(self, yours):
        """The status bar's score of each team, for a reader of team `yours` (None: of none)."""
        return _scores(self._scores_key, yours)

    @cached_property
    def deal_commitment(self):
        """Public from the deal on: an HMAC keyed by the secret, which stays on the server.
        Once per push, like the rest of what every reader sees alike."""
        return fairness.commitment(self.game.pk, self.view["round"], self.game.seed,
                                   self.game.deal_secret)

    @cached_property
    def round_line(self):
        """The status bar's round, target and deal commitment: alike for every reader."""
        return _parts().round_line(
            self.view, self.view["options"].get("target_score"), self.deal_commitment,
            _verify_url(self.script_prefix, self.game.pk) if self.deal_commitment else None,
            self.finished)

    @cached_property
    def direction(self):
        return _parts().direction(self.view)

    @cached_property
    def centre(self):
        view = self.view
        discard = view["discard"]
        return _parts().centre(
            view, card_face(discard[-1]) if discard else None, COLOR_NAMES.get(view.get("color")),
            SYMBOLS.get(view.get("color")), len(discard), discard_list_html(discard))

    @cached_property
    def result(self):
        view, half = self.view, self.half
        result = view.get("round_over") or view.get("last_round")
        rows = []
        if result:
            for number, cards in enumerate(result.get("hands", [])):
                rows.append({
                    "name": self.name(number),
                    "shape": TEAM_SHAPES[number % half], "team": number % half,
                    "cards": [card_face(c) for c in cards],
                    "points": sum(engine.card_points(c) for c in cards),
                })
        ranking = []
        if view.get("game_over"):
            for team, rank in view["game_over"]["ranking"]:
                ranking.append({
                    "team": team, "rank": rank, "shape": TEAM_SHAPES[team],
                    "members": self.teams[team]["members"], "score": view["scores"][team],
                })
        winner = result.get("winner") if result else None
        changes = rating_views.rating_changes(self.game) if ranking and self.game.rated else []
        # A game played as rated that moved no rating says why (games.actions.ratings).
        note = self.game.rating_note if ranking and self.game.rated and not changes else ""
        return _parts().result({
            "seq": self.seq, "view": view, "result": result, "result_rows": rows,
            "result_team": TEAM_SHAPES[winner] if winner is not None else None,
            "teams": self.teams, "ranking": ranking,
            # The ratings' own Django template: shown once a game, not worth a copy.
            "rating_changes_html": (render_to_string("ratings/change.html",
                                                     {"changes": changes, "note": note})
                                    if ranking else ""),
            "verify_url": (reverse("history:verify", args=[self.game.pk])
                           if ranking and fairness.revealed(self.game) else None),
            "lobby_url": reverse("lobby:index") if ranking else None,
        })


# A plate's, the scores' or a hand's card button's markup depends on the arguments of these
# alone, and from one move to the next most plates, the scores and the cards of a hand stay
# as they were: each is rendered once per process, like a card's face, and found again by
# exactly the arguments it was rendered from (so it can hold nothing else, and a plate or
# the scores come from the public view only).


def _plate_words(prefix, p):
    """Adds to plate `p` what its markup says of it whoever reads it: its marks (classes),
    its accessible name around the reader's role, and the one word for its state."""
    marks = "".join(mark for mark, on in (
        (" to-play", p["to_play"]), (" is-out", p["out"]), (" is-departed", p["departed"]),
        (" last-acted", p["last"]), (" just-traded", p["traded"])) if on)
    cards_word = "card" if p["cards"] == 1 else "cards"
    rest = [f", {p['cards']} {cards_word}"]
    if p["out"]:
        rest.append(", out")
    if p["departed"]:
        rest.append(", left the game")
    if p["to_play"]:
        rest.append(", to play")
    if p["timeouts"]:
        rest.append(f", {p['timeouts']} of {p['timeouts_limit']} time-outs")
    if p["rating"]:
        rest.append(f", rating {p['rating']}")
    if p["last"]:
        rest.append(", last to act")
    state = ("left" if p["departed"] else "out" if p["out"] else "to play" if p["to_play"]
             else "has chosen" if p["has_chosen"] else "choosing…" if p["choosing"]
             else "deciding…" if p["waiting"] else "")
    p.update(marks=marks, cards_word=cards_word, label_rest="".join(rest), state=state,
             label_name=p["name"] + (" (bot account)" if p["bot_account"] else ""),
             rules_url=_rules_url(prefix))
    return p


@functools.lru_cache(maxsize=64)
def _rules_url(prefix):
    return reverse("rules")


@functools.lru_cache(maxsize=8192)
def _plate(items):
    """A plate's markup with its reader's places as markers (table_parts.html, plate)."""
    return str(_parts().plate(dict(items)))


PLATE_SLOTS = ("class", "label-name", "label-team", "band", "tag")


@functools.lru_cache(maxsize=8)
def _slot_fills(role):
    """[(marker, what fills it)] for a reader of `role`: the same for every plate."""
    parts = _parts()
    return [(f"<slot:{name}>", str(parts.plate_slot(name, role))) for name in PLATE_SLOTS]


def _fill_slots(slotted, role):
    for marker, fill in _slot_fills(role):
        slotted = slotted.replace(marker, fill)
    return mark_safe(slotted)


@functools.lru_cache(maxsize=1024)
def _scores(teams, yours):
    return _parts().scores(
        [{"team": t, "shape": shape, "score": score, "departed": departed}
         for t, shape, score, departed in teams], yours)


# --- one reader's table -----------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _hand_card(index, code, mode, enabled, playable):
    """One card button of a hand (see _plate)."""
    card = card_face(code)
    card.update(id=f"card-{index}-{code}", enabled=enabled, playable=playable)
    return _parts().hand_card(card, mode)


@functools.lru_cache(maxsize=64)
def _colour_choice(code):
    """A playable Wild's four colour buttons (see _plate): the same for every reader."""
    return _parts().colour_choice(
        card_face(code),
        [{"code": c, "name": COLOR_NAMES[c], "symbol": SYMBOLS[c]} for c in "RYGB"])


def _wild_choice(code):
    return dict(card_face(code), choice=_colour_choice(code))


def _log(rows, seat, public):
    """The move log as `seat` reads it: one `<li class="move">` per event row it may see,
    newest first, the newest marked `latest`; and the newest row's lines, for the live
    region. Each row's item comes from describe's per-reader cache, so a push renders only
    the rows this reader has not read yet and joins the rest."""
    items, lines = [], ()
    for row in rows:
        lines, item = row_move(row, seat, public.log_names, public.log_names_key,
                               public.players)
        if item:
            items.append(item)
    if items:
        items[-1] = items[-1].replace('<li class="move"', '<li class="move latest"', 1)
    return mark_safe("".join(reversed(items))), list(lines)


def _completes_trade(row, seat):
    """Whether event row `row` completed a trade `seat` took part in: its setup pass or
    symbol swap (their own "traded" event), or a half pass or tag-in they gave or received."""
    for event in row.events:
        kind = event.get("type")
        if kind == "traded" and event.get("seat") == seat:
            return True
        if kind == "gave" and seat in (event.get("seat"), event.get("to")):
            return True
    return False


def table_context(game, seat, *, state=None, rows=None, seats=None, public=None):
    """Everything the table template needs for `seat` (None: a spectator).

    `public` is the position's PublicTable when the caller renders several readers of it
    (a push); without it one is built here, reading the game's snapshot (unless `state`
    is given), the game's event rows (unless `rows`; LOG_LENGTH) and the seats (unless
    `seats`). Nothing here looks at another seat's view.
    """
    if public is None:
        if state is None:
            state = store.load_state(game)
        if seats is None:
            seats = store.table_seats(game.pk)
        if rows is None:
            rows = store.recent_events(game.pk, LOG_LENGTH)
        public = PublicTable(game, state, seats, rows)
    state, rows = public.state, public.rows
    view = public.view if seat is None else state.view(seat)
    half = public.half
    names = public.names

    log_html, announce = _log(rows, seat, public)
    # The hand's "You gave ... You received ..." belongs to the move that completed the
    # trade: it shows while that move is the newest and goes with the next move by anyone
    # (docs/table.md); the log keeps the trade's line.
    just_traded = seat is not None and bool(rows) and _completes_trade(rows[-1], seat)

    legal = state.legal_actions(seat) if seat is not None else []
    playable = {a["card"] for a in legal if a["type"] == "play"}
    wild_playable = sorted({a["card"] for a in legal if a["type"] == "play" and a.get("color")})
    kinds = {a["type"] for a in legal}
    finished = public.finished
    decision = view.get("decision")
    waiting, choosing, picked = public.waiting, public.choosing, public.picked

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
        if mode == "play":
            enabled = code in playable
        elif mode == "pick":
            enabled = code in pickable
        else:
            enabled = mode == "give"
        hand.append({"code": code, "enabled": enabled,
                     "button": _hand_card(index, code, mode, enabled,
                                          mode == "play" and code in playable)})

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
    show_deadline = bool(game.deadline_at) and not finished and bool(waiting - public.bots)
    # The reader's own clock and their partner's: the page warns them both when either runs
    # low (a spectator and the other players see it on the plate only; docs/table.md).
    clock_warnings = {}
    if seat is not None:
        partner = (seat + half) % public.players
        for number, role in ((seat, "you"), (partner, "partner")):
            plate = public.plate_data[number]
            if plate["due"]:
                clock_warnings[role] = {"role": role, "name": public.log_names.get(number, ""),
                                        "due": plate["due"], "warn": plate["warn"],
                                        "clock": plate["clock"], "pace": game.pace}
    return {
        "game": game,
        "seq": public.seq,
        "seat": seat,
        "me": seat if seat is not None else 0,  # at the bottom of the felt
        "view": view,
        "public": public,
        "plates_html": public.plates_for(seat),
        "scores_html": public.scores(None if seat is None else seat % half),
        "hand": hand,
        "hand_html": mark_safe("".join(card["button"] for card in hand)),
        "mode": mode,
        # The one pick button says which trade it makes (its id stays btn-pick).
        "pick_label": "Swap card" if decision == "swap" else "Pass card",
        "decision": decision,
        "bot_for_good": bot_for_good,
        "can_draw": "draw" in kinds and not bot_for_good,
        "can_pass": "pass_turn" in kinds and not bot_for_good,
        "can_take": "take_penalty" in kinds and not bot_for_good,
        "wild_playable": [] if bot_for_good else [_wild_choice(c) for c in wild_playable],
        "can_concede": (seat is not None and not finished and not view["departed"][seat]
                        and not bot_for_good),
        "finished": finished,
        "play_again": seat is not None and game.status == Game.Status.FINISHED,
        "again_url": (reverse("games:again", args=[game.pk])
                      if seat is not None and game.status == Game.Status.FINISHED else None),
        "rules_url": _rules_url(public.script_prefix),
        "rematch": public.rematch,
        "decline_url": (reverse("lobby:decline", args=[public.rematch])
                        if seat in public.rematch_held else None),
        "my_turn_label": my_turn_label,
        "turn_name": turn_name,
        "waiting_names": [names.get(s) for s in sorted(waiting) if s != seat],
        "choosing_names": [names.get(s) for s in sorted(choosing - picked)],
        "picked_names": [names.get(s) for s in sorted(picked)],
        "my_pick": card_face(view["my_pick"]) if view.get("my_pick") else None,
        "received": [card_face(c) for c in view.get("received") or []] if just_traded else [],
        "gave": [card_face(c) for c in view.get("gave") or []] if just_traded else [],
        "deadline": game.deadline_at if show_deadline else None,
        "watching": public.watching,
        "deadline_mine": show_deadline and seat in waiting,
        "clock_mine": clock_warnings.get("you"),
        "clock_partner": clock_warnings.get("partner"),
        "log_html": log_html,
        "announce": announce,
        "key": secrets.token_hex(16),
        "act_url": _act_url(public.script_prefix, game.pk),  # once, not once per form
    }


def render_fragments(context, request=None):
    """The live fragments as one HTML string of out-of-band swaps (stable ids): the push, the
    resync and the page itself (games/table.html places it) render them here. A push has no
    request, so its forms carry no CSRF field: table.js sends moves on the socket, and a
    form it posts takes the field from the page."""
    template = _template("games/fragments.html")
    return mark_safe(template.render(
        {**context, "csrf_input": csrf_input_lazy(request) if request is not None else ""}))


