"""What each seat may see (rule book: What you can and cannot see, Watching a game;
ENGINE_CONTRACT: Views)."""

import json
import random

from games.engine import sort_hand

from .helpers import (
    COLORS,
    DECK_COUNTS,
    complete_setup,
    draw,
    hand,
    make_game,
    new_game,
    pick,
    play,
    public,
)

SEAT_KEYS = {
    "seat",
    "players",
    "teams",
    "hand",
    "hand_sizes",
    "out",
    "departed",
    "discard",
    "draw_pile_size",
    "color",
    "direction",
    "turn",
    "waiting_on",
    "penalty",
    "must_give",
    "received",
    "round",
    "dealer",
    "scores",
    "round_over",
    "game_over",
}
PRIVATE_KEYS = {"hand", "must_give", "received"}


def test_a_seat_view_has_every_contract_key():
    game = new_game(6, seed=1)
    for seat in range(6):
        v = game.view(seat)
        assert SEAT_KEYS <= set(v), SEAT_KEYS - set(v)
        assert v["seat"] == seat


def test_the_spectator_view_has_every_public_key_and_no_private_one():
    game = new_game(4, seed=2)
    v = game.view(None)
    assert SEAT_KEYS - PRIVATE_KEYS <= set(v)
    assert not PRIVATE_KEYS & set(v)
    assert v["seat"] is None


def test_views_are_json_safe():
    game = new_game(8, seed=3)
    for seat in list(range(8)) + [None]:
        v = game.view(seat)
        assert json.loads(json.dumps(v)) == v


def test_a_seat_sees_its_own_hand_in_hand_order_and_only_counts_for_the_others():
    game = make_game(
        [["B1", "R9", "W", "Y2P", "Y2", "RS"], ["G9"], ["B8", "Y9"], ["Y4"]],
        discard=["R3"],
        draw_pile=["B6"],
    )
    v = game.view(0)
    assert v["hand"] == ["R9", "RS", "Y2", "Y2P", "B1", "W"]
    assert v["hand"] == sort_hand(v["hand"])
    assert v["hand_sizes"] == [6, 1, 2, 1]
    assert v["must_give"] == 0
    assert v["received"] == []
    assert v["penalty"] == 0
    assert v["turn"] == 0


def test_the_public_parts_of_a_view_describe_the_table():
    game = make_game(
        [["B1"], [], ["B8", "Y9"], ["Y4"]],
        discard=["G1", "W"],
        color="Y",
        draw_pile=["B6", "G6"],
        direction=-1,
        dealer=2,
        scores=[5, 7],
        turn=3,
    )
    v = public(game)
    assert v["players"] == 4 and v["teams"] == 2
    assert v["out"] == [False, True, False, False]
    assert v["departed"] == [False] * 4
    assert v["discard"] == ["G1", "W"]
    assert v["draw_pile_size"] == 2
    assert v["color"] == "Y"
    assert v["direction"] == -1
    assert v["turn"] == 3
    assert v["dealer"] == 2
    assert v["scores"] == [5, 7]
    assert v["round"] == 1


def _hidden_shuffle(hands, draw_pile, keep, seed):
    """The same table with every card hidden from `keep` moved around: the hands of seats
    other than `keep` redealt at the same sizes, and the draw pile reordered."""
    rng = random.Random(seed)
    pool = [c for s, h in enumerate(hands) if s != keep for c in h] + list(draw_pile)
    rng.shuffle(pool)
    new_hands = []
    for s, h in enumerate(hands):
        if s == keep:
            new_hands.append(list(h))
        else:
            new_hands.append(pool[: len(h)])
            pool = pool[len(h) :]
    return new_hands, pool


def test_a_seat_s_view_does_not_depend_on_cards_hidden_from_it():
    deck = [c for c, k in DECK_COUNTS.items() for _ in range(k)]
    for seed in range(30):
        rng = random.Random(seed)
        cards = deck[:]
        rng.shuffle(cards)
        players = rng.choice([4, 6, 8])
        hands = []
        for _ in range(players):
            k = rng.randint(1, 6)
            hands.append(cards[:k])
            cards = cards[k:]
        top = next(c for c in cards if c[0] in COLORS and c[1].isdigit())
        cards.remove(top)
        discard, draw_pile = cards[:3] + [top], cards[3:30]
        keep = rng.randrange(players)
        a = make_game(hands, discard=discard, draw_pile=draw_pile, turn=keep)
        other_hands, other_pile = _hidden_shuffle(hands, draw_pile, keep, seed)
        b = make_game(other_hands, discard=discard, draw_pile=other_pile, turn=keep)
        assert a.view(keep) == b.view(keep)
        assert a.view(None) == b.view(None)
        assert a.legal_actions(keep) == b.legal_actions(keep)


def test_a_seat_s_view_does_not_depend_on_the_other_team_s_setup_picks():
    a, b = new_game(4, seed=8), new_game(4, seed=8)
    complete_setup(a, choose=lambda h: h[0])
    for seat in (0, 2):
        pick(b, seat, hand(b, seat)[0])
    for seat in (1, 3):
        pick(b, seat, hand(b, seat)[-1])
    for seat in (0, 2):
        assert a.view(seat) == b.view(seat)
    assert a.view(None) == b.view(None)


def test_a_seat_does_not_see_its_partner_s_hand():
    a = make_game([["R7", "Y1"], ["G9"], ["B8", "Y9"], ["Y4"]], discard=["R3"], draw_pile=["B6"])
    b = make_game([["R7", "Y1"], ["G9"], ["G8", "WTD4"], ["Y4"]], discard=["R3"], draw_pile=["B6"])
    assert a.view(0) == b.view(0)


def test_a_drawn_card_is_hidden_from_everyone_but_the_drawer():
    a = make_game([["G7", "Y1"], ["G9"], ["B8"], ["Y4"]], discard=["R3"], draw_pile=["B6"])
    b = make_game([["G7", "Y1"], ["G9"], ["B8"], ["Y4"]], discard=["R3"], draw_pile=["G6"])
    draw(a, 0)
    draw(b, 0)
    for seat in (1, 2, 3, None):
        assert a.view(seat) == b.view(seat)
    assert a.view(0) != b.view(0)


def test_the_end_of_a_round_shows_every_hand_to_everyone():
    game = make_game([["R7"], ["G9", "W"], [], ["B8"]], discard=["R3"], draw_pile=["B6"])
    play(game, 0, "R7")
    for seat in (0, 1, 2, 3, None):
        hands = game.view(seat)["round_over"]["hands"]
        assert [sort_hand(h) for h in hands] == [[], ["G9", "W"], [], ["B8"]]


def test_the_spectator_view_never_names_a_card_in_a_hand_or_the_draw_pile():
    game = make_game([["WTD4", "YS"], ["WTP"], ["B8P"], ["Y4"]], discard=["R3"], draw_pile=["GD2"])
    text = json.dumps(public(game))
    for code in ("WTD4", "YS", "WTP", "B8P", "Y4", "GD2"):
        assert f'"{code}"' not in text, code
    text = json.dumps(game.view(0))
    for code in ("WTP", "B8P", "Y4", "GD2"):
        assert f'"{code}"' not in text, code
