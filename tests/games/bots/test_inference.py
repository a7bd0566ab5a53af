"""Hard's inference from the other seats' moves: leans that move sample probability toward
hands consistent with what a seat was seen to do, from the seat's own events only."""

import random

from games.bots import Budget, SeatMemory, decide
from games.bots.memory import ALL_INFERENCES, INFERENCES, SHARPENING
from games.bots.sampling import sample_world
from games.engine import events_for
from games.engine.cards import COLOR, IS_WILD

from .helpers import assert_sample_matches, position

NONE = frozenset()


def seen_by(seat, events, top="G5"):
    """The seat's events, after the play of the top card that began them (a position has no
    deal event, so this says what was in play)."""
    start = {"type": "play", "seat": 3, "card": top, "color": top[0], "visible_to": None}
    return [start, *events_for(events, seat)]


def mean_count(view, mem, seat, test, samples=300):
    """How many cards passing `test` the sampler puts in `seat`'s hand, on average."""
    total = 0
    for k in range(samples):
        hands, _ = sample_world(view, mem, random.Random(k))
        total += sum(1 for c in hands[seat] if test(c))
    return total / samples


def blue(c):
    return COLOR[c] == "B"


def green(c):
    return COLOR[c] == "G"


def wild_position():
    # Seat 1 names Blue with a plain Wild while Green is in play; seat 0 then looks.
    g = position(
        [
            ["R4", "G1", "G2", "Y5"],
            ["W", "R1", "R2", "B3", "G9"],
            ["B1", "B2", "Y1", "R9"],
            ["Y2", "Y3", "G7", "R6"],
        ],
        "G5",
        turn=1,
        draw=["B7", "B9", "R6", "R7", "R8", "Y7", "G3"],
    )
    events = g.act(1, {"type": "play", "card": "W", "color": "B"})
    events += g.act(2, {"type": "play", "card": "B1"})
    events += g.act(3, {"type": "draw"})
    return g, seen_by(0, events)


def test_naming_a_colour_with_a_wild_makes_samples_hold_more_of_it():
    g, seen = wild_position()
    view = g.view(0)
    on = SeatMemory.build(view, seen, {"wild_colour"})
    off = SeatMemory.build(view, seen, NONE)
    assert on.lean[1]["B"] > 0 and not any(off.lean[1].values())
    assert mean_count(view, on, 1, blue) > mean_count(view, off, 1, blue) + 0.3


def test_spending_a_plain_wild_makes_samples_hold_less_of_the_colour_in_play():
    g, seen = wild_position()
    view = g.view(0)
    on = SeatMemory.build(view, seen, {"wild_void"})
    off = SeatMemory.build(view, seen, NONE)
    assert on.lean[1]["G"] < 0
    assert mean_count(view, on, 1, green) < mean_count(view, off, 1, green) - 0.3
    # Only the seat that moved is read: seat 2 played Blue on Blue, nothing to infer.
    assert not any(on.lean[2].values())


def test_a_seat_never_leans_on_its_own_moves():
    g, _ = wild_position()
    g2 = position(
        [["W", "R1", "R2"], ["B1", "B2"], ["Y1", "Y2"], ["G7", "G8"]], "G5", draw=["B7", "B9", "R6"]
    )
    events = g2.act(0, {"type": "play", "card": "W", "color": "R"})
    mem = SeatMemory.build(g2.view(0), seen_by(0, events), ALL_INFERENCES)
    assert not any(mem.lean[0].values())


def test_a_wild_team_draw_4_at_a_team_about_to_win_is_no_sign_of_need():
    # Normal throws the Draw 4 at a team with three cards or fewer even when it could play
    # something else, so only against a bigger team does it show need.
    def lean_after_draw4(seat3):
        g = position(
            [["R4", "G1", "G2", "Y5"], ["B8", "B9"], ["WTD4", "R1", "G3", "Y4"], seat3],
            "G5",
            turn=2,
            draw=["B7", "B1", "R6", "R7", "R8", "Y7", "G4"],
        )
        events = g.act(2, {"type": "play", "card": "WTD4", "color": "R"})
        return SeatMemory.build(g.view(0), seen_by(0, events), {"wild_void"}).lean[2]["G"]

    assert lean_after_draw4(["Y2"]) == 0
    assert lean_after_draw4(["Y2", "Y3", "B3", "R3"]) < 0


def test_a_void_that_took_unseen_cards_becomes_a_lean_not_nothing():
    # Seat 1 drew on its turn with Green in play (no Green, no Wild), then took two cards
    # as a penalty: its old cards still hold no Green.
    g = position(
        [
            ["G1", "G3", "R4"],
            ["R1", "R3", "B4", "Y9", "G6", "G8"],
            ["B1", "B3"],
            ["Y1", "Y3", "Y4"],
        ],
        "G5",
        draw=["B7", "B9", "R6", "G2", "R8"],
    )
    history = [
        {"type": "play", "seat": 3, "card": "G5", "color": "G", "visible_to": None},
        {"type": "draw", "seat": 1, "count": 1, "reason": "turn", "visible_to": None},
        {"type": "draw", "seat": 1, "count": 2, "reason": "penalty", "visible_to": None},
    ]
    view = g.view(0)
    on = SeatMemory.build(view, history, {"void_memory"})
    off = SeatMemory.build(view, history, NONE)
    assert not on.voids[1] and not off.voids[1]  # no longer certain
    # Two of its six cards are new: a sampled card is Green a third as often.
    assert abs(on.lean[1]["G"] - __import__("math").log(2 / 6)) < 1e-9
    assert on.lean[1]["W"] < 0
    assert mean_count(view, on, 1, green) < mean_count(view, off, 1, green) - 0.3
    assert mean_count(view, on, 1, green) > 0  # a lean, not a void


def twins_after_a_wild(k):
    # Seat 3 names Red with a Wild in both; what else the hidden seats hold differs.
    hidden = [["R1", "R2", "G8"], ["B1", "B2", "Y1"], ["Y2", "Y3", "G7"]]
    if k:
        hidden = [["B1", "B2", "Y1"], ["Y2", "Y3", "G7"], ["R1", "R2", "G8"]]
    g = position(
        [["R4", "G1", "G2", "Y5", "R7"], hidden[0], hidden[1], ["W", *hidden[2]]],
        "G5",
        turn=3,
        draw=["B7", "B9", "R6", "R8", "Y7", "G3"],
    )
    events = g.act(3, {"type": "play", "card": "W", "color": "R"})
    return g, seen_by(0, events)


def test_inference_reads_only_what_the_seat_saw():
    (a, ha), (b, hb) = twins_after_a_wild(0), twins_after_a_wild(1)
    assert a.view(0) == b.view(0) and ha == hb
    assert a.to_dict() != b.to_dict()
    ma = SeatMemory.build(a.view(0), ha, ALL_INFERENCES)
    assert ma.lean[3]["R"] > 0  # the inference is in play here
    assert ma.lean == SeatMemory.build(b.view(0), hb, ALL_INFERENCES).lean
    budget = Budget(rollouts=8, horizon=20)
    pick = [
        decide(
            "hard",
            g.view(0),
            g.legal_actions(0),
            h,
            random.Random(5),
            budget=budget,
            inference=ALL_INFERENCES,
        )
        for g, h in ((a, ha), (b, hb))
    ]
    assert pick[0] == pick[1]


def test_hard_with_inference_repeats_its_choice_for_the_same_seed():
    g, seen = twins_after_a_wild(0)
    budget = Budget(rollouts=10, horizon=20)
    picks = {
        str(
            decide(
                "hard",
                g.view(0),
                g.legal_actions(0),
                seen,
                random.Random(9),
                budget=budget,
                inference=SHARPENING,
            )
        )
        for _ in range(3)
    }
    assert len(picks) == 1


def test_the_inference_sets_name_known_inferences():
    assert INFERENCES <= ALL_INFERENCES and SHARPENING <= ALL_INFERENCES


def test_without_inference_every_lean_is_zero():
    # With no inference the sampler is uniform over what the seat may hold, and an
    # inference the position gives no evidence for (nobody handed this seat cards) adds
    # nothing either.
    g, seen = twins_after_a_wild(0)
    view = g.view(0)
    off = SeatMemory.build(view, seen, frozenset())
    assert not any(v for lean in off.lean.values() for v in lean.values())
    assert SeatMemory.build(view, seen, {"partner_give"}).lean == off.lean


def test_weighted_samples_match_every_public_count_and_respect_voids():

    from games.engine import Game, Options
    from games.engine.random_moves import random_action

    checked = 0
    for players in (4, 6, 8):
        g = Game.new(Options(players=players), 8)
        events = list(g.initial_events())
        rng = random.Random(players)
        for _ in range(300):
            if g.stage == "over" or checked > 60 * players:
                break
            s = g.waiting_on()[0]
            events += g.act(s, random_action(g, s, rng))
            if g.stage == "over" or g.turn is None or g.view(g.turn)["decision"] != "turn":
                continue
            seat = g.turn
            view = g.view(seat)
            mem = SeatMemory.build(view, events_for(events, seat), ALL_INFERENCES)
            if not any(v for lean in mem.lean.values() for v in lean.values()):
                continue
            hands, draw = sample_world(view, mem, random.Random(checked))
            checked += 1
            assert_sample_matches(view, seat, mem, hands, draw, g)
    assert checked > 20


def test_cards_a_void_seat_cannot_hold_are_spread_by_hand_size():
    # Seat 3 lacks Blue; the 13 cards left after its 5 hold 4 Blues, dealt to seat 1 (4
    # cards), seat 2 (3) and the draw pile (6) in proportion. Handing the void seat's
    # rejects to the next seat dealt would give seat 1 two Blues on average.
    g, seen = wild_position()
    view = g.view(0)
    mem = SeatMemory.build(view, seen, NONE)
    assert mem.voids[3] >= {"B", "W"}
    assert abs(mean_count(view, mem, 1, blue, samples=600) - 4 * 4 / 13) < 0.12
    assert abs(mean_count(view, mem, 2, blue, samples=600) - 4 * 3 / 13) < 0.12


def test_weighted_samples_keep_a_void_seat_off_the_colour_it_lacks():
    # Seat 1 drew on its turn with Green in play; seat 2's Wild gives the sampler a lean, so
    # the weighted draw (not the uniform one) deals seat 1.
    g = position(
        [["G1", "G3", "R4"], ["R1", "R3", "B4", "Y9"], ["B1", "B3", "Y2"], ["Y1", "Y3", "Y4"]],
        "B5",
        draw=["B7", "B9", "R6", "G7", "G8", "W"],
    )
    history = [
        {"type": "play", "seat": 3, "card": "G5", "color": "G", "visible_to": None},
        {"type": "draw", "seat": 1, "count": 1, "reason": "turn", "visible_to": None},
        {"type": "play", "seat": 2, "card": "W", "color": "B", "visible_to": None},
        {"type": "play", "seat": 3, "card": "B5", "visible_to": None, "color": "B"},
    ]
    view = g.view(0)
    mem = SeatMemory.build(view, history, SHARPENING)
    assert {"G", "W"} <= mem.voids[1] and mem.lean[2]["B"] > 0
    for seed in range(30):
        hands, _ = sample_world(view, mem, random.Random(seed))
        assert not any(COLOR[c] == "G" or c in IS_WILD for c in hands[1])
