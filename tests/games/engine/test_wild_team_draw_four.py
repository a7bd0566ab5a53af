"""Wild Team Draw 4 (rule book: The team Wild cards, Draw cards still reach an out player;
CLARIFICATIONS: Drawing)."""

from .helpers import give, hand, make_game, play, public, sizes

PILE = ["Y7", "B6", "G4", "Y6", "B1", "G9", "Y8"]


def test_the_next_player_and_then_their_partner_each_draw_two():
    game = make_game([["WTD4", "Y1"], ["G1"], ["G7"], ["R4"]], discard=["R3"], draw_pile=PILE)
    events = play(game, 0, "WTD4", "B")
    assert hand(game, 1) == ["Y7", "G1", "B6"]
    assert hand(game, 3) == ["R4", "Y6", "G4"]
    v = public(game)
    assert v["color"] == "B"
    assert v["turn"] == 2
    assert v["draw_pile_size"] == len(PILE) - 4
    draws = [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]
    assert draws == [(1, 2), (3, 2)]


def test_at_six_seats_the_next_player_and_the_seat_across_from_them_draw():
    hands = [["WTD4", "Y1"], ["G1"], ["G7"], ["R4"], ["B4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTD4", "B")
    assert sizes(game) == [1, 3, 1, 1, 3, 1]
    assert public(game)["turn"] == 2


def test_counter_clockwise_the_seat_before_draws_first():
    game = make_game(
        [["WTD4", "Y1"], ["G1"], ["G7"], ["R4"]], discard=["R3"], draw_pile=PILE, direction=-1
    )
    play(game, 0, "WTD4", "B")
    assert hand(game, 3) == ["R4", "Y7", "B6"]
    assert hand(game, 1) == ["Y6", "G1", "G4"]
    assert public(game)["turn"] == 2


def test_an_out_next_player_draws_comes_back_in_and_no_pass_follows():
    game = make_game(
        [["WTD4", "Y1"], [], ["G7"], ["R4", "B8", "B9"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "WTD4", "B")
    v = public(game)
    assert hand(game, 1) == ["Y7", "B6"]
    assert hand(game, 3) == ["R4", "Y6", "G4", "B8", "B9"]
    assert v["out"] == [False, False, False, False]
    assert all(game.view(s)["must_give"] == 0 for s in range(4))
    assert v["turn"] == 2


def test_a_next_player_with_an_out_partner_tags_them_in_before_the_partner_draws():
    game = make_game([["WTD4", "Y1"], ["G1", "R9"], ["G7"], []], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTD4", "B")
    # Seat 1 drew Y7 and B6; seat 3 has not drawn yet.
    assert hand(game, 1) == ["R9", "Y7", "G1", "B6"]
    assert sizes(game)[3] == 0
    assert game.view(1)["must_give"] == 2
    assert public(game)["draw_pile_size"] == len(PILE) - 2
    give(game, 1, ["R9", "G1"])
    # Then seat 3 draws its own two (Y6, G4) on top of what it was given.
    assert hand(game, 3) == ["R9", "Y6", "G1", "G4"]
    assert hand(game, 1) == ["Y7", "B6"]
    v = public(game)
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 2


def test_the_turn_goes_to_the_next_seat_still_in_after_the_first_who_drew():
    hands = [["WTD4", "Y1"], ["G1"], [], ["R4"], ["B4"], ["B3", "B2"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTD4", "B")
    assert public(game)["turn"] == 3


def test_the_victims_lose_their_turns_but_the_seat_after_plays_next_with_the_colour():
    game = make_game([["WTD4", "Y1"], ["G1"], ["B7", "G7"], ["R4"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "WTD4", "B")
    assert public(game)["turn"] == 2
    assert {a["card"] for a in game.legal_actions(2)} == {"B7"}


def test_with_one_card_left_to_draw_the_tag_in_comes_before_the_out_partner_draws_nothing():
    game = make_game([["WTD4", "Y1"], ["G1", "R9", "B9"], ["G7"], []], discard=["R3"], draw_pile=[])
    play(game, 0, "WTD4", "B")
    # The reshuffle makes a one-card pile (R3): seat 1 draws it and must tag seat 3 in.
    assert hand(game, 1) == ["R3", "R9", "G1", "B9"]
    assert game.view(1)["must_give"] == 2
    give(game, 1, ["R3", "G1"])
    v = public(game)
    assert hand(game, 3) == ["R3", "G1"]
    assert v["draw_pile_size"] == 0
    assert v["turn"] == 2


def test_when_one_card_is_left_to_draw_the_first_victim_gets_it_and_the_second_none():
    game = make_game(
        [["WTD4", "Y1"], ["G1", "R9"], ["G7"], []], discard=["R3"], draw_pile=[], direction=-1
    )
    play(game, 0, "WTD4", "B")
    # Counter-clockwise seat 3 (out) is hit first and draws the only card, R3, so it is
    # back in with no pass; seat 1 then has nothing to draw and loses nothing.
    v = public(game)
    assert hand(game, 3) == ["R3"]
    assert sizes(game) == [1, 2, 1, 1]
    assert v["out"] == [False, False, False, False]
    assert v["turn"] == 2
