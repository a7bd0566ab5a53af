"""The final card, the final-card draw penalty and scoring (rule book: Scoring, How it
ends, Options > Final-card draw penalty; CLARIFICATIONS: End of round)."""

import pytest

from games.engine import card_points, sort_hand

from .helpers import assert_illegal, hand, make_game, play, public

PILE = ["Y9", "BS", "GD2", "W", "Y6"]


@pytest.mark.parametrize(
    "code,points",
    [
        ("R0", 0),
        ("Y1", 1),
        ("G5", 5),
        ("B9", 9),
        ("R2P", 2),
        ("G5P", 5),
        ("B8P", 8),
        ("RS", 20),
        ("YR", 20),
        ("GD2", 20),
        ("W", 50),
        ("WTP", 50),
        ("WTD4", 50),
    ],
)
def test_card_points_are_face_value_twenty_for_actions_and_fifty_for_wilds(code, points):
    assert card_points(code) == points


def test_sort_hand_follows_the_rule_book_hand_order():
    shuffled = ["WTD4", "B0", "R2P", "RD2", "W", "R2", "Y9", "RS", "WTP", "G5", "RR", "R9"]
    assert sort_hand(shuffled) == [
        "R2",
        "R2P",
        "R9",
        "RS",
        "RR",
        "RD2",
        "Y9",
        "G5",
        "B0",
        "W",
        "WTP",
        "WTD4",
    ]


def test_the_winning_team_scores_every_card_left_in_the_other_teams_hands():
    # Six seats: seat 3 is seat 0's partner and is out, so seat 0's last card wins.
    hands = [["R7"], ["G9", "B9", "WTP"], ["RS", "YD2"], [], ["B4", "Y1"], ["Y3", "W"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["round_over"]["points"] == 9 + 9 + 50 + 20 + 20 + 4 + 1 + 3 + 50
    assert v["scores"] == [166, 0, 0]


def test_the_round_result_reveals_every_hand():
    hands = [["R7"], ["G9", "B9", "WTP"], ["RS", "YD2"], [], ["B4", "Y1"], ["Y3", "W"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    revealed = public(game)["round_over"]["hands"]
    assert [sort_hand(h) for h in revealed] == [
        [],
        ["G9", "B9", "WTP"],
        ["RS", "YD2"],
        [],
        ["Y1", "B4"],
        ["Y3", "W"],
    ]


def test_scores_carried_in_are_added_to_and_other_teams_keep_theirs():
    game = make_game([["R7"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE, scores=[30, 45])
    play(game, 0, "R7")
    assert public(game)["scores"] == [43, 45]


def test_a_winning_draw_two_makes_the_next_player_draw_two_counted_in_the_score():
    game = make_game([["RD2"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "RD2")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["round_over"]["points"] == 9 + 9 + 20 + 4
    assert v["scores"] == [42, 0]


def test_a_winning_wild_team_draw_four_makes_both_opponents_draw_two_without_any_pass():
    # Seat 3 is out: it still draws its two, and seat 1's draw tags nobody in.
    game = make_game([["WTD4"], ["G9", "G1"], [], []], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTD4", "R")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["round_over"]["points"] == (9 + 1 + 9 + 20) + (20 + 50)
    assert v["scores"] == [109, 0]
    assert all(game.view(s)["must_give"] == 0 for s in range(4))
    assert list(v["waiting_on"]) == []
    assert v["game_over"]["winner"] == 0


def test_with_the_final_card_penalty_off_a_winning_draw_card_makes_nobody_draw():
    game = make_game(
        [["RD2"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE, final_card_penalty=False
    )
    play(game, 0, "RD2")
    v = public(game)
    assert v["round_over"]["points"] == 13
    assert v["draw_pile_size"] == len(PILE)


def test_with_the_final_card_penalty_off_a_winning_wild_team_draw_four_makes_nobody_draw():
    game = make_game(
        [["WTD4"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE, final_card_penalty=False
    )
    play(game, 0, "WTD4", "B")
    assert public(game)["round_over"]["points"] == 13


def test_a_winning_wild_team_play_has_no_effect():
    game = make_game([["WTP"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["round_over"]["points"] == 13
    assert v["draw_pile_size"] == len(PILE)


def test_a_winning_passing_card_asks_for_no_swap():
    game = make_game([["R5P"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R5P")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert list(v["waiting_on"]) == []


def test_a_winning_draw_two_cancels_a_waiting_stacked_penalty():
    game = make_game(
        [["RD2", "Y1"], ["GD2"], ["G7", "B7"], []], discard=["R3"], draw_pile=PILE, stacking=True
    )
    play(game, 0, "RD2")
    play(game, 1, "GD2")  # seat 1's last card, partner 3 out: team 1 wins
    v = public(game)
    assert v["round_over"]["winner"] == 1
    assert v["penalty"] == 0
    assert hand(game, 2) == ["Y9", "G7", "B7", "BS"]
    assert v["round_over"]["points"] == 1 + 9 + 7 + 7 + 20


def test_a_winning_draw_two_with_the_penalty_off_also_cancels_a_waiting_penalty():
    game = make_game(
        [["RD2", "Y1"], ["GD2"], ["G7", "B7"], []],
        discard=["R3"],
        draw_pile=PILE,
        stacking=True,
        final_card_penalty=False,
    )
    play(game, 0, "RD2")
    play(game, 1, "GD2")
    v = public(game)
    assert v["round_over"]["points"] == 1 + 7 + 7
    assert v["draw_pile_size"] == len(PILE)


def test_after_the_game_is_over_nobody_has_a_turn_or_anything_to_decide():
    game = make_game([["R7"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    v = public(game)
    assert v["turn"] is None
    assert list(v["waiting_on"]) == []
    for seat in range(4):
        assert game.legal_actions(seat) == []
    assert_illegal(game, 1, {"type": "play", "card": "G9"})
    assert_illegal(game, 1, {"type": "draw"})
    assert_illegal(game, 3, {"type": "concede"})
