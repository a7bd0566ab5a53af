"""Skip, Reverse, Draw 2 and Wild (rule book: Action cards in a team game; CLARIFICATIONS:
"Next player")."""

from games.engine import events_for

from .helpers import (
    assert_illegal,
    card_codes_in,
    hand,
    legal,
    make_game,
    play,
    plays,
    public,
    sizes,
)

PILE = ["G4", "B6", "Y7", "G9", "B1", "Y6"]


def _events_of(events, kind):
    return [e for e in events if e["type"] == kind]


# --- Skip ------------------------------------------------------------------------------


def test_a_skip_makes_the_next_player_lose_their_turn():
    game = make_game(
        [["RS", "Y1"], ["G9", "B9"], ["G7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    events = play(game, 0, "RS")
    assert public(game)["turn"] == 2
    assert [e["seat"] for e in _events_of(events, "skip")] == [1]


def test_a_skip_passes_over_an_out_seat_and_can_land_on_the_own_partner():
    game = make_game([["RS", "Y1"], [], ["G7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    events = play(game, 0, "RS")
    assert public(game)["turn"] == 3
    assert [e["seat"] for e in _events_of(events, "skip")] == [2]


def test_a_skip_with_two_players_in_gives_the_player_another_turn():
    game = make_game([["RS", "Y1"], [], [], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "RS")
    assert public(game)["turn"] == 0


def test_a_skip_counter_clockwise_at_six_seats_skips_the_seat_before():
    hands = [["RS", "Y1"], ["G9"], ["G7"], ["Y4"], ["B4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, direction=-1)
    play(game, 0, "RS")
    assert public(game)["turn"] == 4


def test_a_skip_plays_on_a_skip_of_another_colour_and_sets_its_colour():
    game = make_game([["BS", "Y1"], ["G9"], ["G7"], ["Y4"]], discard=["RS"], draw_pile=PILE)
    assert legal(game, 0) == plays("BS")
    play(game, 0, "BS")
    assert public(game)["color"] == "B"
    assert public(game)["turn"] == 2


# --- Reverse ---------------------------------------------------------------------------


def test_a_reverse_turns_play_around():
    game = make_game([["RR", "Y1"], ["G9"], ["G7"], ["Y4"]], discard=["R3"], draw_pile=PILE)
    events = play(game, 0, "RR")
    v = public(game)
    assert v["direction"] == -1
    assert v["turn"] == 3
    assert [e["direction"] for e in _events_of(events, "reverse")] == [-1]


def test_a_reverse_counter_clockwise_turns_play_clockwise_again():
    hands = [["G9"], ["G8"], ["RR", "Y1"], ["Y4"], ["B4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, direction=-1, turn=2)
    play(game, 2, "RR")
    assert public(game)["direction"] == 1
    assert public(game)["turn"] == 3


def test_a_reverse_with_two_players_in_only_changes_direction():
    game = make_game([["RR", "Y1"], [], [], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE)
    play(game, 0, "RR")
    v = public(game)
    assert v["direction"] == -1
    assert v["turn"] == 3


# --- Draw 2 ----------------------------------------------------------------------------


def test_a_draw_two_makes_the_next_player_draw_two_and_lose_the_turn():
    game = make_game(
        [["RD2", "Y1"], ["G9", "B9"], ["G7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    events = play(game, 0, "RD2")
    assert hand(game, 1) == ["G4", "G9", "B6", "B9"]
    v = public(game)
    assert v["draw_pile_size"] == len(PILE) - 2
    assert v["turn"] == 2
    assert v["penalty"] == 0
    draws = _events_of(events, "draw")
    assert [(e["seat"], e["count"], e["reason"]) for e in draws] == [(1, 2, "penalty")]


def test_only_the_victim_of_a_draw_two_sees_the_drawn_cards():
    game = make_game(
        [["RD2", "Y1"], ["G9", "B9"], ["G7", "B7"], ["Y4", "G1"]], discard=["R3"], draw_pile=PILE
    )
    events = play(game, 0, "RD2")
    for seat in (0, 2, 3, None):
        assert set(card_codes_in(events_for(events, seat))) <= {"RD2"}
    assert {"G4", "B6"} <= set(card_codes_in(events_for(events, 1)))


def test_a_draw_two_reaches_an_out_seat_which_comes_back_in_without_a_half_pass():
    game = make_game(
        [["RD2", "Y1"], [], ["G7", "B7"], ["Y4", "G1", "B1"]], discard=["R3"], draw_pile=PILE
    )
    play(game, 0, "RD2")
    v = public(game)
    assert hand(game, 1) == ["G4", "B6"]
    assert v["out"] == [False, False, False, False]
    assert hand(game, 3) == ["Y4", "G1", "B1"]
    assert all(game.view(s)["must_give"] == 0 for s in range(4))
    assert v["turn"] == 2


def test_a_draw_two_counter_clockwise_hits_the_seat_before():
    hands = [["RD2", "Y1"], ["G9"], ["G7"], ["Y4"], ["B4"], ["B3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, direction=-1)
    play(game, 0, "RD2")
    assert sizes(game) == [1, 1, 1, 1, 1, 3]
    assert public(game)["turn"] == 4


def test_a_draw_two_plays_on_a_draw_two_of_another_colour():
    game = make_game(
        [["BD2", "Y1"], ["G9"], ["G7"], ["Y4"]], discard=["RD2"], color="R", draw_pile=PILE
    )
    assert legal(game, 0) == plays("BD2")
    play(game, 0, "BD2")
    assert sizes(game) == [1, 3, 1, 1]
    assert public(game)["color"] == "B"


# --- Wild ------------------------------------------------------------------------------


def test_a_wild_sets_the_chosen_colour_for_the_next_player():
    game = make_game(
        [["W", "Y1"], ["G9", "R9", "B2"], ["G7"], ["Y4"]], discard=["R3"], draw_pile=PILE
    )
    events = play(game, 0, "W", "G")
    v = public(game)
    assert v["color"] == "G"
    assert v["discard"][-1] == "W"
    assert v["turn"] == 1
    assert legal(game, 1) == plays("G9")
    assert [(e["card"], e["color"]) for e in _events_of(events, "play")] == [("W", "G")]


def test_it_refuses_a_wild_without_a_colour():
    game = make_game([["W", "Y1"], ["G9"], ["G7"], ["Y4"]], discard=["R3"], draw_pile=PILE)
    assert_illegal(game, 0, {"type": "play", "card": "W"})
    assert_illegal(game, 0, {"type": "play", "card": "W", "color": "P"})
    assert_illegal(game, 0, {"type": "play", "card": "W", "color": None})


def test_it_refuses_a_colour_on_a_card_that_is_not_a_wild():
    game = make_game([["R7", "Y1"], ["G9"], ["G7"], ["Y4"]], discard=["R3"], draw_pile=PILE)
    assert_illegal(game, 0, {"type": "play", "card": "R7", "color": "G"})


def test_a_draw_two_from_the_seat_before_a_departed_team_hits_the_next_seat_still_playing():
    hands = [["RD2", "Y1"], ["G9"], [], ["Y4"], ["B4"], ["B3", "G3"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    game.act(1, {"type": "concede"})
    play(game, 0, "RD2")
    # Seat 1 has left; seat 2 is out (its partner 5 holds cards), so it draws and is back in.
    assert hand(game, 2) == ["G4", "B6"]
    assert public(game)["out"][2] is False
    assert public(game)["turn"] == 3
