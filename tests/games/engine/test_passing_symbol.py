"""The passing symbol swap (rule book: The passing symbol; CLARIFICATIONS: Simultaneous
choices, Resolving a played card)."""

from games.engine import events_for

from .helpers import (
    assert_illegal,
    card_codes_in,
    draw,
    give,
    hand,
    legal,
    make_game,
    passes,
    pick,
    play,
    public,
    sizes,
)

PILE = ["G4", "B6", "Y7"]


def _swap_position(**kwargs):
    hands = [["R5P", "Y1", "G2"], ["G9", "B9"], ["B7", "Y4", "G8"], ["Y9", "G1"]]
    return make_game(hands, discard=["R3"], draw_pile=PILE, **kwargs)


def test_playing_a_passing_card_asks_both_partners_for_a_card():
    game = _swap_position()
    events = play(game, 0, "R5P")
    v = public(game)
    assert sorted(v["waiting_on"]) == [0, 2]
    assert v["turn"] == 0
    assert legal(game, 0) == passes("Y1", "G2")
    assert legal(game, 2) == passes("B7", "Y4", "G8")
    assert game.legal_actions(1) == [] and game.legal_actions(3) == []
    assert v["discard"][-1] == "R5P"
    assert events


def test_nothing_moves_until_both_partners_have_picked():
    game = _swap_position()
    play(game, 0, "R5P")
    pick(game, 0, "G2")
    assert hand(game, 0) == ["Y1", "G2"]
    assert hand(game, 2) == ["Y4", "G8", "B7"]
    assert list(public(game)["waiting_on"]) == [2]
    assert game.legal_actions(0) == []


def test_the_partners_swap_their_picks_and_the_turn_moves_on():
    game = _swap_position()
    play(game, 0, "R5P")
    pick(game, 2, "B7")
    pick(game, 0, "G2")
    assert hand(game, 0) == ["Y1", "B7"]
    assert hand(game, 2) == ["Y4", "G2", "G8"]
    assert game.view(0)["received"] == ["B7"]
    assert game.view(2)["received"] == ["G2"]
    v = public(game)
    assert sizes(game) == [2, 2, 3, 2]
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]


def test_a_swap_pick_may_be_changed_before_the_partner_picks():
    game = _swap_position()
    play(game, 0, "R5P")
    pick(game, 0, "G2")
    pick(game, 0, "Y1")
    pick(game, 2, "G8")
    assert hand(game, 0) == ["G2", "G8"]
    assert hand(game, 2) == ["Y1", "Y4", "B7"]


def test_a_partner_cannot_pick_the_card_that_is_about_to_arrive():
    game = _swap_position()
    play(game, 0, "R5P")
    pick(game, 0, "G2")
    assert_illegal(game, 2, {"type": "pass", "card": "G2"})
    assert_illegal(game, 0, {"type": "pass", "card": "B7"})


def test_the_other_team_learns_only_that_a_swap_happened():
    game = _swap_position()
    play(game, 0, "R5P")
    events = pick(game, 0, "G2") + pick(game, 2, "B7")
    for seat in (1, 3, None):
        assert card_codes_in(events_for(events, seat)) == []
    assert "swap" in [e["type"] for e in events_for(events, 1)]
    picked = [(e["seat"], e["kind"]) for e in events if e["type"] == "picked"]
    assert picked == [(0, "swap"), (2, "swap")]
    assert {"G2", "B7"} <= set(card_codes_in(events_for(events, 0)))
    assert {"G2", "B7"} <= set(card_codes_in(events_for(events, 2)))


def test_the_other_team_s_views_do_not_depend_on_the_cards_swapped():
    a, b = _swap_position(), _swap_position()
    for game, (mine, theirs) in ((a, ("G2", "B7")), (b, ("Y1", "Y4"))):
        play(game, 0, "R5P")
        pick(game, 0, mine)
        pick(game, 2, theirs)
    for seat in (1, 3, None):
        assert a.view(seat) == b.view(seat)


def test_a_pick_in_progress_is_hidden_from_everyone_else_including_the_partner():
    a, b = _swap_position(), _swap_position()
    play(a, 0, "R5P")
    play(b, 0, "R5P")
    pick(a, 0, "G2")
    pick(b, 0, "Y1")
    for seat in (1, 2, 3, None):
        assert a.view(seat) == b.view(seat)


def test_there_is_no_swap_when_the_partner_is_out():
    hands = [["R5P", "Y1", "G2"], ["G9", "B9"], [], ["Y9", "G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R5P")
    v = public(game)
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]
    assert game.legal_actions(0) == []
    assert hand(game, 0) == ["Y1", "G2"]


def test_there_is_no_swap_when_the_passing_card_was_the_last_one_and_the_player_stays_out():
    hands = [["R5P"], ["G9", "B9"], ["B7"], ["Y9", "G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R5P")
    v = public(game)
    assert v["out"][0] is True
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]
    assert hand(game, 2) == ["B7"]


def test_there_is_no_swap_after_the_half_pass_for_a_last_passing_card():
    hands = [["R5P"], ["G9", "B9"], ["B7", "Y4", "G8", "Y8"], ["Y9", "G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE)
    play(game, 0, "R5P")
    give(game, 2, ["Y4", "B7"])
    v = public(game)
    assert hand(game, 0) == ["Y4", "B7"]
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]


def test_a_passing_card_played_straight_after_drawing_it_still_swaps():
    hands = [["Y1", "G2"], ["G9", "B9"], ["B7", "Y4", "G8"], ["Y9", "G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=["R8P", "B6"])
    draw(game, 0)
    play(game, 0, "R8P")
    assert sorted(public(game)["waiting_on"]) == [0, 2]
    pick(game, 0, "Y1")
    pick(game, 2, "G8")
    assert hand(game, 0) == ["G2", "G8"]
    assert public(game)["turn"] == 1


def test_at_eight_seats_the_swap_is_between_the_partners_across_the_table():
    hands = [["G9"], ["R2P", "Y1"], ["G8"], ["Y4"], ["B4"], ["B3", "Y3"], ["B1"], ["G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=PILE, turn=1)
    play(game, 1, "R2P")
    assert sorted(public(game)["waiting_on"]) == [1, 5]
    pick(game, 1, "Y1")
    pick(game, 5, "B3")
    assert hand(game, 1) == ["B3"]
    assert hand(game, 5) == ["Y1", "Y3"]
    assert public(game)["turn"] == 2


def test_a_swap_happens_even_with_no_cards_left_to_draw():
    hands = [["R5P", "Y1", "G2"], ["G9", "B9"], ["B7", "Y4", "G8"], ["Y9", "G1"]]
    game = make_game(hands, discard=["R3"], draw_pile=[])
    play(game, 0, "R5P")
    pick(game, 0, "Y1")
    pick(game, 2, "Y4")
    assert hand(game, 0) == ["Y4", "G2"]
