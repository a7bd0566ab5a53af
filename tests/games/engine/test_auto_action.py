"""The table's plain legal move for a timed-out seat (rule book: Time limits;
CLARIFICATIONS: Time-outs)."""

from collections import Counter

import pytest

from games.engine import IllegalAction

from .helpers import (
    cheapest,
    draw,
    hand,
    make_game,
    new_game,
    normal,
    play,
    public,
    snapshot,
)


def _auto(game, seat):
    before = snapshot(game)
    action = game.auto_action(seat)
    assert game.to_dict() == before, "auto_action must not apply the move"
    game.act(seat, action)  # and the move it returns is legal
    return normal(action)


def test_the_setup_pass_time_out_passes_the_cheapest_card_first_in_hand_order():
    for seed in range(8):
        game = new_game(4, seed=seed)
        for seat in range(4):
            action = normal(game.auto_action(seat))
            assert action == {"type": "pass", "card": cheapest(hand(game, seat), 1)[0]}


def test_the_setup_pass_time_out_is_a_pick_like_any_other():
    game = new_game(6, seed=3)
    for seat in range(6):
        _auto(game, seat)
    assert public(game)["turn"] == 1


def test_the_swap_time_out_passes_the_cheapest_card():
    hands = [["R5P", "YS", "G2", "B2"], ["G9", "B9"], ["W", "Y4", "G1", "B1"], ["Y9", "G6"]]
    game = make_game(hands, discard=["R3"], draw_pile=["B6"])
    play(game, 0, "R5P")
    assert _auto(game, 0) == {"type": "pass", "card": "G2"}
    assert _auto(game, 2) == {"type": "pass", "card": "G1"}


def test_the_half_pass_time_out_gives_the_cheapest_cards():
    hands = [["R7"], ["G9", "B9"], ["RS", "Y4", "G0", "W", "B4", "Y8"], ["Y9", "G6"]]
    game = make_game(hands, discard=["R3"], draw_pile=["B6"])
    play(game, 0, "R7")
    action = normal(game.auto_action(2))
    assert action["type"] == "give"
    assert Counter(action["cards"]) == Counter(["G0", "Y4", "B4"])
    _auto(game, 2)
    assert hand(game, 0) == ["Y4", "G0", "B4"]


def test_the_tag_in_time_out_gives_the_cheapest_cards():
    hands = [["Y1", "G9", "WTP"], ["G7", "B9"], [], ["Y9", "G6"]]
    game = make_game(hands, discard=["R3"], draw_pile=["B6"])
    assert _auto(game, 0) == {"type": "play", "card": "WTP", "color": "Y"}  # Y1, G9 left: a tie
    # WTP: the partner is out, so seat 0 drew two and must tag them in.
    assert game.view(0)["must_give"] >= 1
    k = game.view(0)["must_give"]
    action = normal(game.auto_action(0))
    assert Counter(action["cards"]) == Counter(cheapest(hand(game, 0), k))


def test_the_turn_time_out_plays_the_first_playable_card_in_hand_order():
    game = make_game(
        [["Y3", "R9", "R1", "B3"], ["G9"], ["B7"], ["Y9"]], discard=["R3"], draw_pile=["B6"]
    )
    assert _auto(game, 0) == {"type": "play", "card": "R1"}


def test_the_turn_time_out_never_draws_while_a_card_can_be_played():
    game = make_game(
        [["G1", "B7", "WTD4"], ["G9"], ["B8"], ["Y9"]], discard=["R3"], draw_pile=["B6"]
    )
    action = _auto(game, 0)
    assert action["card"] == "WTD4"


def test_the_turn_time_out_draws_with_nothing_playable_and_then_plays_a_drawn_match():
    game = make_game([["G1", "B7"], ["G9"], ["B8"], ["Y9"]], discard=["R3"], draw_pile=["R6", "B6"])
    assert _auto(game, 0) == {"type": "draw"}
    assert _auto(game, 0) == {"type": "play", "card": "R6"}


def test_the_turn_time_out_passes_with_nothing_to_play_or_draw():
    game = make_game([["G1", "B7"], ["G9"], ["B8"], ["Y9"]], discard=["R3"], draw_pile=[])
    assert _auto(game, 0) == {"type": "pass_turn"}


@pytest.mark.parametrize(
    "own,color",
    [
        (["G1", "G2", "B3", "W"], "G"),  # green is held most after the play
        (["Y1", "B2", "W"], "Y"),  # a tie goes Red, Yellow, Green, Blue
        (["B1", "B2", "G2", "W"], "B"),
        (["W", "WTP"], "R"),  # no coloured card left
        (["GS", "G4", "YD2", "W"], "G"),  # action cards count for their colour
    ],
)
def test_the_colour_time_out_picks_the_colour_held_most_after_the_play(own, color):
    game = make_game([own, ["G9"], ["B8"], ["Y9"]], discard=["R5"], draw_pile=["B6"])
    assert _auto(game, 0) == {"type": "play", "card": "W", "color": color}


def test_a_wild_team_play_answer_time_out_plays_the_first_card_of_the_colour():
    game = make_game(
        [["WTP", "Y1"], ["G9"], ["R5", "G2", "G7", "W"], ["Y9"]],
        discard=["R3"],
        draw_pile=["B6", "Y6"],
    )
    play(game, 0, "WTP", "G")
    assert _auto(game, 2) == {"type": "play", "card": "G2"}


def test_under_a_waiting_penalty_the_time_out_plays_the_first_draw_two():
    game = make_game(
        [["RD2", "Y1"], ["R5", "YD2", "BD2", "W"], ["G7"], ["Y4"]],
        discard=["R3"],
        draw_pile=["B6", "Y6", "G6", "B1", "G1"],
        stacking=True,
    )
    play(game, 0, "RD2")
    assert _auto(game, 1) == {"type": "play", "card": "YD2"}


def test_under_a_waiting_penalty_without_a_draw_two_the_time_out_takes_it():
    game = make_game(
        [["RD2", "Y1"], ["R5", "W"], ["G7"], ["Y4"]],
        discard=["R3"],
        draw_pile=["B6", "Y6"],
        stacking=True,
    )
    play(game, 0, "RD2")
    assert _auto(game, 1) == {"type": "take_penalty"}


def test_auto_action_for_a_seat_with_nothing_to_decide_is_refused():
    game = make_game([["R7", "Y1"], ["G9"], ["B8"], ["Y9"]], discard=["R3"], draw_pile=["B6"])
    with pytest.raises(IllegalAction):
        game.auto_action(2)
    play(game, 0, "R7")
    with pytest.raises(IllegalAction):
        game.auto_action(0)


def test_auto_action_after_the_game_is_over_is_refused():
    game = make_game([["R7"], ["G9"], [], ["B8"]], discard=["R3"], draw_pile=["B6"])
    play(game, 0, "R7")
    for seat in range(4):
        with pytest.raises(IllegalAction):
            game.auto_action(seat)


def test_a_drawn_card_forced_play_time_out_plays_it_with_a_colour():
    game = make_game(
        [["G1", "G4", "B7"], ["G9"], ["B8"], ["Y9"]], discard=["R3"], draw_pile=["W", "B6"]
    )
    draw(game, 0)
    assert _auto(game, 0) == {"type": "play", "card": "W", "color": "G"}
