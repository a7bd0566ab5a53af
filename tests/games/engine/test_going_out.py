"""Going out and the half pass (rule book: Going out; CLARIFICATIONS: Resolving a played
card, Smaller rulings)."""

import pytest

from games.engine import events_for

from .helpers import (
    assert_illegal,
    card_codes_in,
    give,
    hand,
    make_game,
    play,
    public,
    sizes,
)

PILE = ["G4", "B6", "Y7", "Y6"]


def test_a_team_wins_the_round_when_a_player_goes_out_with_the_partner_already_out():
    game = make_game([["R7"], ["G9", "B9"], [], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["round_over"]["blocked"] is False
    assert v["game_over"]["winner"] == 0


def test_a_partner_with_cards_must_give_half_rounded_down():
    game = make_game(
        [["R7"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9", "G7"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "R7")
    v = public(game)
    assert game.view(2)["must_give"] == 2
    assert game.view(0)["must_give"] == 0
    assert list(v["waiting_on"]) == [2]
    assert v["turn"] == 0
    assert game.legal_actions(2) == []
    assert game.legal_actions(1) == []
    assert sizes(game) == [0, 2, 5, 2]


@pytest.mark.parametrize("players,held,given", [(4, 2, 1), (4, 3, 1), (6, 7, 3), (8, 6, 3)])
def test_the_half_pass_is_the_partner_s_hand_size_halved_rounded_down(players, held, given):
    others = [["G9"], ["B1"], ["Y1"], ["G6"], ["B3"], ["Y3"], ["G3"], ["B4"]]
    hands = [list(others[i]) for i in range(players)]
    hands[0] = ["R7"]
    hands[players // 2] = ["Y4", "G1", "B2", "Y9", "G7", "B8", "Y8"][:held]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    assert game.view(players // 2)["must_give"] == given


def test_the_partner_chooses_the_cards_and_the_player_is_back_in_with_them():
    game = make_game(
        [["R7"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9", "G7"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "R7")
    events = give(game, 2, ["Y9", "B2"])
    assert hand(game, 0) == ["Y9", "B2"]
    assert hand(game, 2) == ["Y4", "G1", "G7"]
    assert sorted(game.view(0)["received"]) == ["B2", "Y9"]
    assert game.view(2)["received"] == []
    v = public(game)
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 1
    assert all(game.view(s)["must_give"] == 0 for s in range(4))
    for seat in (1, 3, None):
        assert card_codes_in(events_for(events, seat)) == []


def test_a_partner_with_one_card_gives_nothing_and_the_player_stays_out():
    game = make_game([["R7"], ["G9", "B9"], ["Y4"], ["Y1", "G6"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    v = public(game)
    assert v["out"] == [True, False, False, False]
    assert v["turn"] == 1
    assert all(game.view(s)["must_give"] == 0 for s in range(4))
    assert hand(game, 2) == ["Y4"]


def test_it_refuses_a_half_pass_of_the_wrong_size_or_of_cards_not_held():
    game = make_game(
        [["R7"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9", "G7"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "R7")
    assert_illegal(game, 2, {"type": "give", "cards": ["Y4"]})
    assert_illegal(game, 2, {"type": "give", "cards": ["Y4", "G1", "B2"]})
    assert_illegal(game, 2, {"type": "give", "cards": ["Y4", "R9"]})
    assert_illegal(game, 2, {"type": "give", "cards": ["Y4", "Y4"]})
    assert_illegal(game, 2, {"type": "give", "cards": []})
    assert_illegal(game, 0, {"type": "give", "cards": ["Y4", "G1"]})
    assert_illegal(game, 1, {"type": "play", "card": "G9"})


def test_the_effect_of_a_last_draw_two_waits_for_the_half_pass():
    game = make_game(
        [["RD2"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "RD2")
    assert hand(game, 1) == ["G9", "B9"]
    assert public(game)["draw_pile_size"] == len(PILE)
    give(game, 2, ["Y4", "G1"])
    assert hand(game, 1) == ["G4", "G9", "B6", "B9"]
    assert public(game)["turn"] == 2


def test_the_skip_of_a_last_skip_resolves_after_the_half_pass():
    game = make_game(
        [["RS"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "RS")
    give(game, 2, ["Y4", "G1"])
    assert public(game)["turn"] == 2


def test_the_reverse_of_a_last_reverse_resolves_after_the_half_pass():
    game = make_game(
        [["RR"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "RR")
    assert public(game)["direction"] == 1
    give(game, 2, ["Y4", "G1"])
    v = public(game)
    assert v["direction"] == -1
    assert v["turn"] == 3


def test_a_last_wild_team_draw_four_hits_after_the_half_pass():
    game = make_game(
        [["WTD4"], ["G9", "B9"], ["Y4", "G1", "B2", "Y9"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "WTD4", "Y")
    assert sizes(game) == [0, 2, 4, 2]
    give(game, 2, ["Y4", "G1"])
    assert sizes(game) == [2, 4, 2, 4]
    assert public(game)["turn"] == 2
    assert public(game)["color"] == "Y"


def test_a_player_who_is_out_takes_no_turns_until_brought_back():
    game = make_game([["R7"], ["R9", "B9"], ["Y4"], ["R1", "G6"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    play(game, 1, "R9")
    assert public(game)["turn"] == 2
    assert game.legal_actions(0) == []
