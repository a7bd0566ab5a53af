"""The review on the replay (games.presenters.review), from a stored review of the shape
games.bots.review writes: marks, the better choice at its step, the summary and the chart."""

import copy
import re

import pytest
from django.template.loader import render_to_string

from games.models import GameEvent
from games.presenters import review

NAMES = {0: "Ana", 1: "Bo", 2: "Cy", 3: "Di"}


def decision(seq, mark, taken, best, knew, best_knew, every, best_every, *, kind="turn"):
    loss = round(best_knew - knew, 4) if mark != "good" else 0.0
    return {
        "seq": seq,
        "kind": kind,
        "taken": taken,
        "best": best,
        "best_all": best,
        "knew": knew,
        "all": every,
        "loss": loss,
        "loss_all": round(best_every - every, 4),
        "mark": mark,
        "choices": [
            {"action": best, "knew": best_knew, "all": best_every},
            {"action": taken, "knew": knew, "all": every},
        ]
        if best != taken
        else [
            {"action": taken, "knew": knew, "all": every},
            {"action": {"type": "draw"}, "knew": 0.1, "all": 0.1},
        ],
        "samples": 120,
    }


def stored(seat=0):
    decisions = [
        decision(
            3,
            "inaccurate",
            {"type": "pass", "card": "R3"},
            {"type": "pass", "card": "G5"},
            0.48,
            0.55,
            0.55,
            0.57,
            kind="setup",
        ),
        decision(
            7,
            "good",
            {"type": "play", "card": "B7"},
            {"type": "play", "card": "B7"},
            0.6,
            0.6,
            0.62,
            0.62,
        ),
        decision(
            9,
            "blunder",
            {"type": "play", "card": "W", "color": "R"},
            {"type": "play", "card": "W", "color": "G"},
            0.2,
            0.45,
            0.25,
            0.5,
        ),
        decision(
            14,
            "mistake",
            {"type": "give", "cards": ["R1", "B2"]},
            {"type": "give", "cards": ["Y9", "G8"]},
            0.5,
            0.62,
            0.52,
            0.6,
            kind="give",
        ),
    ]
    return {
        "version": 1,
        "seat": seat,
        "team": seat % 2,
        "players": 4,
        "measure": "round",
        "thresholds": {"inaccurate": 0.04, "mistake": 0.09, "blunder": 0.18},
        "decisions": decisions,
        "chart": [{"seq": d["seq"], "knew": d["knew"], "all": d["all"]} for d in decisions],
        "summary": {
            "counts": {"good": 1, "inaccurate": 1, "mistake": 1, "blunder": 1},
            "costliest": [9, 14, 3],
        },
    }


def rows(count=16, deals=(1, 10)):
    """Event rows 1..count, seat 0 acting at every row; a deal at the rows in `deals`."""
    return [
        GameEvent(
            seq=seq,
            seat=None if seq in deals else 0,
            events=[{"type": "deal", "visible_to": None}] if seq in deals else [],
        )
        for seq in range(1, count + 1)
    ]


def link(step):
    return f"?step={step}"


def seat_link(seat):
    return f"?step=1&seat={seat}"


def ctx(data, step, *, reader=0, followed=None, event_rows=None):
    return review.context(
        data, event_rows or rows(), step, NAMES, reader, followed, link, seat_link
    )


@pytest.mark.parametrize(
    ("name", "symbol", "word"),
    [("inaccurate", "?!", "Inaccuracy"), ("mistake", "?", "Mistake"), ("blunder", "??", "Blunder")],
)
def test_a_mark_reads_as_a_symbol_and_a_word_not_colour_alone(name, symbol, word):
    mark = review.mark_of(name)
    assert (mark["symbol"], mark["word"], mark["css"]) == (symbol, word, name)


def test_an_unknown_mark_reads_as_good_rather_than_breaking_the_page():
    assert review.mark_of("brilliant")["word"] == "Good"


def test_at_a_marked_step_the_better_choice_is_named_and_drawn_with_both_chances():
    note = ctx({0: stored()}, 3)["note"]
    assert note["mark"]["word"] == "Inaccuracy"
    assert note["taken"]["words"] == "passed Red 3"
    assert note["best"]["words"] == "passed Green 5"
    assert [f["code"] for f in note["best"]["faces"]] == ["G5"]
    assert [f["code"] for f in note["taken"]["faces"]] == ["R3"]
    assert (note["knew"], note["best_knew"], note["all"], note["best_all_chance"]) == (
        "48%",
        "55%",
        "55%",
        "57%",
    )
    assert note["knew_label"] == "With what you knew"


def test_a_best_choice_with_every_hand_is_named_only_when_it_is_another_choice():
    data = stored()
    assert ctx({0: data}, 3)["note"]["best_all"] is None  # the same as the best
    data["decisions"][0]["best_all"] = {"type": "pass", "card": "R3"}
    assert ctx({0: data}, 3)["note"]["best_all"] is None  # the one taken
    data["decisions"][0]["best_all"] = {"type": "pass", "card": "B2"}
    assert ctx({0: data}, 3)["note"]["best_all"]["advice"] == "Pass Blue 2"


def test_another_seats_review_names_that_seat_not_you():
    note = ctx({0: stored()}, 3, reader=None)["note"]
    assert note["knew_label"] == "With what Ana knew"
    assert not note["you"]


def test_a_wilds_colour_is_named_beside_its_face():
    note = ctx({0: stored()}, 9)["note"]
    assert note["taken"]["words"] == "played Wild and chose Red"
    assert (note["best"]["color"], note["best"]["color_code"]) == ("Green", "G")
    assert note["best"]["words"] == "played Wild and chose Green"


def test_a_give_draws_every_card_it_would_have_given():
    note = ctx({0: stored()}, 14)["note"]
    assert [f["code"] for f in note["best"]["faces"]] == ["Y9", "G8"]
    assert note["best"]["words"] == "gave Yellow 9 and Green 8"


def test_the_best_choice_taken_shows_no_better_one():
    note = ctx({0: stored()}, 7)["note"]
    assert note["best"] is None and note["mark"]["word"] == "Good"


def test_a_choice_with_a_higher_mean_that_is_not_clearly_better_is_not_called_best():
    # The core keeps the move taken as its own best when no choice beats it clearly: the
    # chances shown are then the taken move's, not the highest (noisy) mean.
    data = stored()
    seven = data["decisions"][1]
    seven["choices"][1].update(knew=0.63, all=0.66)  # the draw, a little higher by chance
    note = ctx({0: data}, 7)["note"]
    assert (note["knew"], note["best_knew"]) == ("60%", "60%")
    assert (note["all"], note["best_all_chance"]) == ("62%", "62%")


def test_a_step_that_is_no_reviewed_decision_has_no_note():
    data = {0: stored()}
    assert ctx(data, 4)["note"] is None
    # A row of another seat at a reviewed seq number is not that seat's decision.
    other = rows()
    other[2].seat = 1
    assert ctx(data, 3, event_rows=other)["note"] is None


def test_the_log_marks_each_reviewed_move_once_on_its_first_line():
    moves = [
        {"seq": 9, "text": "You played Wild and chose Red.", "current": False},
        {"seq": 9, "text": "Bo loses a turn.", "current": False},
        {"seq": 8, "text": "Bo played Red 2.", "current": False},
        {"seq": 7, "text": "You played Blue 7.", "current": False},
    ]
    marked = review.mark_moves(moves, ctx({0: stored()}, 9)["marks"])
    assert [m["mark"]["word"] if m["mark"] else None for m in marked] == [
        "Blunder",
        None,
        None,
        "Good",
    ]
    assert [m["text"] for m in marked] == [m["text"] for m in moves]


def test_the_summary_counts_the_marks_and_lists_the_costliest_three_with_their_steps():
    summary = ctx({0: stored()}, 1)["summary"]
    assert [(c["word"], c["count"]) for c in summary["counts"]] == [
        ("Good", 1),
        ("Inaccuracy", 1),
        ("Mistake", 1),
        ("Blunder", 1),
    ]
    assert [(c["step"], c["href"], c["loss"]) for c in summary["costliest"]] == [
        (9, "?step=9", 25),
        (14, "?step=14", 12),
        (3, "?step=3", 7),
    ]
    first = summary["costliest"][0]
    assert (first["taken"], first["best"]) == (
        "played Wild and chose Red",
        "Play Wild, choose Green",
    )


def test_a_decisions_step_is_its_rows_place_when_a_seq_is_missing():
    gap = [r for r in rows() if r.seq != 2]  # seq 3 is now the second row: step 2
    summary = ctx({0: stored()}, 1, event_rows=gap)["summary"]
    assert [c["step"] for c in summary["costliest"]] == [8, 13, 2]
    assert ctx({0: stored()}, 2, event_rows=gap)["note"]["taken"]["words"] == "passed Red 3"


def test_the_chart_draws_both_lines_broken_at_each_round_and_links_each_marked_decision():
    chart = ctx({0: stored()}, 9)["chart"]
    # Rounds dealt at steps 1 and 10: decisions 3, 7, 9 in the first, 14 in the second.
    assert [len(seg.split()) for seg in chart["knew"]] == [3, 1]
    assert [len(seg.split()) for seg in chart["all"]] == [3, 1]
    assert [(m["step"], m["href"], m["mark"]["word"]) for m in chart["markers"]] == [
        (3, "?step=3", "Inaccuracy"),
        (9, "?step=9", "Blunder"),
        (14, "?step=14", "Mistake"),
    ]
    # Higher chance is higher on the chart (a smaller y); the step shown is the cursor.
    y = {m["step"]: m["y"] for m in chart["markers"]}
    assert y[14] < y[9]
    assert chart["cursor"] == next(m["x"] for m in chart["markers"] if m["step"] == 9)
    assert len(chart["rounds"]) == 1


def test_a_review_without_every_hand_draws_only_the_line_of_what_was_known():
    data = stored()
    for point in data["chart"]:
        del point["all"]
    chart = ctx({0: data}, 1)["chart"]
    assert chart["all"] == [] and len(chart["knew"]) == 2


def test_the_shown_review_is_the_followed_seats_then_the_readers_then_the_first():
    data = {0: stored(0), 2: stored(2)}
    assert ctx(data, 1, reader=2)["shown"] == 2
    assert ctx(data, 1, reader=2, followed=0)["shown"] == 0
    assert ctx(data, 1, reader=None)["shown"] == 0
    assert ctx(data, 1, reader=2)["others"] == [
        {"seat": 0, "name": "Ana", "you": False, "href": "?step=1&seat=0"}
    ]


def test_no_review_means_no_review_context():
    assert ctx({}, 3) is None


def test_the_review_renders_its_marks_note_chart_and_summary_without_style_attributes():
    context = {"review": ctx({0: stored()}, 9)}
    html = "".join(
        render_to_string(f"replay/review.html#{part}", context)
        for part in ("note", "chart", "summary")
    )
    assert "??" in html and "Blunder" in html and "Better" in html
    assert "With what you knew:" in html and "With every hand:" in html
    assert 'href="?step=14"' in html
    assert not re.search(r"\sstyle=", html)
    assert "<script" not in html


def test_the_stored_data_is_not_changed():
    data = stored()
    before = copy.deepcopy(data)
    ctx({0: data}, 9)
    assert data == before
