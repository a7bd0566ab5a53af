"""The learned rollout score: its features, its weights and its use by the search (its fit:
tests/bench/research/test_fit_leafvalue.py)."""

import math

import pytest

from games.bots import leafvalue
from games.bots.leafvalue import features, share
from games.bots.search import Budget, _value
from games.engine import Game, Options

from .helpers import position


def test_features_read_hands_wilds_and_the_turn():
    # Seat 2 (team 0) is out; seat 0 holds a Wild and a Skip; seat 1 (team 1) is to move,
    # and after it, passing over seat 2, comes its partner.
    g = position([["W", "RS", "G4"], ["B1", "B3"], [], ["R1", "R4", "WTD4", "Y7"]], "Y5", turn=1)
    assert features(g, 0) == (0, 3, False, False, True, 1, 1, False, False)
    assert features(g, 1) == (2, 4, False, True, False, 1, 0, True, True)


def test_next_to_move_passes_over_an_out_seat():
    # Seat 1 is out, so after seat 0 (team 0) comes its partner, seat 2.
    g = position([["R1", "R2"], [], ["G1"], ["B1", "B2"]], "Y5", turn=0)
    assert features(g, 0)[7:] == (True, True)
    assert features(g, 1)[7:] == (False, False)


def test_a_team_that_has_left_gets_no_share():
    g = position([["R1", "R2"], ["B1"], ["G1"], ["B2", "B3"], ["Y1"], ["Y2"]], "Y5", players=6)
    g.departed[2] = True
    weights = leafvalue.WEIGHTS[6]
    assert share(g, 2, weights) == 0.0
    assert math.isclose(share(g, 0, weights) + share(g, 1, weights), 1.0)


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_table_size_has_weights_for_every_feature(players):
    assert len(leafvalue.WEIGHTS[players]) == len(leafvalue.FEATURES)


def test_the_fitted_weights_prefer_fewer_cards_and_a_partner_out():
    for players, w in leafvalue.WEIGHTS.items():
        named = dict(zip(leafvalue.FEATURES, w, strict=True))
        assert named["cards of the partner with more"] < 0, players
        assert named["fewer is 0 (a partner is out)"] > 0, players


def test_the_search_scores_an_unfinished_rollout_by_the_learned_share():
    g = position([["R1", "R2"], ["B1", "B3", "B4", "B5"], ["G1"], ["B2", "B3", "Y1"]], "Y5")
    v = _value(g, 0, g.round, "learned")
    assert v == pytest.approx(share(g, 0, leafvalue.WEIGHTS[4]))
    assert v > 0.5  # three cards against seven
    assert _value(g, 1, g.round, "learned") == pytest.approx(1 - v)
    Budget(actions=100, score="learned")  # a budget may name it


def test_a_finished_round_still_scores_one_or_nothing():
    g = Game.from_position(
        Options(players=4),
        hands=[["Y3"], ["B1", "B3"], [], ["R1", "R4"]],
        draw_pile=["G1", "G2", "G3"],
        discard=["Y5"],
        turn=0,
    )
    start = g.round
    g.act(0, {"type": "play", "card": "Y3"})
    assert _value(g, 0, start, "learned") == 1.0
    assert _value(g, 1, start, "learned") == 0.0
