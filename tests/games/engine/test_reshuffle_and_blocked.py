"""An empty draw pile, short draws and blocked rounds (rule book: Special cases;
CLARIFICATIONS: Drawing, End of round)."""

from .helpers import (
    DRAW,
    PASS_TURN,
    complete_setup,
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


def test_an_empty_draw_pile_is_remade_from_the_discard_pile_except_its_top_card():
    game = make_game(
        [["Y9", "G7"], ["G9", "B9"], ["B7", "Y4"], ["Y1", "G6"]],
        discard=["G1", "B4", "R3"],
        draw_pile=[],
    )
    assert legal(game, 0) == {DRAW}
    events = draw(game, 0)
    v = public(game)
    assert v["discard"] == ["R3"]
    assert v["draw_pile_size"] == 1
    assert len(hand(game, 0)) == 3
    assert set(hand(game, 0)) - {"Y9", "G7"} <= {"G1", "B4"}
    assert [e["size"] for e in events if e["type"] == "reshuffle"] == [2]
    assert v["turn"] == 1


def test_the_reshuffle_is_fixed_by_the_seed():
    def drawn(seed):
        game = make_game(
            [["Y9", "G7"], ["G9", "B9"], ["B7", "Y4"], ["Y1", "G6"]],
            discard=["G1", "B4", "Y6", "B1", "G4", "R3"],
            draw_pile=[],
            seed=seed,
        )
        draw(game, 0)
        return hand(game, 0), game.to_dict()

    assert drawn(5) == drawn(5)


def test_a_draw_two_with_too_few_cards_draws_only_what_there_is():
    game = make_game(
        [["RD2", "Y1"], ["G9", "B9"], ["B7", "Y4"], ["Y9", "G6"]], discard=["R3"], draw_pile=[]
    )
    play(game, 0, "RD2")
    assert hand(game, 1) == ["R3", "G9", "B9"]
    v = public(game)
    assert v["discard"] == ["RD2"]
    assert v["draw_pile_size"] == 0
    assert v["turn"] == 2


def test_a_penalty_with_nothing_left_to_draw_gives_no_cards_and_still_costs_the_turn():
    game = make_game(
        [["WTD4", "Y1"], ["G9", "B9"], ["B7", "Y4"], ["Y9", "G6"]], discard=["R3"], draw_pile=[]
    )
    play(game, 0, "WTD4", "G")
    assert sizes(game) == [1, 3, 2, 2]
    assert public(game)["turn"] == 2


def test_a_player_who_cannot_play_or_draw_passes_and_the_next_player_goes_on():
    game = make_game(
        [["Y9", "G7"], ["R9", "B9"], ["B7", "Y4"], ["Y1", "G6"]], discard=["R3"], draw_pile=[]
    )
    pass_turn(game, 0)
    assert public(game)["turn"] == 1
    assert legal(game, 1) == plays("R9")
    play(game, 1, "R9")
    assert public(game)["turn"] == 2


def _dead_table(**options):
    return make_game(
        [["Y9", "G7"], ["G9", "B9"], ["B7", "Y4"], ["Y1", "G6"]],
        discard=["R3"],
        draw_pile=[],
        **options,
    )


def test_the_round_is_blocked_when_every_seat_in_has_passed_in_a_row():
    game = _dead_table()
    for seat in (0, 1, 2, 3):
        assert public(game)["round_over"] is None
        assert legal(game, seat) == {PASS_TURN}
        pass_turn(game, seat)
    v = public(game)
    assert v["round_over"]["winner"] is None
    assert v["round_over"]["blocked"] is True
    assert v["round_over"]["points"] == 0
    assert v["scores"] == [0, 0]
    assert v["game_over"]["winner"] is None
    assert v["turn"] is None


def test_out_seats_are_not_waited_for_before_a_round_is_blocked():
    game = make_game([["Y9", "G7"], [], ["B7", "Y4"], ["Y1", "G6"]], discard=["R3"], draw_pile=[])
    for seat in (0, 2, 3):
        assert public(game)["round_over"] is None
        pass_turn(game, seat)
    assert public(game)["round_over"]["blocked"] is True


def test_a_blocked_round_keeps_the_scores_carried_in():
    game = _dead_table(scores=[40, 60])
    for seat in (0, 1, 2, 3):
        pass_turn(game, seat)
    assert public(game)["scores"] == [40, 60]


def test_a_blocked_round_in_a_target_game_scores_nothing_and_a_new_round_is_dealt():
    game = _dead_table(scores=[40, 60], target_score=500)
    for seat in (0, 1, 2, 3):
        pass_turn(game, seat)
    v = public(game)
    assert v["game_over"] is None
    assert v["round"] == 2
    assert v["dealer"] == 1
    assert v["scores"] == [40, 60]
    assert v["round_over"]["blocked"] is True
    assert sizes(game) == [7, 7, 7, 7]
    assert sorted(v["waiting_on"]) == [0, 1, 2, 3]
    complete_setup(game)
    assert public(game)["turn"] == 2


def test_a_six_seat_round_with_out_and_departed_seats_is_blocked_after_the_seats_in_pass():
    hands = [["Y9", "G7"], ["G9"], [], ["Y1", "G6"], ["B7"], ["B8"]]
    game = make_game(hands, discard=["R3"], draw_pile=[])
    game.act(1, {"type": "concede"})
    # Team 1's cards (G9, then B7) are now the draw pile; seats 0 and 3 draw them.
    draw(game, 0)
    assert public(game)["turn"] == 3
    draw(game, 3)
    assert public(game)["turn"] == 5
    # Seats in: 0, 3, 5 (seat 2 is out; team 1 has left). Three passes block the round.
    for seat in (5, 0):
        pass_turn(game, seat)
        assert public(game)["round_over"] is None
    pass_turn(game, 3)
    assert public(game)["round_over"]["blocked"] is True
