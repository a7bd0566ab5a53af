"""Leaving a game (rule book: Leaving a game; CLARIFICATIONS: Leaving (concede);
docs/engine.md: Concession)."""

import pytest

from .helpers import (
    assert_illegal,
    complete_setup,
    concede,
    draw,
    hand,
    make_game,
    new_game,
    pick,
    play,
    public,
    sizes,
    total_cards,
)


def _six(turn=0, **kwargs):
    hands = [
        ["R7", "Y9", "G7"],
        ["Y2", "G5"],
        ["R1", "B1"],
        ["G9", "B9"],
        ["B7", "G6"],
        ["Y4", "B4"],
    ]
    return make_game(hands, discard=["R3"], draw_pile=["Y1", "G1"], turn=turn, **kwargs)


@pytest.mark.parametrize("seat", [1, 3])
def test_with_two_teams_the_team_that_stays_wins_at_once_with_no_points(seat):
    game = make_game(
        [["R7", "Y1"], ["G9"], ["B4"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=["B6"],
        scores=[10, 20],
    )
    events = concede(game, seat)
    v = public(game)
    assert v["game_over"]["winner"] == 0
    assert v["scores"] == [10, 20]
    assert v["round_over"] is None or v["round_over"]["points"] == 0
    assert v["turn"] is None
    assert list(v["waiting_on"]) == []
    assert [(e["seat"], e["team"]) for e in events if e["type"] == "concede"] == [(seat, 1)]


def test_a_target_game_also_ends_at_once_when_one_team_remains():
    game = make_game(
        [["R7", "Y1"], ["G9"], ["B4"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=["B6"],
        target_score=500,
        scores=[100, 400],
    )
    concede(game, 0)
    v = public(game)
    assert v["game_over"]["winner"] == 1
    assert v["scores"] == [100, 400]
    assert {t: r for t, r in v["game_over"]["ranking"]} == {1: 1, 0: 2}


def test_with_three_teams_the_round_goes_on_without_the_team_that_left():
    game = _six()
    concede(game, 4)
    v = public(game)
    assert v["game_over"] is None
    assert v["departed"] == [False, True, False, False, True, False]
    assert v["out"] == [False] * 6
    assert sizes(game)[1] == 0 and sizes(game)[4] == 0
    assert v["draw_pile_size"] == 2 + 4
    assert v["turn"] == 0
    play(game, 0, "R7")
    assert public(game)["turn"] == 2


def test_the_leaving_team_s_hands_go_under_the_draw_pile_conceder_first():
    hands = [["Y9", "G7"], ["Y2"], ["B5", "Y4"], ["G9", "B9"], ["B7", "G6"], ["Y8", "B8"]]
    game = make_game(hands, discard=["R3"], draw_pile=["G1"])
    concede(game, 4)
    # Drawing order now: G1, then seat 4's hand (G6, B7), then seat 1's (Y2).
    draw(game, 0)
    assert "G1" in hand(game, 0)
    draw(game, 2)
    assert "G6" in hand(game, 2)
    draw(game, 3)
    assert "B7" in hand(game, 3)
    draw(game, 5)
    assert "Y2" in hand(game, 5)


def test_the_turn_moves_on_when_the_team_holding_it_leaves():
    game = _six(turn=1)
    concede(game, 1)
    v = public(game)
    assert v["turn"] == 2
    assert list(v["waiting_on"]) == [2]


def test_the_turn_moves_on_when_the_partner_of_the_seat_holding_it_concedes():
    game = _six(turn=1)
    concede(game, 4)
    assert public(game)["turn"] == 2


def test_a_draw_two_skips_a_departed_seat():
    hands = [["RD2", "Y9"], ["Y2", "G5"], ["R1", "B1"], ["G9", "B9"], ["B7", "G6"], ["Y4", "B4"]]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1", "G1"])
    concede(game, 1)
    play(game, 0, "RD2")
    assert sizes(game)[2] == 4
    assert public(game)["turn"] == 3


def test_a_pending_swap_of_the_leaving_team_is_dropped_and_the_turn_moves_on():
    hands = [
        ["R5P", "Y9", "G7"],
        ["Y2", "G5"],
        ["R1", "B1"],
        ["G9", "B9"],
        ["B7", "G6"],
        ["Y4", "B4"],
    ]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1"])
    play(game, 0, "R5P")
    pick(game, 3, "G9")
    concede(game, 0)
    v = public(game)
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]
    assert total_cards(v) == 15


def test_another_team_leaving_does_not_cancel_a_pending_swap():
    hands = [
        ["R5P", "Y9", "G7"],
        ["Y2", "G5"],
        ["R1", "B1"],
        ["G9", "B9"],
        ["B7", "G6"],
        ["Y4", "B4"],
    ]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1"])
    play(game, 0, "R5P")
    concede(game, 2)
    assert sorted(public(game)["waiting_on"]) == [0, 3]
    pick(game, 0, "G7")
    pick(game, 3, "B9")
    assert hand(game, 0) == ["Y9", "B9"]
    assert public(game)["turn"] == 1


def test_a_pending_half_pass_of_the_leaving_team_is_dropped():
    hands = [
        ["R7"],
        ["Y2", "G5"],
        ["R1", "B1"],
        ["G9", "B9", "Y9", "G7"],
        ["B7", "G6"],
        ["Y4", "B4"],
    ]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1"])
    play(game, 0, "R7")
    assert game.view(3)["must_give"] == 2
    concede(game, 3)
    v = public(game)
    assert game.view(3)["must_give"] == 0
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]


def test_a_pending_tag_in_pass_of_the_leaving_team_is_dropped():
    hands = [["RD2", "Y9"], ["Y2", "G5"], ["R1", "B1"], ["G9", "B9"], [], ["Y4", "B4"]]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1", "G1"])
    play(game, 0, "RD2")
    assert game.view(1)["must_give"] == 2
    concede(game, 1)
    v = public(game)
    assert v["turn"] == 2
    assert list(v["waiting_on"]) == [2]


def test_a_waiting_stacked_penalty_aimed_at_the_leaving_team_is_cancelled():
    hands = [["RD2", "Y9"], ["Y2", "GD2"], ["R1", "B1"], ["G9", "B9"], ["B7", "G6"], ["Y4", "B4"]]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1", "G1"], stacking=True)
    play(game, 0, "RD2")
    assert public(game)["penalty"] == 2
    concede(game, 1)
    v = public(game)
    assert v["penalty"] == 0
    assert v["turn"] == 2
    assert sizes(game)[2] == 2


def test_a_concession_in_the_setup_pass_completes_it_when_everyone_left_has_picked():
    game = new_game(6, seed=21)
    picks = {}
    for seat in (0, 1, 3, 4, 2):
        picks[seat] = hand(game, seat)[0]
        pick(game, seat, picks[seat])
    concede(game, 5)
    v = public(game)
    assert v["departed"] == [False, False, True, False, False, True]
    assert list(v["waiting_on"]) == [1]
    assert v["turn"] == 1
    assert game.view(0)["received"] == [picks[3]]
    assert total_cards(v) == 112


def test_a_departed_seat_can_no_longer_act_or_concede_again():
    game = _six()
    concede(game, 1)
    assert game.legal_actions(1) == []
    assert_illegal(game, 1, {"type": "concede"})
    assert_illegal(game, 4, {"type": "concede"})
    assert_illegal(game, 1, {"type": "play", "card": "Y2"})


def test_departed_seats_are_left_out_of_later_deals():
    hands = [["R7"], ["Y2", "G5"], ["R1", "B1"], [], ["B7", "G6"], ["Y4", "B4"]]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1"], target_score=500)
    concede(game, 1)
    play(game, 0, "R7")
    v = public(game)
    assert v["round"] == 2
    assert v["dealer"] == 2
    assert sizes(game) == [7, 0, 7, 7, 0, 7]
    assert v["departed"] == [False, True, False, False, True, False]
    assert total_cards(v) == 112
    complete_setup(game)
    assert public(game)["turn"] == 3


def test_at_eight_seats_two_teams_may_leave_and_the_game_goes_on_until_one_remains():
    hands = [["R7", "Y9"], ["Y2"], ["R1"], ["G9"], ["B7"], ["Y4"], ["G4"], ["B6"]]
    game = make_game(hands, discard=["R3"], draw_pile=["Y1"])
    concede(game, 1)
    concede(game, 6)
    assert public(game)["game_over"] is None
    play(game, 0, "R7")
    assert public(game)["turn"] == 3
    concede(game, 3)
    assert public(game)["game_over"]["winner"] == 0


def test_legal_actions_never_list_concede():
    game = _six()
    for seat in range(6):
        assert all(a["type"] != "concede" for a in game.legal_actions(seat))
