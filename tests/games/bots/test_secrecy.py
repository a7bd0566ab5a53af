"""A bot decides from its seat's view and visible events only: positions that differ only in
hidden cards (other hands, the order of the draw pile) get the same decision."""

import inspect
import random

import pytest

import games.bots
from games.bots import decide

from .helpers import TINY, ask, position, rest_of_deck

LEVELS = ("random", "easy", "normal", "hard")


def twin_positions(seed, players=4):
    """Two positions with the same public table and the same hand for seat 0, but the other
    seats' cards and the draw pile dealt differently from the same unknown cards."""
    rng = random.Random(seed)
    cards = rest_of_deck()
    rng.shuffle(cards)
    top = next(c for c in cards if c[0] in "RYGB" and c[1].isdigit())
    cards.remove(top)
    sizes = [rng.randint(1, 7) for _ in range(players)]
    mine = cards[: sizes[0]]
    hidden = cards[sizes[0] : sizes[0] + sum(sizes[1:]) + 20]
    discard = cards[sizes[0] + len(hidden) :]
    games = []
    for k in range(2):
        pool = list(hidden)
        random.Random(f"{seed}:{k}").shuffle(pool)
        hands = [mine]
        for s in range(1, players):
            hands.append(pool[: sizes[s]])
            pool = pool[sizes[s] :]
        games.append(position(hands, top, draw=pool, extra_discard=discard, players=players))
    return games


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(6))
def test_choice_does_not_change_when_only_hidden_cards_change(level, seed):
    a, b = twin_positions(seed, players=(4, 6, 8)[seed % 3])
    assert a.view(0) == b.view(0)
    assert a.to_dict() != b.to_dict()  # the hidden cards really differ
    assert ask(level, a, 0, seed=seed) == ask(level, b, 0, seed=seed)


def test_hidden_cards_do_change_what_the_oracle_sees():
    # The control: the oracle, which reads the game, may tell the twins apart; the entry
    # point of the real levels cannot even be given a game.
    params = inspect.signature(decide).parameters
    assert "game" not in params
    assert list(params)[:5] == ["level", "view", "legal_actions", "history", "rng"]
    assert "game" in inspect.signature(games.bots.oracle_decide).parameters


def test_hard_gets_the_same_answer_with_a_real_budget_on_twin_positions():
    a, b = twin_positions(11)
    from games.bots import Budget

    budget = Budget(rollouts=6)
    assert ask("hard", a, 0, seed=3, budget=budget) == ask("hard", b, 0, seed=3, budget=budget)


def test_a_bot_reads_nothing_but_the_view_keys_a_seat_gets():
    # A view with a key only the engine knows would be a leak; the bots never ask for one.
    a, _ = twin_positions(2)
    view = a.view(0)
    assert set(view) >= {"hand", "hand_sizes", "discard", "color", "must_give"}
    for level in LEVELS:
        decide(level, view, a.legal_actions(0), [], random.Random(1), budget=TINY)
