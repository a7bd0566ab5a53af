"""The Stack draw cards option (rule book: Options > Stack draw cards; CLARIFICATIONS:
Stacking option)."""

import pytest

from .helpers import (
    TAKE_PENALTY,
    assert_illegal,
    give,
    hand,
    legal,
    make_game,
    play,
    plays,
    public,
    sizes,
    take_penalty,
)

PILE = ["G4", "B6", "Y7", "Y6", "B1", "G9"]


def _stack(hands, **kwargs):
    return make_game(hands, discard=["R3"], draw_pile=PILE, stacking=True, **kwargs)


def test_a_draw_two_makes_the_penalty_wait_on_the_next_player():
    game = _stack([["RD2", "Y1"], ["GD2", "R5", "W"], ["G7"], ["Y4"]])
    events = play(game, 0, "RD2")
    v = public(game)
    assert v["penalty"] == 2
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]
    assert hand(game, 1) == ["R5", "GD2", "W"]
    assert v["draw_pile_size"] == len(PILE)
    assert [(e["seat"], e["total"]) for e in events if e["type"] == "penalty"] == [(1, 2)]


def test_the_waiting_player_may_pass_it_on_with_a_draw_two_of_any_colour_or_take_it():
    game = _stack([["RD2", "Y1"], ["GD2", "R5", "W", "WTP", "WTD4"], ["G7"], ["Y4"]])
    play(game, 0, "RD2")
    assert legal(game, 1) == plays("GD2") | {TAKE_PENALTY}


def test_passing_it_on_adds_two_and_aims_it_at_the_next_seat():
    game = _stack([["RD2", "Y1"], ["GD2", "R5"], ["G7", "B7"], ["Y4"]])
    play(game, 0, "RD2")
    play(game, 1, "GD2")
    v = public(game)
    assert v["penalty"] == 4
    assert v["turn"] == 2
    assert v["color"] == "G"
    assert sizes(game) == [1, 1, 2, 1]


def test_taking_the_penalty_draws_the_whole_amount_and_loses_the_turn():
    game = _stack([["RD2", "Y1"], ["GD2", "R5"], ["G7", "B7"], ["Y4"]])
    play(game, 0, "RD2")
    play(game, 1, "GD2")
    take_penalty(game, 2)
    v = public(game)
    assert hand(game, 2) == ["Y6", "Y7", "G4", "G7", "B6", "B7"]
    assert v["penalty"] == 0
    assert v["turn"] == 3


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "R5"},
        {"type": "play", "card": "W", "color": "R"},
        {"type": "play", "card": "WTP", "color": "R"},
        {"type": "play", "card": "WTD4", "color": "R"},
        {"type": "draw"},
        {"type": "pass_turn"},
    ],
)
def test_nothing_but_a_draw_two_or_taking_it_is_allowed_while_a_penalty_waits(action):
    game = _stack([["RD2", "Y1"], ["GD2", "R5", "W", "WTP", "WTD4"], ["G7"], ["Y4"]])
    play(game, 0, "RD2")
    assert_illegal(game, 1, action)


def test_a_waiting_player_without_a_draw_two_can_only_take_the_penalty():
    game = _stack([["RD2", "Y1"], ["R5", "W"], ["G7"], ["Y4"]])
    play(game, 0, "RD2")
    assert legal(game, 1) == {TAKE_PENALTY}


def test_it_refuses_take_penalty_when_no_penalty_waits():
    game = _stack([["RD2", "Y1"], ["R5", "W"], ["G7"], ["Y4"]])
    assert TAKE_PENALTY not in legal(game, 0)
    assert_illegal(game, 0, {"type": "take_penalty"})


def test_an_out_seat_hit_by_a_waiting_penalty_takes_it_at_once_and_loses_the_turn():
    game = _stack([["RD2", "Y1"], [], ["G7"], ["Y4", "B4"]])
    play(game, 0, "RD2")
    v = public(game)
    assert hand(game, 1) == ["G4", "B6"]
    assert v["penalty"] == 0
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 2


def test_a_passed_on_penalty_that_lands_on_an_out_seat_is_taken_whole():
    game = _stack([["RD2", "Y1"], ["GD2", "R5"], [], ["Y4", "B4"], ["B3"], ["B2"]])
    play(game, 0, "RD2")
    play(game, 1, "GD2")
    v = public(game)
    assert hand(game, 2) == ["Y6", "Y7", "G4", "B6"]
    assert v["penalty"] == 0
    assert v["turn"] == 3


def test_taking_a_penalty_with_an_out_partner_tags_them_in():
    game = _stack([["RD2", "Y1"], ["R5", "Y5"], ["G7"], []])
    play(game, 0, "RD2")
    take_penalty(game, 1)
    assert game.view(1)["must_give"] == 2
    give(game, 1, ["R5", "Y5"])
    v = public(game)
    assert hand(game, 3) == ["R5", "Y5"]
    assert v["turn"] == 2


def test_wild_team_draw_four_is_never_stacked_and_hits_at_once():
    game = _stack([["WTD4", "Y1"], ["GD2", "R5"], ["G7"], ["Y4"]])
    play(game, 0, "WTD4", "G")
    v = public(game)
    assert v["penalty"] == 0
    assert sizes(game) == [1, 4, 1, 3]
    assert v["turn"] == 2


def test_a_draw_two_passed_on_counter_clockwise_goes_to_the_seat_before():
    game = _stack([["RD2", "Y1"], ["G7"], ["Y4"], ["GD2", "R5"]], direction=-1)
    play(game, 0, "RD2")
    assert public(game)["turn"] == 3
    play(game, 3, "GD2")
    v = public(game)
    assert v["penalty"] == 4
    assert v["turn"] == 2


def test_a_last_draw_two_passed_on_waits_for_the_half_pass_then_aims_the_total_on():
    game = _stack([["RD2", "Y1"], ["GD2"], ["G7"], ["Y4", "B4", "Y8", "B8"]])
    play(game, 0, "RD2")
    play(game, 1, "GD2")
    assert game.view(3)["must_give"] == 2
    give(game, 3, ["Y4", "B4"])
    v = public(game)
    assert v["penalty"] == 4
    assert v["turn"] == 2
    assert hand(game, 1) == ["Y4", "B4"]
