"""Weighing sampled worlds by how likely the other seats' moves were in them, read as moves of
a softened Normal, from the seat's own events only."""

import random

from games.bots import Budget
from games.bots.likelihood import Trails
from games.engine import events_for

from .helpers import ask, position


def dealt(top, sizes):
    """A deal event for a position (which has none), so a trail knows what was in play and
    how many cards each seat held when its events began."""
    return {
        "type": "deal",
        "round": 1,
        "dealer": 3,
        "starter": top,
        "set_aside": [],
        "hand_sizes": list(sizes),
        "first": 0,
        "visible_to": None,
    }


def weight(trails, hands, seat, hand):
    hands = [list(h) for h in hands]
    hands[seat] = hand
    return trails.log_weight(hands, random.Random(0))


def test_a_wild_spent_with_a_playable_card_in_hand_and_its_colour_weigh_the_hands():
    # Seat 1 names Blue with a plain Wild while Green 5 is on top.
    hands = [
        ["R4", "G1", "G2", "Y5"],
        ["W", "R1", "R2", "B3", "B4"],
        ["Y1", "R9"],
        ["Y2", "Y3", "R6"],
    ]
    g = position(hands, "G5", turn=1, draw=["R7", "R8"])
    events = [dealt("G5", [len(h) for h in hands])]
    events += g.act(1, {"type": "play", "card": "W", "color": "B"})
    trails = Trails.build(g.view(0), events_for(events, 0))
    now = g.hands
    # Normal keeps Wilds for need: holding a Green it would have played that instead.
    assert weight(trails, now, 1, ["R1", "R2", "B3", "B4"]) > (
        weight(trails, now, 1, ["R1", "R2", "B3", "G9"]) + 1.0
    )
    # Normal names the colour it holds most of.
    assert weight(trails, now, 1, ["R1", "B2", "B3", "B4"]) > (
        weight(trails, now, 1, ["R1", "R2", "R3", "B4"]) + 1.0
    )


def test_cards_kept_since_a_draw_were_unplayable_when_it_drew():
    # Seat 1 has nothing to play on Green 5, draws the Red 6 and keeps it.
    hands = [["R4", "G1"], ["R1", "R3", "B4", "Y9"], ["Y1", "R9"], ["Y2", "Y3"]]
    g = position(hands, "G5", turn=1, draw=["R6", "R8"])
    events = [dealt("G5", [len(h) for h in hands])]
    events += g.act(1, {"type": "draw"})
    trails = Trails.build(g.view(0), events_for(events, 0))
    consistent = weight(trails, g.hands, 1, ["R1", "R3", "B4", "Y9", "R6"])
    held_green = weight(trails, g.hands, 1, ["R1", "G3", "B4", "Y9", "R6"])
    assert consistent == 0.0
    assert held_green < -2.0


def test_a_trade_nobody_else_saw_starts_a_seats_trail_again():
    hands = [["R4", "G1"], ["R1", "R3", "B4", "Y9"], ["Y1", "R9"], ["Y2", "Y3"]]
    g = position(hands, "G5", turn=1, draw=["R6", "R8"])
    events = [dealt("G5", [len(h) for h in hands])]
    events += g.act(1, {"type": "draw"})
    events.append({"type": "swap", "seats": [1, 3], "visible_to": None})
    trails = Trails.build(g.view(0), events_for(events, 0))
    assert weight(trails, g.hands, 1, ["R1", "G3", "B4", "Y9", "R6"]) == 0.0


def test_hard_searching_weighed_worlds_replays_exactly_and_plays_legally():
    hands = [["Y3", "B2", "B8", "R9"], ["B1", "B3", "W"], ["G4", "G3"], ["R1", "R4"]]
    g = position(hands, "Y5", turn=1, draw=["B7", "B9", "R6", "R7"])
    events = [dealt("Y5", [len(h) for h in hands])]
    events += g.act(1, {"type": "play", "card": "W", "color": "B"})
    for seat, card in ((2, "B7"), (3, "B9")):  # each draws a Blue and must play it
        events += g.act(seat, {"type": "draw"})
        events += g.act(seat, {"type": "play", "card": card})
    assert len(g.legal_actions(0)) > 1
    budget = Budget(rollouts=12, horizon=20, pool=30)
    moves = [ask("hard", g, 0, history=events, seed=3, budget=budget) for _ in range(3)]
    assert moves[0] == moves[1] == moves[2]
    assert moves[0] in g.legal_actions(0)
