"""Normal's heuristics, one small position each."""

import random

from games.bots import decide
from games.bots.memory import SeatMemory
from games.bots.policies import Ctx, normal_give, normal_pick

from .helpers import ask, position

OPP_FAR = ["R1", "R3", "R4", "R6", "R7", "R9", "Y1"]
OPP2 = ["G6", "G8", "G9", "Y6", "Y8", "Y9"]


def traded(seat, partner, gave, received):
    return {
        "type": "traded",
        "seat": seat,
        "partner": partner,
        "gave": gave,
        "received": received,
        "visible_to": [seat],
    }


def test_it_keeps_a_wild_when_a_coloured_card_will_do():
    g = position([["Y3", "W", "G7"], OPP_FAR, ["B1", "B3"], ["G1", "G3", "G4"]], "Y5")
    assert ask("normal", g, 0) == {"type": "play", "card": "Y3"}


def test_it_aims_the_team_draw_4_at_the_team_about_to_win():
    # 6 players: seat 0's adjacent seat is 1 (team 1, seats 1 and 4).
    hands = [
        ["WTD4", "G7", "G8"],
        ["B1"],
        ["Y1", "Y3", "Y4"],
        ["R1", "R3"],
        ["B3", "B4"],
        ["Y6", "Y7", "Y9"],
    ]
    g = position(hands, "G5")
    a = ask("normal", g, 0)
    assert a["type"] == "play" and a["card"] == "WTD4"


def test_it_keeps_the_team_draw_4_when_the_team_it_would_hit_is_far_from_winning():
    # Same hand, but team 1 (hit next) has many cards and team 2 is the one close to out.
    hands = [
        ["WTD4", "G7", "G8"],
        OPP_FAR,
        ["Y1", "Y3", "Y4"],
        ["R1"],
        ["B3", "B4", "B6", "B7", "B9", "Y9"],
        ["Y6"],
    ]
    g = position(hands, "G5")
    assert ask("normal", g, 0) != {"type": "play", "card": "WTD4", "color": "G"}
    assert ask("normal", g, 0)["card"] in ("G7", "G8")


def test_it_aims_a_draw_2_at_the_team_closest_to_winning():
    # 6 players; seat 1 (next, hit by the Draw 2) is in the team with one card left.
    hands = [
        ["GD2", "G4", "R3"],
        ["B1"],
        ["Y1", "Y3", "Y4"],
        ["R1", "R3", "R4", "R6"],
        ["B3", "B4"],
        ["Y6", "Y7", "Y9", "B9"],
    ]
    g = position(hands, "G5")
    assert ask("normal", g, 0) == {"type": "play", "card": "GD2"}


def test_it_dumps_its_high_card_when_an_opponent_is_low():
    low = position([["R1", "Y3", "Y9"], ["B1"], ["G1", "G3"], ["B3", "B4", "B6"]], "Y1")
    assert ask("normal", low, 0) == {"type": "play", "card": "Y9"}
    # With nobody close, it sheds its loneliest colour instead.
    calm = position([["R1", "Y3", "Y9"], OPP_FAR, ["G1", "G3"], OPP2], "Y1")
    assert ask("normal", calm, 0) == {"type": "play", "card": "R1"}


def test_it_plays_wild_team_play_in_its_partners_known_colour_to_get_it_out():
    g = position([["WTP", "R3", "R4"], OPP_FAR, ["G7"], OPP2], "R5")
    history = [traded(0, 2, "G7", "R3")]
    assert ask("normal", g, 0, history) == {"type": "play", "card": "WTP", "color": "G"}
    # Without knowing what the partner holds, it keeps the Wild.
    assert ask("normal", g, 0)["card"] in ("R3", "R4")


def test_it_passes_the_partner_a_card_of_the_colour_it_collects():
    # Seat 0 plays a passing-symbol card, then both partners pick a card to swap.
    g = position([["R2P", "B3", "Y1", "Y4", "Y6"], OPP_FAR, ["B7", "B9", "G1"], OPP2], "R5")
    events = g.act(0, {"type": "play", "card": "R2P"})
    assert g.view(0)["decision"] == "swap"
    history = [traded(0, 2, "B6", "R3")] + events  # it handed the partner a Blue before
    assert ask("normal", g, 0, history) == {"type": "pass", "card": "B3"}
    # Knowing nothing of the partner, it passes a card of its own strongest colour.
    assert ask("normal", g, 0, events)["card"] in ("Y1", "Y4", "Y6")


def test_it_never_passes_a_wild_in_the_setup_pass():
    view = {
        "seat": 0,
        "players": 4,
        "hand": ["R1", "W", "WTD4", "G3", "G4", "B9", "Y2"],
        "hand_sizes": [7] * 4,
        "departed": [False] * 4,
        "direction": 1,
        "discard": ["R5"],
        "color": "R",
        "penalty": 0,
    }
    ctx = Ctx.from_view(view, SeatMemory(0, 4))
    assert normal_pick(ctx, view["hand"]) not in ("W", "WTD4")


def test_it_gives_an_out_partner_whole_colour_groups():
    # Seat 0 plays its last card; partner seat 2 holds six cards and must give three.
    g = position([["R9"], OPP_FAR, ["G1", "G2", "B3", "B4", "B6", "Y7"], OPP2], "R5")
    g.act(0, {"type": "play", "card": "R9"})
    assert g.view(2)["must_give"] == 3
    a = ask("normal", g, 2)
    assert a["type"] == "give" and sorted(a["cards"]) == ["B3", "B4", "B6"]


def test_it_splits_its_wilds_with_an_out_partner():
    ctx = Ctx(2, 4, ["R1", "R3", "G4", "W", "WTP"], [1, 7, 5, 7], [False] * 4, 1, "R5", "R", 0)
    give = normal_give(ctx, 2)
    assert len(give) == 2 and sum(c in ("W", "WTP") for c in give) == 1


def test_it_passes_a_waiting_penalty_on():
    g = position([["RD2", "G4"], OPP_FAR, ["B1"], OPP2], "R5", stacking=True)
    g.act(0, {"type": "play", "card": "RD2"})
    assert g.view(1)["decision"] == "penalty"
    g2 = position([["G4", "Y1"], ["YD2", "B1", "B3"], ["B1"], OPP2], "GD2", stacking=True, turn=3)
    # Seat 3 plays nothing relevant; build the penalty on seat 1 from seat 0 instead.
    g3 = position([["GD2", "G4"], ["YD2", "B1", "B3"], ["B4"], OPP2], "G5", stacking=True)
    g3.act(0, {"type": "play", "card": "GD2"})
    assert ask("normal", g3, 1) == {"type": "play", "card": "YD2"}
    assert g2.view(3)["decision"] == "turn"


def test_a_forced_wild_takes_the_colour_it_holds_most():
    g = position([["G1", "G3", "B4"], OPP_FAR, ["B1"], OPP2], "R5", draw=["W"])
    g.act(0, {"type": "draw"})
    assert g.view(0)["decision"] == "forced"
    a = ask("normal", g, 0)
    assert a == {"type": "play", "card": "W", "color": "G"}


def test_easy_plays_a_matching_card_and_random_is_uniform():
    g = position([["Y3", "W", "G7"], OPP_FAR, ["B1"], OPP2], "Y5")
    picks = [
        decide("easy", g.view(0), g.legal_actions(0), [], random.Random(i)) for i in range(200)
    ]
    assert sum(p["card"] == "Y3" for p in picks) > 150
    legal = g.legal_actions(0)
    counts = {str(a): 0 for a in legal}
    for i in range(2000):
        counts[str(decide("random", g.view(0), legal, [], random.Random(i)))] += 1
    assert len(legal) == 5 and all(300 < k < 500 for k in counts.values())


def test_the_shedding_weights_play_the_high_card_where_normal_sheds_its_lone_colour():
    # Red 1 or Blue 9 on the Red 9, nobody near out. Normal plays its lone Red (the colour
    # held least goes first); the shedding weights count a card's points from the start,
    # so they play the Blue 9, which a lost round would charge 9 points for.
    g = position(
        [["R1", "B9", "B2", "Y3"], ["G1", "G3", "G4"], ["Y4", "Y6", "Y7"], ["G6", "G7", "G8"]], "R9"
    )

    def play(weights):
        return decide(
            "normal", g.view(0), g.legal_actions(0), [], random.Random(0), weights=weights
        )

    assert play(None) == play("normal") == {"type": "play", "card": "R1"}
    assert play("shedding") == {"type": "play", "card": "B9"}


def test_the_late_wild_weights_spend_a_wild_once_an_opposing_team_is_one_card_from_winning():
    # 8 players, teams of seats t and t + 4. Team 2's seat 2 is out and seat 6 holds one
    # card: the round is nearly lost, and a Wild left in hand would count 50 points. The
    # late-Wild weights play it now; Normal keeps it and plays a Green. With team 2 at two
    # cards both keep the Wild.
    def hands(last):
        return [
            ["W", "G7", "G8"],
            ["R1", "R2", "R3"],
            [],
            ["Y1", "Y2", "Y3"],
            ["R4", "R5", "R6"],
            ["Y4", "Y6", "Y7"],
            last,
            ["R7", "R8", "R9"],
        ]

    def play(g, weights):
        return decide(
            "normal", g.view(0), g.legal_actions(0), [], random.Random(0), weights=weights
        )

    near = position(hands(["B1"]), "G5")
    assert play(near, "normal")["card"] in ("G7", "G8")
    assert play(near, "shedding")["card"] in ("G7", "G8")
    assert play(near, "late_wild") == {"type": "play", "card": "W", "color": "G"}
    far = position(hands(["B1", "B2"]), "G5")
    assert play(far, "late_wild")["card"] in ("G7", "G8")
