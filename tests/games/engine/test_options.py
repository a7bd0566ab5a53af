"""Options and their validation (rule book: Options; ENGINE_CONTRACT: Options)."""

import pytest

from games.engine import Game, Options

from .helpers import public


def test_the_defaults_are_four_players_no_stacking_final_card_penalty_single_round():
    options = Options()
    assert options.players == 4
    assert options.stacking is False
    assert options.final_card_penalty is True
    assert options.target_score is None


@pytest.mark.parametrize("players", [4, 6, 8])
def test_four_six_or_eight_players_are_accepted(players):
    assert public(Game.new(Options(players=players), 1))["players"] == players


@pytest.mark.parametrize("players", [0, 1, 2, 3, 5, 7, 9, 10, 12, -4, "4", None])
def test_any_other_number_of_players_is_refused(players):
    with pytest.raises(ValueError):
        Options(players=players)


@pytest.mark.parametrize("target", [50, 51, 500, 4999, 5000])
def test_a_target_score_from_50_to_5000_is_accepted(target):
    assert Options(target_score=target).target_score == target


@pytest.mark.parametrize("target", [0, 49, 5001, -500, 10**6, "500", 500.5])
def test_a_target_score_outside_50_to_5000_is_refused(target):
    with pytest.raises(ValueError):
        Options(target_score=target)


@pytest.mark.parametrize("field", ["stacking", "final_card_penalty"])
@pytest.mark.parametrize("value", ["yes", None, 2])
def test_the_switches_only_take_true_or_false(field, value):
    with pytest.raises(ValueError):
        Options(**{field: value})


def test_a_position_with_a_wild_on_top_needs_a_colour():
    with pytest.raises(ValueError):
        Game.from_position(
            Options(), hands=[["R1"], ["G1"], ["B1"], ["Y1"]], draw_pile=[], discard=["W"], turn=0
        )
