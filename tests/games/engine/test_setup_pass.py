"""The secret setup pass (rule book: The setup pass; CLARIFICATIONS: Simultaneous choices)."""

from collections import Counter

import pytest

from games.engine import events_for, sort_hand

from .helpers import (
    DRAW,
    assert_illegal,
    card_codes_in,
    complete_setup,
    hand,
    legal,
    new_game,
    partner,
    passes,
    pick,
    public,
    sizes,
)


def _dealt(game, players):
    return [hand(game, s) for s in range(players)]


def test_every_seat_is_waited_on_and_nobody_has_the_turn_during_the_setup_pass():
    v = public(new_game(4, seed=1))
    assert sorted(v["waiting_on"]) == [0, 1, 2, 3]
    assert v["turn"] is None


@pytest.mark.parametrize("players", [4, 6, 8])
def test_a_seat_may_pass_any_one_of_its_dealt_cards_and_nothing_else(players):
    game = new_game(players, seed=2)
    for seat in range(players):
        assert legal(game, seat) == passes(*set(hand(game, seat)))


def test_nobody_may_play_or_draw_during_the_setup_pass():
    game = new_game(4, seed=3)
    assert DRAW not in legal(game, 1)
    assert_illegal(game, 1, {"type": "draw"})
    card = hand(game, 1)[0]
    assert_illegal(game, 1, {"type": "play", "card": card, "color": "R"})


def test_a_seat_cannot_pass_a_card_it_was_not_dealt():
    game = new_game(4, seed=4)
    own = set(hand(game, 0))
    foreign = next(c for c in hand(game, 2) + hand(game, 1) if c not in own)
    assert_illegal(game, 0, {"type": "pass", "card": foreign})


def test_a_pick_moves_no_card_until_the_last_seat_has_picked():
    game = new_game(4, seed=5)
    dealt = _dealt(game, 4)
    for seat in (0, 1, 2):
        pick(game, seat, dealt[seat][0])
    assert _dealt(game, 4) == dealt
    assert sizes(game) == [7, 7, 7, 7]
    assert list(public(game)["waiting_on"]) == [3]
    assert public(game)["turn"] is None


def test_a_seat_that_has_picked_is_no_longer_waited_on_and_has_nothing_to_decide():
    game = new_game(4, seed=6)
    pick(game, 2, hand(game, 2)[3])
    assert 2 not in public(game)["waiting_on"]
    assert game.legal_actions(2) == []


def test_others_see_that_a_seat_picked_but_never_which_card():
    game = new_game(4, seed=7)
    before = [game.view(s) for s in (1, 2, 3)] + [game.view(None)]
    card = hand(game, 0)[2]
    events = pick(game, 0, card)
    for seat in (1, 2, 3, None):
        assert card_codes_in(events_for(events, seat)) == [], seat
        assert "picked" in [e["type"] for e in events_for(events, seat)]
    assert card in card_codes_in(events_for(events, 0))
    assert [(e["seat"], e["kind"]) for e in events if e["type"] == "picked"] == [(0, "setup")]
    after = [game.view(s) for s in (1, 2, 3)] + [game.view(None)]
    for b, a in zip(before, after, strict=True):
        # Who has picked is public; nothing else may change for the others.
        b = {k: v for k, v in b.items() if k not in ("waiting_on", "picked")}
        a = {k: v for k, v in a.items() if k not in ("waiting_on", "picked")}
        assert a == b


@pytest.mark.parametrize("players", [4, 6, 8])
def test_all_exchanges_happen_at_once_when_the_last_seat_picks(players):
    game = new_game(players, seed=8)
    dealt = _dealt(game, players)
    picks = {s: dealt[s][(s * 3) % 7] for s in range(players)}
    for seat in range(players):
        pick(game, seat, picks[seat])
    for seat in range(players):
        expected = (
            Counter(dealt[seat]) - Counter([picks[seat]]) + Counter([picks[partner(seat, players)]])
        )
        assert Counter(hand(game, seat)) == expected
        assert hand(game, seat) == sort_hand(hand(game, seat))
        assert game.view(seat)["received"] == [picks[partner(seat, players)]]
    assert sizes(game) == [7] * players


def test_the_exchange_uses_the_latest_pick_when_a_seat_changes_its_mind():
    game = new_game(4, seed=9)
    dealt = _dealt(game, 4)
    first = dealt[0][0]
    second = next(c for c in dealt[0] if c != first)
    pick(game, 0, first)
    pick(game, 0, second)
    for seat in (1, 2, 3):
        pick(game, seat, dealt[seat][0])
    assert game.view(2)["received"] == [second]
    assert Counter(hand(game, 0)) == Counter(dealt[0]) - Counter([second]) + Counter([dealt[2][0]])


def test_the_turn_starts_after_the_setup_pass_and_picking_is_over():
    game = new_game(4, seed=10)
    complete_setup(game)
    v = public(game)
    assert v["turn"] == 1
    card = hand(game, 2)[0]
    assert_illegal(game, 2, {"type": "pass", "card": card})


def test_the_exchange_shows_each_seat_only_its_own_team_s_cards():
    game = new_game(4, seed=12)
    dealt = _dealt(game, 4)
    for seat in (0, 1, 3):
        pick(game, seat, dealt[seat][0])
    events = pick(game, 2, dealt[2][0])
    for seat in (0, 1, 2, 3):
        own_team = set(dealt[seat]) | set(dealt[partner(seat, 4)])
        for card in card_codes_in(events_for(events, seat)):
            assert card in own_team, (seat, card)
    assert card_codes_in(events_for(events, None)) == []
