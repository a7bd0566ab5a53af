"""Every level only ever picks legal actions, in games of every size and option."""

import pytest

from games.engine import Options

from .helpers import play_checked

LEVELS = ("random", "easy", "normal", "hard", "oracle")

CASES = [
    (Options(players=4), ("hard", "normal")),
    (Options(players=4, stacking=True), ("normal", "hard")),
    (Options(players=4, final_card_penalty=False), ("easy", "random")),
    (Options(players=4, target_score=150), ("normal", "easy")),
    (Options(players=6), ("hard", "easy", "random")),
    (Options(players=6, stacking=True, target_score=100), ("random", "normal", "easy")),
    (Options(players=8), ("normal", "hard", "random", "easy")),
    (
        Options(players=8, stacking=True, final_card_penalty=False),
        ("easy", "normal", "hard", "random"),
    ),
    (Options(players=4), ("oracle", "random")),
]


@pytest.mark.parametrize("options,levels", CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_level_only_picks_legal_actions(options, levels, seed):
    g, kinds = play_checked(options, seed, levels)
    assert g.stage == "over"
    decided = {level for level, _ in kinds}
    assert decided == set(levels)


def test_the_games_cover_every_kind_of_decision():
    seen = set()
    for options, levels in CASES:
        for seed in (1, 2, 3):
            _, kinds = play_checked(options, seed, levels)
            seen |= {kind for _, kind in kinds}
    assert {"setup", "swap", "give", "forced", "penalty", "turn"} <= seen


@pytest.mark.parametrize("level", LEVELS)
def test_many_games_of_one_level_stay_legal(level):
    n = 4 if level in ("hard", "oracle") else 12
    for seed in range(n):
        players = (4, 6, 8)[seed % 3]
        options = Options(players=players, stacking=bool(seed % 2))
        play_checked(options, 100 + seed, [level] * (players // 2))
