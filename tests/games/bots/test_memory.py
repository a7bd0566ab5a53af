"""SeatMemory: what a seat knows, folded from its own visible events."""

import random

from games.bots import SeatMemory
from games.engine import Game, Options, events_for

from .helpers import position


def test_it_remembers_what_it_gave_its_partner_until_the_partner_plays_it():
    g = Game.new(Options(players=4), 12)
    events = list(g.initial_events())
    for s in range(4):
        events += g.act(s, {"type": "pass", "card": g.view(s)["hand"][0]})
    mine = events_for(events, 0)
    traded = [e for e in mine if e["type"] == "traded"]
    assert len(traded) == 1  # it sees its own trade only
    gave = traded[0]["gave"]
    mem = SeatMemory.build(g.view(0), mine)
    assert mem.partner_known[gave] == 1
    assert gave in g.hands[2]
    played = mine + [{"type": "play", "seat": 2, "card": gave, "color": "R", "visible_to": None}]
    assert SeatMemory.build(g.view(0), played).partner_known[gave] == 0


def test_cards_handed_over_in_a_half_pass_are_known_to_the_giver():
    g = position([["R9"], ["G6", "G8"], ["G1", "G2", "B3", "B4"], ["Y6", "Y8"]], "R5")
    events = g.act(0, {"type": "play", "card": "R9"})
    events += g.act(2, {"type": "give", "cards": ["B3", "B4"]})
    mem2 = SeatMemory.build(g.view(2), events_for(events, 2))
    assert sorted(mem2.partner_known.elements()) == ["B3", "B4"]
    mem0 = SeatMemory.build(g.view(0), events_for(events, 0))
    assert not mem0.partner_known  # the receiver holds them itself
    assert mem2.partner_pref["B"] > mem2.partner_pref["G"]


def test_an_unanswered_wild_team_play_shows_the_partner_lacks_that_colour():
    g = position(
        [["WTP", "G4", "G5"], ["Y6", "Y8"], ["B1", "B3"], ["Y1", "Y2"]],
        "R5",
        draw=["R1", "R2", "R3"],
    )
    events = g.act(0, {"type": "play", "card": "WTP", "color": "G"})
    mem = SeatMemory.build(g.view(1), events_for(events, 1))
    assert {"G", "W"} <= mem.voids[2]


def test_a_new_round_forgets_the_old_one():
    g = Game.new(Options(players=4, target_score=5000), 3)
    events = list(g.initial_events())
    rng = random.Random(1)
    from games.engine.random_moves import random_action

    while g.round == 1:
        s = g.waiting_on()[0]
        events += g.act(s, random_action(g, s, rng))
    seen = events_for(events, 0)
    mem = SeatMemory.build(g.view(0), seen)
    assert not mem.partner_known and not any(mem.voids.values())
