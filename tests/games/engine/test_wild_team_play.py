"""Wild Team Play (rule book: The team Wild cards; CLARIFICATIONS: Wild Team Play)."""

from .helpers import (
    DRAW,
    assert_illegal,
    give,
    hand,
    legal,
    make_game,
    play,
    plays,
    public,
    sizes,
)

PILE = ["Y7", "B6", "G4", "Y6", "B1", "G9"]


def test_wild_team_play_jumps_to_the_partner_and_the_seat_between_loses_nothing():
    game = make_game(
        [["WTP", "Y1"], ["G9", "B9"], ["G7", "R7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "WTP", "G")
    v = public(game)
    assert v["turn"] == 2
    assert v["color"] == "G"
    assert list(v["waiting_on"]) == [2]
    assert sizes(game) == [1, 2, 2, 2]


def test_wild_team_play_at_six_seats_jumps_across_the_table():
    hands = [["G9"], ["WTP", "Y1"], ["G8"], ["Y4"], ["G7", "B7"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, turn=1)
    play(game, 1, "WTP", "G")
    assert public(game)["turn"] == 4


def test_the_partner_may_only_play_the_chosen_colour_or_a_wild_and_may_not_draw():
    game = make_game(
        [["WTP", "Y1"], ["G9", "B9"], ["R3", "G7", "B7", "W"], ["Y4", "G1"]],
        discard=["R5"],
        draw_pile=PILE,
    )
    play(game, 0, "WTP", "G")
    assert legal(game, 2) == plays("G7", "W")
    assert DRAW not in legal(game, 2)
    assert_illegal(game, 2, {"type": "draw"})
    assert_illegal(game, 2, {"type": "play", "card": "R3"})


def test_play_carries_on_from_the_partner_after_they_answer():
    game = make_game(
        [["WTP", "Y1"], ["G9", "B9"], ["G7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "WTP", "G")
    play(game, 2, "G7")
    assert public(game)["turn"] == 3


def test_the_partner_s_answer_has_its_usual_effect_from_the_partner_s_seat():
    game = make_game(
        [["WTP", "Y1"], ["G9", "B9"], ["GS", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "WTP", "G")
    play(game, 2, "GS")
    assert public(game)["turn"] == 0  # seat 3 is skipped


def test_a_partner_with_nothing_playable_does_not_draw_and_the_player_draws_two():
    game = make_game(
        [["WTP", "Y1"], ["G9", "B9"], ["R7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    events = play(game, 0, "WTP", "G")
    assert hand(game, 0) == ["Y1", "Y7", "B6"]
    assert hand(game, 2) == ["R7", "B7"]
    v = public(game)
    assert v["turn"] == 3
    assert v["draw_pile_size"] == len(PILE) - 2
    reasons = [(e["seat"], e["count"], e["reason"]) for e in events if e["type"] == "draw"]
    assert reasons == [(0, 2, "team_play")]


def test_after_the_penalty_play_carries_on_after_the_partner_s_seat_at_six_seats():
    hands = [["WTP", "Y1"], ["G9"], ["G8"], ["R7", "B7"], ["B4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    assert sizes(game) == [3, 1, 1, 2, 1, 1]
    assert public(game)["turn"] == 4


def test_an_out_partner_makes_the_player_draw_two_and_tags_the_partner_in():
    game = make_game(
        [["WTP", "Y1", "Y2"], ["G9", "B9"], [], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "WTP", "G")
    # Two left after the play, two drawn: half of four goes to the partner.
    assert hand(game, 0) == ["Y1", "Y2", "Y7", "B6"]
    assert game.view(0)["must_give"] == 2
    assert list(public(game)["waiting_on"]) == [0]
    give(game, 0, ["Y7", "B6"])
    v = public(game)
    assert hand(game, 2) == ["Y7", "B6"]
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 3


def test_a_partner_may_answer_wild_team_play_with_wild_team_play():
    game = make_game(
        [["WTP", "Y1", "B2"], ["G9", "B9"], ["WTP", "R7"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "WTP", "G")
    assert legal(game, 2) == plays("WTP")
    play(game, 2, "WTP", "B")
    v = public(game)
    assert v["turn"] == 0
    assert v["color"] == "B"
    assert legal(game, 0) == plays("B2")


def test_a_last_wild_team_play_waits_for_the_half_pass_then_sends_play_to_the_partner():
    game = make_game(
        [["WTP"], ["G9", "B9"], ["G7", "B7", "Y9", "R9"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "WTP", "G")
    assert game.view(2)["must_give"] == 2
    give(game, 2, ["Y9", "R9"])
    assert public(game)["turn"] == 2
    assert legal(game, 2) == plays("G7")


def test_a_last_wild_team_play_to_a_partner_with_one_playable_card_wins_the_round():
    game = make_game([["WTP"], ["G9", "B9"], ["G7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    assert public(game)["out"][0] is True
    assert public(game)["turn"] == 2
    play(game, 2, "G7")
    v = public(game)
    assert v["round_over"]["winner"] == 0
    assert v["game_over"]["winner"] == 0


def test_a_last_wild_team_play_the_partner_cannot_answer_brings_the_player_back_with_two():
    game = make_game([["WTP"], ["G9", "B9"], ["R7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    v = public(game)
    assert hand(game, 0) == ["Y7", "B6"]
    assert hand(game, 2) == ["R7"]
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 3


def test_a_partner_answering_with_their_last_card_is_handed_half_by_the_player():
    game = make_game(
        [["WTP", "Y1", "Y2", "B2"], ["G9", "B9"], ["G7"], ["Y4", "G1"]],
        discard=["R3"],
        draw_pile=PILE,
    )
    play(game, 0, "WTP", "G")
    play(game, 2, "G7")
    assert game.view(0)["must_give"] == 1
    give(game, 0, ["B2"])
    v = public(game)
    assert hand(game, 2) == ["B2"]
    assert v["turn"] == 3


def test_the_other_team_leaving_does_not_cancel_the_partner_s_answer():
    hands = [["WTP", "Y1"], ["G9"], ["R9"], ["G7", "B7"], ["Y4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    assert public(game)["turn"] == 3
    game.act(1, {"type": "concede"})
    assert public(game)["turn"] == 3
    assert legal(game, 3) == plays("G7")


def test_the_answering_team_leaving_moves_the_turn_past_it():
    hands = [["WTP", "Y1"], ["G9"], ["R9"], ["G7", "B7"], ["Y4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTP", "G")
    game.act(3, {"type": "concede"})
    v = public(game)
    assert v["departed"] == [True, False, False, True, False, False]
    assert v["turn"] == 4
