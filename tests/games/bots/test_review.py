"""The review of a finished game: estimates, marks, the better choice, and reproducibility."""

import pytest

from bench.research.review_calibration import game_rows
from games.bots import Budget
from games.bots.review import (
    MARKS,
    THRESHOLDS,
    Row,
    action_key,
    assemble,
    mark_for,
    review_decisions,
    review_seat,
    reviewable,
)
from games.engine import GameState, Options

from .helpers import position

SMALL = Budget(rollouts=12, horizon=30)


def _rows_after(start, moves):
    """The event rows of `moves` ((seat, action) pairs) played from `start`."""
    g = GameState.from_dict(start.to_dict())
    return [Row(i + 1, seat, a, g.act(seat, a)) for i, (seat, a) in enumerate(moves)]


def _bot_game(players=4, seed=7):
    """A whole round played by the site's bots (Easy at seat 0), as the site stores it."""
    options = Options(players=players)
    levels = ["easy"] + ["normal"] * (players - 1)
    return options, seed, game_rows(options, seed, levels, seed)


def test_a_play_that_hands_over_the_round_is_a_blunder_and_the_winning_play_is_shown():
    # Seat 1 holds one card and its partner is out. Every card seat 0 has not seen is Blue,
    # so its Blue 2 lets seat 1 go out and win; a Red one would not.
    start = position([["B2", "R2", "R7"], ["B7"], ["B3", "B1"], []], "Y2", draw=["B9", "B6", "B4"])
    rows = _rows_after(start, [(0, {"type": "play", "card": "B2"})])
    review = review_seat(Options(players=4), 0, rows, 0, budget=SMALL, start=start)
    [d] = review["decisions"]
    assert d["taken"] == {"type": "play", "card": "B2"}
    assert d["mark"] == "blunder"
    assert d["best"] == {"type": "play", "card": "R2"}
    assert d["knew"] == 0.0  # seat 1 always goes out on it
    assert d["loss"] >= THRESHOLDS["blunder"]
    assert review["summary"]["counts"]["blunder"] == 1
    assert review["summary"]["costliest"] == [1]


def test_the_winning_play_itself_is_good():
    start = position([["B2", "R2", "R7"], ["B7"], ["B3", "B1"], []], "Y2", draw=["B9", "B6", "B4"])
    rows = _rows_after(start, [(0, {"type": "play", "card": "R2"})])
    [d] = review_seat(Options(players=4), 0, rows, 0, budget=SMALL, start=start)["decisions"]
    assert d["mark"] == "good"
    assert d["loss"] == 0.0
    assert d["best"] == d["taken"]


def test_with_what_the_seat_knew_and_with_every_hand_differ_where_a_hidden_card_decided():
    # Seat 1's one card is a Red 9, but seat 0 cannot tell it from the Blue and Green cards
    # it has not seen: on what it knew, Red 2 and Blue 2 are about as good. With every hand
    # known, the Red 2 lets seat 1 out at once.
    start = position([["B2", "R2", "R7"], ["R9"], ["B3", "B1"], []], "Y2", draw=["G6", "G4", "G9"])
    rows = _rows_after(start, [(0, {"type": "play", "card": "R2"})])
    [d] = review_seat(
        Options(players=4), 0, rows, 0, budget=Budget(rollouts=40, horizon=30), start=start
    )["decisions"]
    assert d["mark"] == "good"  # what the seat knew could not tell the two apart
    assert d["loss"] == 0.0
    assert d["all"] == 0.0  # with every hand, seat 1 always goes out
    assert d["best_all"] == {"type": "play", "card": "B2"}
    assert d["loss_all"] >= THRESHOLDS["blunder"]
    estimates = {c["action"]["card"]: c for c in d["choices"]}
    assert estimates["B2"]["all"] > estimates["B2"]["knew"]  # the hidden card was harmless


def test_every_legal_choice_is_estimated_and_a_wild_once_per_colour():
    start = position([["W", "Y3", "R8"], ["B7", "B1"], ["B3", "B1"], ["G2", "G3"]], "Y2")
    rows = _rows_after(start, [(0, {"type": "play", "card": "Y3"})])
    [d] = review_seat(Options(players=4), 0, rows, 0, budget=SMALL, start=start)["decisions"]
    keys = {action_key(c["action"]) for c in d["choices"]}
    assert keys == {action_key(a) for a in start.legal_actions(0)}
    assert {("play", "W", c) for c in "RYGB"} <= keys
    assert [c["knew"] for c in d["choices"]] == sorted(
        (c["knew"] for c in d["choices"]), reverse=True
    )


def test_a_review_covers_the_seats_decisions_with_a_choice_and_nothing_else():
    options, seed, rows = _bot_game()
    seqs = reviewable(options, seed, rows, 0)
    mine = [r for r in rows if r.seat == 0]
    assert seqs and set(seqs) <= {r.seq for r in mine}
    # The setup pass is always a choice; a forced draw is not one.
    assert mine[0].action["type"] == "pass" and mine[0].seq in seqs
    g = GameState.new(options, seed)
    for r in rows[1:]:
        if r.seat == 0:
            choices = g.legal_actions(0)
            if r.seq not in seqs:
                assert len(choices) <= 1 and not g.view(0).get("must_give")
        g.act(r.seat, r.action)
    # No other seat's decision is in it.
    assert not set(seqs) & {r.seq for r in rows if r.seat != 0}


def test_the_same_game_and_seed_give_the_same_review_and_a_review_can_be_done_in_slices():
    options, seed, rows = _bot_game()
    one = review_seat(options, seed, rows, 0, budget=SMALL)
    two = review_seat(options, seed, rows, 0, budget=SMALL)
    assert one == two
    # Half computed first (a task's slice), the rest later: the same review.
    seqs = reviewable(options, seed, rows, 0)
    first = review_decisions(options, seed, rows, 0, seqs[: len(seqs) // 2], budget=SMALL)
    seen = []
    sliced = review_seat(
        options, seed, rows, 0, budget=SMALL, done=first, progress=lambda k, n: seen.append(k)
    )
    assert sliced == one
    assert seen == list(range(len(first) + 1, len(seqs) + 1))


@pytest.mark.parametrize(
    ("loss", "mark"),
    [
        (0.0, "good"),
        (THRESHOLDS["inaccurate"] - 1e-9, "good"),
        (THRESHOLDS["inaccurate"], "inaccurate"),
        (THRESHOLDS["mistake"], "mistake"),
        (THRESHOLDS["blunder"], "blunder"),
        (1.0, "blunder"),
    ],
)
def test_a_loss_is_marked_by_the_thresholds(loss, mark):
    assert mark_for(loss) == mark


def test_the_summary_counts_the_marks_and_names_the_costliest_three():
    def d(seq, loss):
        return {"seq": seq, "loss": loss, "mark": mark_for(loss), "knew": 0.5, "all": 0.5}

    review = assemble(4, 2, [d(9, 0.3), d(3, 0.0), d(5, 0.1), d(7, 0.05), d(1, 0.2)])
    assert review["team"] == 0 and review["seat"] == 2
    assert [c["seq"] for c in review["chart"]] == [1, 3, 5, 7, 9]
    assert review["summary"]["costliest"] == [9, 1, 5]
    assert sum(review["summary"]["counts"].values()) == 5
    assert set(review["summary"]["counts"]) == set(MARKS)


def test_a_gap_inside_the_noise_is_no_loss_and_more_choices_need_a_clearer_one():
    from games.bots.review import _loss, z_needed

    assert z_needed(2) < z_needed(3) < z_needed(8)
    assert z_needed(2) == pytest.approx(1.96, abs=0.01)
    # The taken move (0) against one other: a gap of 0.1 over 40 paired samples whose
    # differences spread by about 0.3 is about 2.1 standard errors.
    taken = [0.5] * 40
    other = [0.5 + (0.4 if i % 2 else -0.2) for i in range(40)]
    best, loss, gap, z = _loss([taken, other], 0)
    assert best == 1 and loss == pytest.approx(0.1) and z > z_needed(2)
    # The same gap among five choices does not clear the bar that many choices need.
    best, loss, gap, z = _loss([taken, other, taken, taken, taken], 0)
    assert (best, loss) == (0, 0.0)
    assert gap == pytest.approx(0.1) and z < z_needed(5)
