"""The deck, the deal and the starter card (rule book: The cards, Setup > Dealing)."""

from collections import Counter

import pytest

from games.engine import Game, Options, sort_hand

from .helpers import (
    CARD_RE,
    DECK_COUNTS,
    complete_setup,
    hand,
    is_number,
    new_game,
    public,
    sizes,
)


def _find_draw_pile(value, size):
    """The draw pile inside a snapshot: the only list of `size` card codes.

    The contract hides the pile's order from every view, so the full deck can only be
    counted from the snapshot; this looks for it without relying on its key.
    """
    found = []
    if isinstance(value, dict):
        for v in value.values():
            found += _find_draw_pile(v, size)
    elif isinstance(value, list):
        if len(value) == size and all(isinstance(c, str) and CARD_RE.match(c) for c in value):
            found.append(value)
        else:
            for v in value:
                found += _find_draw_pile(v, size)
    return found


def test_the_rule_book_deck_has_112_cards():
    assert sum(DECK_COUNTS.values()) == 112
    assert sum(k for c, k in DECK_COUNTS.items() if is_number(c)) == 76
    assert sum(k for c, k in DECK_COUNTS.items() if is_number(c) and c.endswith("P")) == 12


@pytest.mark.parametrize("players", [4, 6, 8])
def test_a_new_game_deals_the_full_deck_with_every_card_counted(players):
    game = new_game(players, seed=3)
    v = public(game)
    piles = _find_draw_pile(game.to_dict(), v["draw_pile_size"])
    assert piles, "no list of draw_pile_size card codes in to_dict()"
    cards = [c for s in range(players) for c in hand(game, s)] + v["discard"] + piles[0]
    assert Counter(cards) == DECK_COUNTS


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_seat_is_dealt_seven_cards_shown_in_hand_order(players):
    game = new_game(players, seed=11)
    assert sizes(game) == [7] * players
    for seat in range(players):
        dealt = hand(game, seat)
        assert len(dealt) == 7
        assert dealt == sort_hand(dealt)


@pytest.mark.parametrize("players", [4, 6, 8])
def test_the_rest_of_the_deck_after_the_deal_and_starter_is_the_draw_pile(players):
    for seed in range(10):
        v = public(new_game(players, seed=seed))
        assert v["draw_pile_size"] == 112 - 7 * players - len(v["discard"])


def test_the_starter_is_a_number_card_and_the_cards_turned_before_it_lie_under_it():
    saw_set_aside = False
    for seed in range(60):
        v = public(new_game(4, seed=seed))
        starter, set_aside = v["discard"][-1], v["discard"][:-1]
        assert is_number(starter), (seed, v["discard"])
        assert all(not is_number(c) for c in set_aside), (seed, v["discard"])
        assert v["color"] == starter[0]
        saw_set_aside = saw_set_aside or bool(set_aside)
    # About a third of the deck is not a number card, so 60 deals all but surely set one aside.
    assert saw_set_aside


def test_set_aside_cards_have_no_effect_on_the_first_turn():
    for seed in range(60):
        game = new_game(4, seed=seed)
        v = public(game)
        if len(v["discard"]) == 1:
            continue
        complete_setup(game)
        v = public(game)
        assert v["turn"] == 1
        assert v["direction"] == 1
        assert v["penalty"] == 0
        assert sizes(game) == [7, 7, 7, 7]
        return
    pytest.fail("no deal among 60 seeds set a card aside")


def test_the_deal_is_fixed_by_the_seed():
    options = Options(players=6)
    assert Game.new(options, 42).to_dict() == Game.new(options, 42).to_dict()
    hands_a = [hand(Game.new(options, 42), s) for s in range(6)]
    hands_b = [hand(Game.new(options, 43), s) for s in range(6)]
    assert hands_a != hands_b


@pytest.mark.parametrize("players", [4, 6, 8])
def test_round_one_is_dealt_by_seat_zero_and_starts_clockwise(players):
    v = public(new_game(players, seed=5))
    assert v["round"] == 1
    assert v["dealer"] == 0
    assert v["direction"] == 1
    assert v["players"] == players
    assert v["teams"] == players // 2
    assert v["scores"] == [0] * (players // 2)
    assert v["out"] == [False] * players
    assert v["departed"] == [False] * players
    assert v["round_over"] is None and v["game_over"] is None


@pytest.mark.parametrize("players", [4, 6, 8])
def test_the_seat_after_the_dealer_takes_the_first_turn(players):
    game = new_game(players, seed=9)
    complete_setup(game)
    v = public(game)
    assert v["turn"] == 1
    assert list(v["waiting_on"]) == [1]
