"""The same seed gives the same decisions, so a bot's game replays exactly."""

import random

from bench.research.ladder import play
from games.bots import Budget, choose_action, decide
from games.engine import Options

from .helpers import TINY


def test_a_whole_game_of_bots_replays_exactly_with_the_same_seeds():
    opts = Options(players=4, stacking=True)
    levels = ["hard", "normal"]
    a = play(opts, 5, levels, "bots", TINY)
    b = play(opts, 5, levels, "bots", TINY)
    assert a.to_dict() == b.to_dict()


def test_a_different_bot_seed_can_change_the_game():
    opts = Options(players=4)
    results = {str(play(opts, 5, ["random", "random"], f"s{k}", TINY).to_dict()) for k in range(3)}
    assert len(results) > 1


def test_hard_in_rollout_mode_repeats_its_choice_for_the_same_seed():
    from .test_secrecy import twin_positions

    pos, _ = twin_positions(4)
    view, legal = pos.view(0), pos.legal_actions(0)
    budget = Budget(rollouts=5)
    picks = {
        str(decide("hard", view, legal, [], random.Random(42), budget=budget)) for _ in range(3)
    }
    assert len(picks) == 1


def test_the_site_bridge_is_seeded():
    from .test_secrecy import twin_positions

    pos, _ = twin_positions(1)
    view, legal = pos.view(0), pos.legal_actions(0)
    first = choose_action(level="random", view=view, legal_actions=legal, history=[], seed=7)
    assert all(
        choose_action(level="random", view=view, legal_actions=legal, history=[], seed=7) == first
        for _ in range(5)
    )
