"""The seats around the felt: each seat's plate (its name, cards, marks, clock and the one
word for its state) and the status bar's team scores, from the public view alone.

A plate's or the scores' markup depends on the arguments of `render_plate` and `scores`
alone, and from one move to the next most plates and the scores stay as they were: each is
rendered once per process, like a card's face, and found again by exactly the arguments it
was rendered from (so it can hold nothing else, and comes from the public view only). The
plates carry no position: the felt places them around the reader by CSS
(static/css/table.css, `data-me`).
"""

import functools
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from markupsafe import Markup

from games import deadlines, engine
from games.engine.types import SeatView
from games.models import TEAM_SHAPES, Game, GameEvent
from games.presenters.table import render
from games.store import EventRow, seats

if TYPE_CHECKING:  # public.py imports this module to draw its plates
    from games.presenters.table.public import PublicTable

# When a seat's time is running out (docs/table.md, "Time running out"): the last 10 s of a
# real-time move timer, the last tenth of a turn-by-turn deadline.
WARN_SECONDS = 10
WARN_SHARE = 10

# What the status bar's scores are drawn from (scores_key): (team, shape, score, departed).
ScoresKey = tuple[tuple[int, str, int, bool], ...]


def clock_warning(game: Game, number: int) -> tuple[str, str, str] | None:
    """Seat `number`'s running clock as the page counts it down: `(due, warn, key)`, the
    ISO times it runs out and from when it is running out, and the clock's identity (seat
    and `since`, so that the page announces each clock's warning once); None without a
    clock. Read from `Game.clocks`, which is public: the page shows it at the right moment
    by itself, and each push or resync hands it the clock as it is then."""
    clock = seats.clock(game, number) if game.status == Game.Status.ACTIVE else None
    due = deadlines.at(clock.get("due")) if clock else None
    if clock is None or due is None:
        return None
    if game.pace == Game.Pace.REALTIME:
        warn = due - timedelta(seconds=WARN_SECONDS)
    else:
        started = deadlines.at(clock.get("started")) or due - game.decision_window()
        warn = due - (due - started) / WARN_SHARE
    return due.isoformat(), warn.isoformat(), f"{number}-{clock.get('since', 0)}"


def stand_in_note(game: Game, seat: int) -> str:
    """How the screen says that a bot plays for a person (docs/clocks.md, stand_ins)."""
    if not seats.stand_in(game, seat):
        return ""
    if seats.for_good(game, seat):
        return " (a bot plays for them: three time-outs)"
    return " (a bot plays while they are away)"


def last_moves(rows: Sequence[EventRow | GameEvent]) -> tuple[int | None, set[int | None]]:
    """(last, traded): the newest move everyone may see: who made it (the plate of the last
    player to act is marked) and which partners traded in it, which the counts alone do not
    show (a setup pass or a symbol swap leaves them as they were; static/js/motion.js slides
    a card back between the two). A moderator's event names the seat it acted on, not one
    that acted."""
    last: int | None = None
    traded: set[int | None] = set()
    for row in reversed(rows):
        seated = [
            e
            for e in engine.events_for(row.events, None)
            if e.get("seat") is not None and e["type"] != "moderator"
        ]
        if seated:
            last = seated[0]["seat"]
            break
    for e in engine.events_for(rows[-1].events, None) if rows else ():
        if e["type"] in ("setup_pass", "swap"):
            traded.update(e["seats"])
        elif e["type"] == "give":
            traded.update((e["seat"], e["to"]))
    return last, traded


def plate_data(public: "PublicTable") -> list[dict[str, Any]]:
    """Every seat's plate as a dict, in seat order: what `render_plate` draws it from."""
    game, finished = public.game, public.finished
    last, traded = last_moves(public.rows)
    # Time-outs are counted in real time only (a missed turn-by-turn deadline is played
    # by a bot or concedes, and is not counted: games.actions.timeouts), and a plate
    # shows them once there is one (docs/table.md).
    realtime = game.pace == Game.Pace.REALTIME
    limit = settings.TIMEOUTS_BEFORE_BOT
    # A clock is public: the page counts it down and shows when it runs low by itself.
    clocks = {
        number: (None if finished else clock_warning(game, number)) or (None, None, None)
        for number in range(public.players)
    }
    return [
        plate_words(
            public.script_prefix,
            _plate(
                public,
                number,
                {
                    "last": number == last,
                    "traded": number in traded,
                    "timeouts": min(seats.timeouts_of(game, number), limit) if realtime else 0,
                    "timeouts_limit": limit,
                    "due": clocks[number][0],
                    "warn": clocks[number][1],
                    "clock": clocks[number][2],
                },
            ),
        )
        for number in range(public.players)
    ]


def _plate(public: "PublicTable", number: int, moves: dict[str, Any]) -> dict[str, Any]:
    """Seat `number`'s plate from the public view, `moves` (its last act and its clock) in
    their place among its keys, which keep the order a plate's cache key is made of."""
    view, finished = public.view, public.finished
    return {
        "number": number,
        "name": public.name(number),
        "team": number % public.half,
        "shape": TEAM_SHAPES[number % public.half],
        "cards": view["hand_sizes"][number],
        "out": view["out"][number],
        "departed": view["departed"][number],
        "to_play": view.get("turn") == number and not finished,
        "waiting": number in public.waiting and not finished,
        "choosing": number in public.choosing and number not in public.picked,
        "has_chosen": number in public.picked,
        "dealer": view.get("dealer") == number,
        **moves,
        "rating": public.ratings.get(number),
        "bot_account": number in public.bot_accounts,
    }


def plate_words(prefix: str, p: dict[str, Any]) -> dict[str, Any]:
    """Adds to plate `p` what its markup says of it whoever reads it: its marks (classes),
    its accessible name around the reader's role, and the one word for its state."""
    marks = "".join(
        mark
        for mark, on in (
            (" to-play", p["to_play"]),
            (" is-out", p["out"]),
            (" is-departed", p["departed"]),
            (" last-acted", p["last"]),
            (" just-traded", p["traded"]),
        )
        if on
    )
    cards_word = "card" if p["cards"] == 1 else "cards"
    rest = [f", {p['cards']} {cards_word}"] + [
        text
        for text, on in (
            (", out", p["out"]),
            (", left the game", p["departed"]),
            (", to play", p["to_play"]),
            (f", {p['timeouts']} of {p['timeouts_limit']} time-outs", p["timeouts"]),
            (f", rating {p['rating']}", p["rating"]),
            (", last to act", p["last"]),
        )
        if on
    ]
    p.update(
        marks=marks,
        cards_word=cards_word,
        label_rest="".join(rest),
        state=_state(p),
        label_name=p["name"] + (" (bot account)" if p["bot_account"] else ""),
        rules_url=render.rules_url(prefix),
    )
    return p


def _state(p: dict[str, Any]) -> str:
    """The one word under a plate's name: the first of these that holds."""
    for word, on in (
        ("left", p["departed"]),
        ("out", p["out"]),
        ("to play", p["to_play"]),
        ("has chosen", p["has_chosen"]),
        ("choosing…", p["choosing"]),
        ("deciding…", p["waiting"]),
    ):
        if on:
            return word
    return ""


@functools.lru_cache(maxsize=8192)
def render_plate(items: tuple[tuple[str, Any], ...]) -> str:
    """A plate's markup with its reader's places as markers (table_parts.html, plate)."""
    return str(render.parts().plate(dict(items)))


def teams(public: "PublicTable") -> list[dict[str, Any]]:
    """Each team's shape, score and members, as the status bar and the result show them."""
    view, n, half = public.view, public.players, public.half
    return [
        {
            "team": t,
            "shape": TEAM_SHAPES[t],
            "score": view["scores"][t],
            "members": [public.names.get(s, "") for s in range(n) if s % half == t],
            "departed": view["departed"][t],
        }
        for t in range(half)
    ]


def scores_key(view: SeatView, half: int) -> ScoresKey:
    """What the status bar's scores are drawn from: the key of `scores`'s cache."""
    return tuple((t, TEAM_SHAPES[t], view["scores"][t], view["departed"][t]) for t in range(half))


@functools.lru_cache(maxsize=1024)
def scores(teams: ScoresKey, yours: int | None) -> Markup:
    """The status bar's score of each team, for a reader of team `yours` (None: of none)."""
    return render.parts().scores(
        [
            {"team": t, "shape": shape, "score": score, "departed": departed}
            for t, shape, score, departed in teams
        ],
        yours,
    )
