"""Bad input is refused with IllegalAction and changes nothing (ENGINE_CONTRACT: game.act)."""

import pytest

from games.engine import IllegalAction

from .helpers import assert_illegal, make_game, new_game, play


def _table():
    return make_game(
        [["R7", "Y1", "W", "G5"], ["G9", "B9"], ["B8", "Y9"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=["B6", "G6"],
    )


def test_illegal_action_is_a_value_error():
    assert issubclass(IllegalAction, ValueError)


@pytest.mark.parametrize(
    "action",
    [
        None,
        "x",
        5,
        [],
        {},
        {"type": "play"},
        {"type": "play", "card": 5},
        {"type": "play", "card": None},
        {"type": "play", "card": ["R7"]},
        {"type": "play", "card": "r7"},
        {"type": "play", "card": "Z9"},
        {"type": "play", "card": "R10"},
        {"type": "fly"},
        {"type": None},
        {"card": "R7"},
        {"type": "give"},
        {"type": "give", "cards": "R7"},
        {"type": "pass"},
        {"type": "play", "card": "W", "color": 3},
        {"type": "play", "card": "W", "color": "red"},
    ],
)
def test_it_refuses_a_malformed_action(action):
    assert_illegal(_table(), 0, action)


@pytest.mark.parametrize("seat", [4, -1, 99, None, "0"])
def test_it_refuses_an_action_from_a_seat_not_at_the_table(seat):
    assert_illegal(_table(), seat, {"type": "play", "card": "R7"})


def test_it_refuses_a_card_out_of_turn():
    assert_illegal(_table(), 1, {"type": "play", "card": "G9"})


def test_it_refuses_a_card_that_is_not_held():
    assert_illegal(_table(), 0, {"type": "play", "card": "R9"})


def test_it_refuses_an_unplayable_card():
    assert_illegal(_table(), 0, {"type": "play", "card": "G5"})


def test_it_refuses_a_wild_without_a_colour():
    assert_illegal(_table(), 0, {"type": "play", "card": "W"})


def test_it_refuses_a_draw_while_holding_a_playable_card():
    assert_illegal(_table(), 0, {"type": "draw"})


def test_it_refuses_a_pass_turn_while_holding_a_playable_card():
    assert_illegal(_table(), 0, {"type": "pass_turn"})


def test_it_refuses_a_give_nobody_asked_for():
    assert_illegal(_table(), 0, {"type": "give", "cards": ["Y1"]})


def test_it_refuses_a_swap_pick_nobody_asked_for():
    assert_illegal(_table(), 0, {"type": "pass", "card": "Y1"})


def test_it_refuses_take_penalty_without_stacking():
    assert_illegal(_table(), 0, {"type": "take_penalty"})


def test_it_refuses_a_give_of_the_wrong_count():
    game = make_game(
        [["R7"], ["G9", "B9"], ["B8", "Y9", "G4", "G6"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=["B6"],
    )
    play(game, 0, "R7")
    for cards in (["B8"], ["B8", "Y9", "G4"], [], ["B8", "B8"], ["B8", "R1"], "B8Y9", None):
        assert_illegal(game, 2, {"type": "give", "cards": cards})


def test_a_refused_action_leaves_the_setup_pass_untouched():
    game = new_game(4, seed=1)
    for action in (
        None,
        {},
        {"type": "pass", "card": "Q1"},
        {"type": "draw"},
        {"type": "pass_turn"},
        {"type": "give", "cards": []},
    ):
        assert_illegal(game, 0, action)


def test_the_message_of_a_refusal_is_readable():
    message = assert_illegal(_table(), 0, {"type": "play", "card": "G5"})
    assert "Traceback" not in message
    assert not message.startswith("{")


def test_extra_keys_in_an_action_are_ignored():
    game = _table()
    game.act(0, {"type": "play", "card": "R7", "client_id": "abc-1"})
    assert game.view(None)["discard"][-1] == "R7"
