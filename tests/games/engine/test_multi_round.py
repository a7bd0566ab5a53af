"""Playing to a target score (rule book: How it ends; CLARIFICATIONS: End of round;
docs/engine.md: Round result in a target-score game)."""

from .helpers import complete_setup, make_game, play, public, sizes, total_cards

PILE = ["Y9", "BS", "GD2", "W", "Y6"]


def _winning_move(scores=(0, 0), dealer=0, direction=1, target=500):
    """Seat 0 is about to win for team 0 with 9 + 4 = 13 points in the other hands."""
    return make_game(
        [["R7"], ["G9"], [], ["B4"]],
        discard=["R3"],
        draw_pile=PILE,
        scores=list(scores),
        dealer=dealer,
        direction=direction,
        target_score=target,
    )


def test_a_round_won_short_of_the_target_deals_the_next_round_at_once():
    game = _winning_move()
    events = play(game, 0, "R7")
    v = public(game)
    assert v["game_over"] is None
    assert v["round"] == 2
    assert v["dealer"] == 1
    assert v["scores"] == [13, 0]
    assert sizes(game) == [7, 7, 7, 7]
    assert total_cards(v) == 112
    assert v["turn"] is None
    assert sorted(v["waiting_on"]) == [0, 1, 2, 3]
    types = [e["type"] for e in events]
    assert "round_over" in types and "round_start" in types and "deal" in types
    assert types.index("round_over") < types.index("round_start")


def test_the_finished_round_s_result_stays_shown_during_the_next_setup_pass():
    game = _winning_move()
    play(game, 0, "R7")
    assert public(game)["round_over"]["winner"] == 0
    assert public(game)["round_over"]["points"] == 13
    complete_setup(game)
    assert public(game)["round_over"] is None


def test_the_next_round_starts_with_the_seat_after_the_new_dealer_and_clockwise():
    game = _winning_move(direction=-1)
    play(game, 0, "R7")
    complete_setup(game)
    v = public(game)
    assert v["turn"] == 2
    assert v["direction"] == 1
    assert v["out"] == [False] * 4


def test_the_deal_moves_round_the_table_and_wraps():
    game = _winning_move(dealer=3)
    play(game, 0, "R7")
    assert public(game)["dealer"] == 0
    complete_setup(game)
    assert public(game)["turn"] == 1


def test_scores_carry_over_between_rounds():
    game = _winning_move(scores=(100, 30))
    play(game, 0, "R7")
    assert public(game)["scores"] == [113, 30]


def test_reaching_the_target_ends_the_game():
    game = _winning_move(scores=(490, 300))
    play(game, 0, "R7")
    v = public(game)
    assert v["scores"] == [503, 300]
    assert v["game_over"]["winner"] == 0
    assert v["round"] == 1
    assert v["turn"] is None


def test_a_team_reaching_exactly_the_target_wins():
    game = _winning_move(scores=(37, 0), target=50)
    play(game, 0, "R7")
    v = public(game)
    assert v["scores"] == [50, 0]
    assert v["game_over"]["winner"] == 0


def test_a_team_one_point_short_of_the_target_plays_another_round():
    game = _winning_move(scores=(36, 0), target=50)
    play(game, 0, "R7")
    v = public(game)
    assert v["game_over"] is None
    assert v["round"] == 2


def test_a_single_round_game_ends_with_the_first_round_won():
    game = make_game([["R7"], ["G9"], [], ["B4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "R7")
    v = public(game)
    assert v["game_over"]["winner"] == 0
    assert v["round"] == 1


def test_a_new_round_of_a_six_seat_game_deals_everyone_again():
    hands = [["R7"], ["G9"], ["B1"], [], ["B4"], ["Y4"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, target_score=500, dealer=5)
    play(game, 0, "R7")
    v = public(game)
    assert v["dealer"] == 0
    assert sizes(game) == [7] * 6
    assert total_cards(v) == 112
    complete_setup(game)
    assert public(game)["turn"] == 1
