"""Ranking at the end of the game (rule book: How it ends; CLARIFICATIONS: End of round;
docs/engine.md: Ranking)."""

from .helpers import concede, make_game, pass_turn, play, public


def _ranks(game):
    ranking = public(game)["game_over"]["ranking"]
    return {team: rank for team, rank in ranking}


def test_the_winner_ranks_first_then_fewer_points_left_in_hand():
    # Six seats; seat 3 (seat 0's partner) is out.
    hands = [["R7"], ["G9", "B9"], ["Y1"], [], ["B4"], ["Y3"]]
    game = make_game(hands, discard=["R3"])
    play(game, 0, "R7")
    # Team 0 scores; teams 1 and 2 both have 0, team 2 has fewer points in hand.
    assert _ranks(game) == {0: 1, 2: 2, 1: 3}


def test_teams_still_level_share_a_rank():
    hands = [["R7"], ["G9"], ["Y4", "B5"], [], ["B4"], ["B3", "B1"]]
    game = make_game(hands, discard=["R3"])
    play(game, 0, "R7")
    assert _ranks(game) == {0: 1, 1: 2, 2: 2}


def test_ranks_are_competition_ranks_at_eight_seats():
    hands = [["R7"], ["G9"], ["Y9"], ["B1", "B2"], [], ["Y8"], ["G8"], ["B9", "B3"]]
    game = make_game(hands, discard=["R3"])
    play(game, 0, "R7")
    # Team 1: 17, team 2: 17, team 3: 15 points left.
    assert _ranks(game) == {0: 1, 3: 2, 1: 3, 2: 3}
    ranks = sorted(rank for _, rank in public(game)["game_over"]["ranking"])
    assert ranks == [1, 2, 3, 3]


def test_a_tie_for_second_place_leaves_third_place_empty():
    hands = [["R7"], ["G9"], ["Y9"], ["B9", "B1"], [], ["B8"], ["G8"], ["RS"]]
    game = make_game(hands, discard=["R3"])
    play(game, 0, "R7")
    # Team 1: 17, team 2: 17, team 3: 30 points left.
    assert _ranks(game) == {0: 1, 1: 2, 2: 2, 3: 4}


def test_a_higher_score_ranks_above_fewer_points_in_hand():
    hands = [["R7"], ["G9", "B9"], ["Y1"], [], ["B4"], ["Y3"]]
    game = make_game(hands, discard=["R3"], scores=[490, 100, 0], target_score=500)
    play(game, 0, "R7")
    assert public(game)["game_over"]["winner"] == 0
    assert _ranks(game) == {0: 1, 1: 2, 2: 3}


def test_teams_that_left_rank_below_the_stayers_and_among_themselves_by_score():
    hands = [["R7", "Y2"], ["G9"], ["Y1"], ["B9"], ["B4"], ["Y3"]]
    game = make_game(hands, discard=["R3"], scores=[0, 0, 400], target_score=500)
    concede(game, 2)
    assert public(game)["game_over"] is None
    concede(game, 1)
    assert public(game)["game_over"]["winner"] == 0
    ranks = _ranks(game)
    assert ranks[0] == 1
    assert ranks[1] > 1 and ranks[2] > 1
    # Team 2 left with the higher score and ranks above team 1 among the leavers.
    assert ranks == {0: 1, 2: 2, 1: 3}


def test_a_team_that_left_ranks_below_a_stayer_with_a_lower_score():
    hands = [["R7"], ["G9"], ["Y1"], [], ["B4"], ["Y3"]]
    game = make_game(hands, discard=["R3"], scores=[490, 0, 300], target_score=500)
    concede(game, 5)
    play(game, 0, "R7")
    assert public(game)["game_over"]["winner"] == 0
    assert _ranks(game) == {0: 1, 1: 2, 2: 3}


def test_a_blocked_single_round_ranks_by_score_then_points_in_hand():
    game = make_game(
        [["Y9", "G7"], ["G9", "B9"], ["B7", "Y4"], ["Y1", "G6"]], discard=["R3"], draw_pile=[]
    )
    for seat in range(4):
        pass_turn(game, seat)
    v = public(game)
    assert v["game_over"]["winner"] is None
    # Team 0 holds 27 points, team 1 holds 25.
    assert _ranks(game) == {1: 1, 0: 2}


def test_a_blocked_single_round_with_level_teams_shares_first_place():
    game = make_game(
        [["Y9", "G7"], ["G9", "B7"], ["B8", "Y1"], ["Y5", "G4"]], discard=["R3"], draw_pile=[]
    )
    for seat in range(4):
        pass_turn(game, seat)
    assert _ranks(game) == {0: 1, 1: 1}
