"""A finished game's review on its replay: the marks beside the moves, the better choice at a
reviewed step, the chart of the team's chance and the summary.

Input is what `games.bots.review` stores (`GameReview.data`, docs/review.md): per reviewed
seat, its decisions (each the event row `seq` it was taken at, the choice taken, the best
with what the seat knew and with every hand, both chances and the mark), the chart's points
and the summary. Nothing here computes an estimate; it only says the stored ones in words,
card faces and an inline SVG (no script, no style attribute: the page's CSP forbids both,
so every colour comes from a class in static/css/replay.css).

A review is shown only for a finished game whose reader may see it: the replay view asks
`actions.review.visible_reviews` and hands over only the reviews that are done.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games import engine
from games.engine.cards import COLOR as CARD_COLOR
from games.models import GameEvent
from games.presenters.cards import COLOR_NAMES, card_face

# How a mark reads: a symbol as chess annotators write it (lichess's ?! ? ??), a word, and a
# class for its colour; the symbol and the word are both shown, so the mark never rests on
# colour alone. A good decision has no symbol: only the word, quietly.
MARKS: dict[str, dict[str, str]] = {
    "good": {"symbol": "", "word": "Good", "plural": "good", "css": "good"},
    "inaccurate": {
        "symbol": "?!",
        "word": "Inaccuracy",
        "plural": "inaccuracies",
        "css": "inaccurate",
    },
    "mistake": {"symbol": "?", "word": "Mistake", "plural": "mistakes", "css": "mistake"},
    "blunder": {"symbol": "??", "word": "Blunder", "plural": "blunders", "css": "blunder"},
}
ORDER = ("good", "inaccurate", "mistake", "blunder")

# The chart's drawing box (SVG user units; the SVG scales to its column).
WIDTH, HEIGHT = 320, 120
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 30, 8, 8, 16

Link = Callable[[int], str]


def mark_of(name: str | None) -> dict[str, str]:
    """How mark `name` reads; an unknown one (a later version's) reads as good rather than
    failing the page."""
    return {"name": name or "good", **MARKS.get(name or "good", MARKS["good"])}


def percent(chance: float | None) -> str:
    return "" if chance is None else f"{round(float(chance) * 100)}%"


def _cards(codes: Sequence[str]) -> str:
    names = [engine.card_name(c) for c in codes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def action_words(action: Mapping[str, Any] | None, kind: str = "") -> str:
    """A decision in words, without its subject: "played Wild and chose Green", "passed Red 3".

    `kind` is the decision's (setup, swap, turn, penalty, forced, give): a `pass` action is a
    setup pass or a swap, and says which."""
    if not action:
        return "did nothing"
    kind_of = action.get("type")
    card = action.get("card")
    if kind_of == "play" and card:
        text = f"played {engine.card_name(card)}"
        color = action.get("color")
        if CARD_COLOR.get(card) is None and color:
            text += f" and chose {COLOR_NAMES.get(color, color)}"
        return text
    if kind_of == "pass" and card:
        verb = "swapped" if kind == "swap" else "passed"
        return f"{verb} {engine.card_name(card)}"
    if kind_of == "give":
        return f"gave {_cards(action.get('cards') or [])}" if action.get("cards") else "gave"
    return {
        "draw": "drew a card",
        "pass_turn": "passed the turn",
        "take_penalty": "took the penalty",
        "concede": "conceded",
    }.get(str(kind_of), str(kind_of or "acted").replace("_", " "))


def action_advice(action: Mapping[str, Any] | None, kind: str = "") -> str:
    """A choice as advice, without its subject: "Play Yellow 1", "Pass Green 5", "Play Wild,
    choose Green", "Give Yellow 9 and Green 8"."""
    if not action:
        return "Nothing"
    kind_of, card = action.get("type"), action.get("card")
    if kind_of == "play" and card:
        text = f"Play {engine.card_name(card)}"
        color = action.get("color")
        if CARD_COLOR.get(card) is None and color:
            text += f", choose {COLOR_NAMES.get(color, color)}"
        return text
    if kind_of == "pass" and card:
        return f"{'Swap' if kind == 'swap' else 'Pass'} {engine.card_name(card)}"
    if kind_of == "give" and action.get("cards"):
        return f"Give {_cards(action['cards'])}"
    return {
        "draw": "Draw a card",
        "pass_turn": "Pass the turn",
        "take_penalty": "Take the penalty",
        "concede": "Concede",
    }.get(str(kind_of), str(kind_of or "act").replace("_", " ").capitalize())


def action_faces(action: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The card faces an action names (the card played or passed, the cards given): the
    replay's own faces (games/cards.html), each with its name for screen readers."""
    if not action:
        return []
    codes = action.get("cards") or ([action["card"]] if action.get("card") else [])
    return [card_face(c) for c in codes if c in CARD_COLOR]


def _choice(action: Mapping[str, Any] | None, kind: str) -> dict[str, Any]:
    color = (action or {}).get("color")
    return {
        "words": action_words(action, kind),
        "advice": action_advice(action, kind),
        "faces": action_faces(action),
        # A Wild's colour is named beside its face: the face itself is every colour.
        "color": COLOR_NAMES.get(color, color) if color else "",
        "color_code": color or "",
    }


@dataclass(frozen=True)
class Review:
    """One seat's stored review, read for the page: its decisions by event row."""

    seat: int
    name: str  # the seat's name as the log writes it
    you: bool  # the reader's own seat
    data: Mapping[str, Any]

    @property
    def decisions(self) -> dict[int, Mapping[str, Any]]:
        return {int(d["seq"]): d for d in self.data.get("decisions", []) if "seq" in d}

    @property
    def knew_label(self) -> str:
        return "With what you knew" if self.you else f"With what {self.name} knew"


def reviews_of(
    data: Mapping[int, Mapping[str, Any]], names: Mapping[int, str], reader: int | None
) -> dict[int, Review]:
    """{seat: Review} from {seat: GameReview.data} (the done reviews the reader may see)."""
    return {
        seat: Review(seat, names.get(seat, f"Seat {seat + 1}"), seat == reader, data[seat])
        for seat in sorted(data)
    }


def shown_seat(reviews: Mapping[int, Review], followed: int | None, reader: int | None) -> int:
    """Whose chart and summary the page shows: the followed seat's review, else the reader's
    own, else the first seat reviewed (the caller passes at least one review)."""
    for seat in (followed, reader):
        if seat is not None and seat in reviews:
            return seat
    return min(reviews)


def steps_of(rows: Sequence[GameEvent]) -> dict[int, int]:
    """{event row seq: replay step}: step k shows rows 1..k, so a decision's step is its row's
    place in the game's rows (the same number as its seq while no row is missing)."""
    return {row.seq: i for i, row in enumerate(rows, start=1)}


def log_marks(reviews: Mapping[int, Review]) -> dict[int, dict[str, str]]:
    """{seq: mark} for every reviewed decision the reader may see (every review shown)."""
    return {seq: mark_of(d.get("mark")) for r in reviews.values() for seq, d in r.decisions.items()}


def mark_moves(
    moves: Sequence[Mapping[str, Any]], marks: Mapping[int, Mapping[str, str]]
) -> list[dict[str, Any]]:
    """The log's lines with each reviewed decision's mark on its first line (a move may write
    several lines: a play, then a skip); the lines themselves are left as they are."""
    marked: set[int] = set()
    out = []
    # The log reads newest first, each move's own lines in order: its first line is the
    # first one met of its seq.
    for line in moves:
        seq = line["seq"]
        mark = marks.get(seq) if seq not in marked else None
        if mark is not None:
            marked.add(seq)
        out.append({**line, "mark": mark})
    return out


def step_note(review: Review, seq: int) -> dict[str, Any] | None:
    """What the replay shows at the step of a reviewed decision: the mark, the choice taken
    and the better one (words and card faces), and both estimates, each labelled."""
    d = review.decisions.get(seq)
    if d is None:
        return None
    kind = str(d.get("kind", ""))
    taken, best, best_all = d.get("taken"), d.get("best"), d.get("best_all")
    choices = d.get("choices") or []
    same = _same(taken, best)
    # The best's chance is that choice's own estimate: the core names a best only when it
    # is clearly better on the paired samples, so a higher mean elsewhere is noise.
    best_knew = _chance_of(choices, best, "knew", d.get("knew"))
    best_all_chance = _chance_of(choices, best_all or taken, "all", d.get("all"))
    subject = "You" if review.you else review.name
    return {
        "seat": review.seat,
        "name": review.name,
        "you": review.you,
        "mark": mark_of(d.get("mark")),
        "kind": kind,
        "subject": subject,
        "taken": _choice(taken, kind),
        "best": None if same else _choice(best, kind),
        # With every hand known another choice may have been best: said in words, not
        # drawn (the table shows what could be known).
        "best_all": None
        if best_all is None or _same(best_all, best) or _same(best_all, taken)
        else _choice(best_all, kind),
        "knew": percent(d.get("knew")),
        "best_knew": percent(best_knew),
        "all": percent(d.get("all")),
        "best_all_chance": percent(best_all_chance),
        "knew_label": review.knew_label,
        "choices": len(choices),
        "samples": d.get("samples"),
    }


def _chance_of(
    choices: Sequence[Mapping[str, Any]],
    action: Mapping[str, Any] | None,
    mode: str,
    default: float | None,
) -> float | None:
    """The estimate (`mode`: "knew" or "all") of the choice `action` among `choices`."""
    for choice in choices:
        if _same(choice.get("action"), action) and mode in choice:
            return float(choice[mode])
    return default


def _same(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    # A card named twice is one choice (either copy); the cards of a give in any order too.
    def key(x: Mapping[str, Any] | None) -> tuple[Any, ...]:
        x = x or {}
        return (x.get("type"), x.get("card"), x.get("color"), tuple(sorted(x.get("cards") or [])))

    return key(a) == key(b)


def summary(review: Review, steps: Mapping[int, int], link: Link) -> dict[str, Any]:
    """The counts by mark and the costliest three decisions, each with its step's link, the
    move taken and the better one in words."""
    stored = review.data.get("summary") or {}
    counts = stored.get("counts") or {}
    decisions = review.decisions
    costliest = []
    for seq in (stored.get("costliest") or [])[:3]:
        d = decisions.get(int(seq))
        if d is None or int(seq) not in steps:
            continue
        kind = str(d.get("kind", ""))
        costliest.append(
            {
                "step": steps[int(seq)],
                "href": link(steps[int(seq)]),
                "mark": mark_of(d.get("mark")),
                "taken": action_words(d.get("taken"), kind),
                "best": action_advice(d.get("best"), kind),
                "loss": round(float(d.get("loss", 0.0)) * 100),
            }
        )
    return {
        "seat": review.seat,
        "name": review.name,
        "you": review.you,
        "counts": [
            {**mark_of(name), "count": int(counts.get(name, 0))}
            for name in ORDER
            if name in counts or name != "good"
        ],
        "decisions": len(decisions),
        "costliest": costliest,
    }


def round_starts(rows: Sequence[GameEvent]) -> list[int]:
    """The steps at which a round was dealt: the chart's lines break there, since each
    decision's chance is of its own round."""
    return [
        i
        for i, row in enumerate(rows, start=1)
        if any(e.get("type") == "deal" for e in row.events or [])
    ]


def chart(
    review: Review,
    steps: Mapping[int, int],
    total: int,
    current: int,
    link: Link,
    rounds: Sequence[int] = (),
) -> dict[str, Any] | None:
    """The team's chance at each of the seat's decisions as an inline SVG's numbers: two
    lines (with what the seat knew, with every hand), broken at each new round, a marker
    linking to the step of each marked decision, and the step shown now."""
    # "all" is missing from a review computed without every hand: that line is left out.
    points = [
        (steps[int(p["seq"])], float(p.get("knew", 0.0)), p.get("all"))
        for p in review.data.get("chart", [])
        if int(p.get("seq", -1)) in steps
    ]
    if not points:
        return None
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM

    def px(step: int) -> float:
        return round(PAD_LEFT + inner_w * (step - 1) / max(total - 1, 1), 1)

    def py(chance: float) -> float:
        return round(PAD_TOP + inner_h * (1 - min(max(chance, 0.0), 1.0)), 1)

    # One polyline per round and line: a new round's chance does not follow the last one's.
    def segments(which: int) -> list[str]:
        out: list[list[str]] = []
        starts = sorted(rounds)
        current_round = None
        for step, knew, every in sorted(points, key=lambda p: p[0]):
            if which == 1 and every is None:
                continue
            r = sum(1 for s in starts if s <= step)
            if r != current_round or not out:
                out.append([])
                current_round = r
            out[-1].append(f"{px(step)},{py(knew if which == 0 else float(every or 0.0))}")
        return [" ".join(seg) for seg in out]

    decisions = review.decisions
    markers = []
    for seq, d in sorted(decisions.items()):
        mark = mark_of(d.get("mark"))
        if mark["name"] == "good" or seq not in steps:
            continue
        step = steps[seq]
        kind = str(d.get("kind", ""))
        markers.append(
            {
                "x": px(step),
                "y": py(float(d.get("knew", 0.0))),
                "step": step,
                "href": link(step),
                "mark": mark,
                "title": (
                    f"Step {step}: {mark['word']}: {action_words(d.get('taken'), kind)}; "
                    f"better: {action_advice(d.get('best'), kind)}"
                ),
            }
        )
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": PAD_LEFT,
        "right": WIDTH - PAD_RIGHT,
        "top": PAD_TOP,
        "bottom": HEIGHT - PAD_BOTTOM,
        "ticks": [{"y": py(v / 100), "label": f"{v}%"} for v in (0, 50, 100)],
        "knew": segments(0),
        "all": segments(1),
        "markers": markers,
        "rounds": [{"x": px(s)} for s in rounds if 1 < s <= total],
        "cursor": px(max(1, min(current, total))),
        "label_y": HEIGHT - 3,
        "knew_label": review.knew_label,
        "first": percent(points[0][1]),
        "last": percent(points[-1][1]),
        "count": len(points),
    }


def context(
    data: Mapping[int, Mapping[str, Any]],
    rows: Sequence[GameEvent],
    step: int,
    names: Mapping[int, str],
    reader: int | None,
    followed: int | None,
    link: Link,
    seat_link: Callable[[int], str],
) -> dict[str, Any] | None:
    """Everything the replay shows of the reviews at `step`, or None without a review.

    `data` is {seat: GameReview.data} of the done reviews the reader may see; `link(step)`
    the address of a step in the reader's perspective, `seat_link(seat)` that of the same
    step following another reviewed seat (its chart and summary)."""
    if not data or not rows:
        return None
    reviews = reviews_of(data, names, reader)
    steps = steps_of(rows)
    step = max(1, min(step, len(rows)))
    row = rows[step - 1]
    shown = reviews[shown_seat(reviews, followed, reader)]
    acting = reviews.get(row.seat) if row.seat is not None else None
    return {
        "marks": log_marks(reviews),
        "note": step_note(acting, row.seq) if acting is not None else None,
        "shown": shown.seat,
        "name": shown.name,
        "you": shown.you,
        "summary": summary(shown, steps, link),
        "chart": chart(shown, steps, len(rows), step, link, round_starts(rows)),
        "others": [
            {"seat": r.seat, "name": r.name, "you": r.you, "href": seat_link(r.seat)}
            for r in reviews.values()
            if r.seat != shown.seat
        ],
    }
