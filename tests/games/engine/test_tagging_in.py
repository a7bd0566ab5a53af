"""Tagging back in (rule book: Tagging back in; CLARIFICATIONS: Drawing)."""

import pytest

from games.engine import events_for

from .helpers import (
    PASS_TURN,
    assert_illegal,
    card_codes_in,
    draw,
    give,
    hand,
    legal,
    make_game,
    pass_turn,
    play,
    plays,
    public,
    sizes,
)


def _partner_out(own, draw_pile, discard=("R3",)):
    return make_game(
        [own, ["G9", "B9"], [], ["Y4", "G1"]], discard=list(discard), draw_pile=draw_pile
    )


def test_a_turn_draw_makes_the_player_hand_half_the_hand_to_the_out_partner():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=["G4", "B6"])
    draw(game, 0)
    assert hand(game, 0) == ["Y1", "G2", "G4", "B4"]
    assert game.view(0)["must_give"] == 2
    assert list(public(game)["waiting_on"]) == [0]
    assert game.legal_actions(0) == []
    give(game, 0, ["Y1", "B4"])
    v = public(game)
    assert hand(game, 2) == ["Y1", "B4"]
    assert hand(game, 0) == ["G2", "G4"]
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 1
    assert game.view(2)["received"] == ["Y1", "B4"]
    assert game.view(0)["received"] == []


@pytest.mark.parametrize("held,given", [(1, 1), (2, 1), (4, 2), (5, 3)])
def test_the_tag_in_count_is_half_the_hand_after_the_draw(held, given):
    own = ["Y1", "G2", "B4", "Y8", "G8"][:held]
    game = _partner_out(own, draw_pile=["G4", "B6"])
    draw(game, 0)
    assert game.view(0)["must_give"] == given


def test_handing_over_the_drawn_playable_card_ends_the_turn():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=["R8", "B6"])
    draw(game, 0)
    assert game.view(0)["must_give"] == 2
    give(game, 0, ["R8", "Y1"])
    v = public(game)
    assert hand(game, 0) == ["G2", "B4"]
    assert hand(game, 2) == ["R8", "Y1"]
    assert v["turn"] == 1
    assert v["discard"] == ["R3"]


def test_keeping_the_drawn_playable_card_means_it_must_still_be_played():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=["R8", "B6"])
    draw(game, 0)
    give(game, 0, ["Y1", "G2"])
    assert public(game)["turn"] == 0
    assert legal(game, 0) == plays("R8")
    assert_illegal(game, 0, {"type": "draw"})
    play(game, 0, "R8")
    assert public(game)["turn"] == 1
    assert hand(game, 0) == ["B4"]


def test_a_draw_two_victim_tags_the_out_partner_in_and_the_turn_moves_on_after_the_pass():
    game = make_game(
        [["RD2", "Y1"], ["G9", "B9", "Y8"], ["G7", "B7"], []],
        discard=["R3"],
        draw_pile=["G4", "B6", "Y7"],
    )
    play(game, 0, "RD2")
    assert hand(game, 1) == ["Y8", "G4", "G9", "B6", "B9"]
    assert game.view(1)["must_give"] == 2
    assert list(public(game)["waiting_on"]) == [1]
    assert game.legal_actions(2) == []
    give(game, 1, ["G9", "B9"])
    v = public(game)
    assert hand(game, 3) == ["G9", "B9"]
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 2


def test_a_draw_of_no_card_does_not_tag_in():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=[])
    assert legal(game, 0) == {PASS_TURN}
    pass_turn(game, 0)
    v = public(game)
    assert v["out"][2] is True
    assert game.view(0)["must_give"] == 0
    assert v["turn"] == 1


def test_a_short_draw_of_one_card_still_tags_in():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=[], discard=["B6", "R3"])
    draw(game, 0)
    assert hand(game, 0) == ["Y1", "G2", "B4", "B6"]
    assert game.view(0)["must_give"] == 2


def test_other_seats_learn_how_many_cards_were_handed_over_but_not_which():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=["G4", "B6"])
    draw(game, 0)
    events = give(game, 0, ["Y1", "B4"])
    for seat in (1, 3, None):
        assert card_codes_in(events_for(events, seat)) == []
    gives = [e for e in events if e["type"] == "give"]
    assert [(e["seat"], e["to"], e["count"], e["reason"]) for e in gives] == [(0, 2, 2, "tag_in")]
    assert {"Y1", "B4"} <= set(card_codes_in(events_for(events, 2)))


def test_it_refuses_a_tag_in_pass_of_the_wrong_size():
    game = _partner_out(["Y1", "G2", "B4"], draw_pile=["G4", "B6"])
    draw(game, 0)
    assert_illegal(game, 0, {"type": "give", "cards": ["Y1"]})
    assert_illegal(game, 0, {"type": "give", "cards": ["Y1", "G2", "B4"]})
    assert_illegal(game, 0, {"type": "play", "card": "G4"})
    assert_illegal(game, 2, {"type": "give", "cards": ["Y1", "B4"]})
    assert sizes(game) == [4, 2, 0, 2]
