"""A turn: what is playable, playing, drawing and passing (rule book: A turn)."""

import pytest

from games.engine import events_for

from .helpers import (
    DRAW,
    PASS_TURN,
    assert_illegal,
    card_codes_in,
    draw,
    hand,
    legal,
    make_game,
    pass_turn,
    play,
    plays,
    public,
    sizes,
)

FILL = ["B9", "G7"]  # nothing in it plays on a red 3


def _turn_position(own, top="R3", color=None, draw_pile=("G4", "B6"), discard_below=()):
    return make_game(
        [own, FILL, ["Y9", "B8"], ["G6", "B1"]],
        discard=list(discard_below) + [top],
        draw_pile=draw_pile,
        color=color,
    )


def test_a_card_of_the_colour_in_play_is_playable():
    assert plays("R7") <= legal(_turn_position(["R7", "Y1"]), 0)


def test_a_card_of_the_same_number_is_playable():
    assert legal(_turn_position(["Y3", "G1"]), 0) == plays("Y3")


def test_an_action_card_plays_on_the_same_action_of_another_colour():
    game = _turn_position(["RS", "BS", "YR", "GD2"], top="GS")
    assert legal(game, 0) == plays("RS", "BS", "GD2")


@pytest.mark.parametrize("wild", ["W", "WTP", "WTD4"])
def test_every_kind_of_wild_is_always_playable_with_each_colour(wild):
    game = _turn_position([wild, "Y1"])
    assert legal(game, 0) == plays(wild)
    assert len(game.legal_actions(0)) == 4


def test_a_passing_symbol_card_matches_like_its_plain_twin():
    assert legal(_turn_position(["R5P", "Y1"], top="G5"), 0) == plays("R5P")
    assert legal(_turn_position(["B5", "Y1"], top="R5P"), 0) == plays("B5")
    assert legal(_turn_position(["Y2P", "G1"], top="B2P"), 0) == plays("Y2P")


def test_legal_actions_list_exactly_the_playable_cards_once_per_code():
    game = _turn_position(["R1", "R1", "Y3", "G4", "B7", "W"], draw_pile=("G6", "B6"))
    assert legal(game, 0) == plays("R1", "Y3", "W")
    assert len(game.legal_actions(0)) == 6


def test_after_a_wild_the_chosen_colour_decides_what_plays():
    game = _turn_position(["G2", "R7", "WTP"], top="W", color="G")
    assert legal(game, 0) == plays("G2", "WTP")


def test_a_player_with_nothing_playable_may_only_draw():
    game = _turn_position(["Y1", "G4"])
    assert legal(game, 0) == {DRAW}


def test_it_refuses_a_draw_while_a_playable_card_is_held():
    game = _turn_position(["Y1", "R9"])
    assert DRAW not in legal(game, 0)
    assert_illegal(game, 0, {"type": "draw"})


def test_drawing_takes_the_top_card_and_an_unplayable_one_ends_the_turn():
    game = _turn_position(["Y1", "G4"], draw_pile=("B6", "R5"))
    events = draw(game, 0)
    assert hand(game, 0) == ["Y1", "G4", "B6"]
    v = public(game)
    assert v["draw_pile_size"] == 1
    assert v["turn"] == 1
    assert v["discard"] == ["R3"]
    assert "draw" in [e["type"] for e in events]


def test_a_drawn_playable_card_must_be_played_at_once():
    game = _turn_position(["Y1", "G4"], draw_pile=("R8", "B6"))
    draw(game, 0)
    assert legal(game, 0) == plays("R8")
    assert public(game)["turn"] == 0
    assert game.view(0)["must_play"] == "R8"
    assert_illegal(game, 0, {"type": "draw"})
    assert_illegal(game, 0, {"type": "pass_turn"})
    play(game, 0, "R8")
    v = public(game)
    assert v["discard"][-1] == "R8"
    assert v["turn"] == 1


def test_only_the_drawer_learns_which_card_must_be_played():
    game = _turn_position(["Y1", "G4"], draw_pile=("R8", "B6"))
    events = draw(game, 0)
    for seat in (1, 2, 3, None):
        assert game.view(seat).get("must_play") is None
        assert card_codes_in(events_for(events, seat)) == []
    assert "R8" in card_codes_in(events_for(events, 0))


def test_a_drawn_wild_must_be_played_with_a_colour():
    game = _turn_position(["Y1", "G4"], draw_pile=("WTD4", "B6"))
    draw(game, 0)
    assert legal(game, 0) == plays("WTD4")
    assert_illegal(game, 0, {"type": "play", "card": "WTD4"})


def test_after_a_forced_draw_no_other_card_may_be_played():
    game = _turn_position(["Y1", "G4"], top="B2", draw_pile=("B5", "Y2"))
    draw(game, 0)
    assert_illegal(game, 0, {"type": "play", "card": "Y1"})
    assert legal(game, 0) == plays("B5")


def test_a_player_who_can_neither_play_nor_draw_passes_the_turn():
    game = _turn_position(["Y1", "G4"], draw_pile=())
    assert legal(game, 0) == {PASS_TURN}
    assert_illegal(game, 0, {"type": "draw"})
    events = pass_turn(game, 0)
    assert public(game)["turn"] == 1
    assert hand(game, 0) == ["Y1", "G4"]
    assert "pass_turn" in [e["type"] for e in events]


def test_pass_turn_is_refused_while_a_card_can_still_be_drawn():
    game = _turn_position(["Y1", "G4"])
    assert_illegal(game, 0, {"type": "pass_turn"})


def test_pass_turn_is_refused_while_a_card_can_be_played():
    game = _turn_position(["R1", "G4"], draw_pile=())
    assert legal(game, 0) == plays("R1")
    assert_illegal(game, 0, {"type": "pass_turn"})


def test_with_an_empty_draw_pile_a_draw_is_still_possible_from_the_discard():
    game = _turn_position(["Y1", "G4"], draw_pile=(), discard_below=["B6"])
    assert legal(game, 0) == {DRAW}


def test_playing_a_card_puts_it_on_the_discard_and_sets_its_colour():
    game = _turn_position(["Y3", "G4"])
    events = play(game, 0, "Y3")
    v = public(game)
    assert v["discard"] == ["R3", "Y3"]
    assert v["color"] == "Y"
    assert hand(game, 0) == ["G4"]
    assert sizes(game) == [1, 2, 2, 2]
    assert {"type": "play", "seat": 0, "card": "Y3"}.items() <= next(
        e for e in events if e["type"] == "play"
    ).items()


def test_play_goes_clockwise_from_seat_to_seat():
    game = make_game([["R1", "Y9"], ["R2", "Y8"], ["R4", "G8"], ["R6", "B8"]], discard=["R3"])
    for seat, card in ((0, "R1"), (1, "R2"), (2, "R4"), (3, "R6")):
        assert public(game)["turn"] == seat
        play(game, seat, card)
    assert public(game)["turn"] == 0


def test_play_goes_counter_clockwise_when_the_direction_is_reversed():
    game = make_game(
        [["R1", "Y9"], ["R2", "Y8"], ["R4", "G8"], ["R6", "B8"]], discard=["R3"], direction=-1
    )
    play(game, 0, "R1")
    assert public(game)["turn"] == 3


def test_a_seat_that_is_out_is_passed_over_in_turn_order():
    game = make_game([["R1", "Y9"], [], ["R4", "G8"], ["R6", "B8"]], discard=["R3"])
    assert public(game)["out"] == [False, True, False, False]
    play(game, 0, "R1")
    assert public(game)["turn"] == 2
    play(game, 2, "R4")
    play(game, 3, "R6")
    assert public(game)["turn"] == 0


def test_an_out_seat_has_nothing_to_decide_and_cannot_draw():
    game = make_game([["R1", "Y9"], [], ["R4", "G8"], ["R6", "B8"]], discard=["R3"])
    assert game.legal_actions(1) == []
    assert_illegal(game, 1, {"type": "draw"})


def test_it_refuses_a_card_out_of_turn():
    game = _turn_position(["R1", "G4"])
    assert game.legal_actions(2) == []
    assert_illegal(game, 2, {"type": "play", "card": "B8"})


def test_the_turn_is_waited_on_alone_during_an_ordinary_turn():
    game = _turn_position(["R1", "G4"])
    v = public(game)
    assert v["turn"] == 0
    assert list(v["waiting_on"]) == [0]
