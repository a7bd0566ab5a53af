"""The learned rollout score: its features, its fit and its use by the search."""

import math
import random

import pytest

from games.bots import leafvalue
from games.bots.leafvalue import features, fit, log_loss, main, positions, share
from games.bots.search import Budget, _value
from games.engine import Game, Options

from .helpers import position


def test_features_read_hands_wilds_and_the_turn():
    # Seat 2 (team 0) is out; seat 0 holds a Wild and a Skip; seat 1 (team 1) is to move,
    # and after it, passing over seat 2, comes its partner.
    g = position([["W", "RS", "G4"], ["B1", "B3"], [], ["R1", "R4", "WTD4", "Y7"]], "Y5",
                 turn=1)
    assert features(g, 0) == (0, 3, False, False, True, 1, 1, False, False)
    assert features(g, 1) == (2, 4, False, True, False, 1, 0, True, True)


def test_next_to_move_passes_over_an_out_seat():
    # Seat 1 is out, so after seat 0 (team 0) comes its partner, seat 2.
    g = position([["R1", "R2"], [], ["G1"], ["B1", "B2"]], "Y5", turn=0)
    assert features(g, 0)[7:] == (True, True)
    assert features(g, 1)[7:] == (False, False)


def test_a_team_that_has_left_gets_no_share():
    g = position([["R1", "R2"], ["B1"], ["G1"], ["B2", "B3"], ["Y1"], ["Y2"]], "Y5",
                 players=6)
    g.departed[2] = True
    weights = leafvalue.WEIGHTS[6]
    assert share(g, 2, weights) == 0.0
    assert math.isclose(share(g, 0, weights) + share(g, 1, weights), 1.0)


def test_the_fit_recovers_the_weights_that_made_the_data():
    # Two or three teams with random features; the winner drawn from a known logit.
    truth = (-0.3, 0.8, 0.0)
    rng = random.Random(5)
    data = []
    for _ in range(4000):
        fs = [tuple(rng.uniform(-2, 2) for _ in truth) for _ in range(rng.choice((2, 3)))]
        es = [math.exp(sum(w * x for w, x in zip(truth, f))) for f in fs]
        y = rng.choices(range(len(fs)), weights=es)[0]
        data.append((fs, y))
    w = fit(data, ridge=0.01)
    assert all(abs(a - b) < 0.08 for a, b in zip(w, truth)), w
    # The true weights explain the data better than no weights at all.
    assert log_loss(data, leafvalue._logit(w)) < log_loss(data, leafvalue._logit((0, 0, 0)))


def test_positions_label_each_with_the_winner_of_its_round():
    rows = list(positions(4, 3, seed=2, every=5))
    assert rows
    for i, fs, y in rows:
        assert i in (0, 1, 2)
        assert 0 <= y < len(fs) <= 2


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_table_size_has_weights_for_every_feature(players):
    assert len(leafvalue.WEIGHTS[players]) == len(leafvalue.FEATURES)


def test_the_fitted_weights_prefer_fewer_cards_and_a_partner_out():
    for players, w in leafvalue.WEIGHTS.items():
        named = dict(zip(leafvalue.FEATURES, w))
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
    g = Game.from_position(Options(players=4), hands=[["Y3"], ["B1", "B3"], [], ["R1", "R4"]],
                           draw_pile=["G1", "G2", "G3"], discard=["Y5"], turn=0)
    start = g.round
    g.act(0, {"type": "play", "card": "Y3"})
    assert _value(g, 0, start, "learned") == 1.0
    assert _value(g, 1, start, "learned") == 0.0


def test_the_command_reports_the_fit_and_the_held_out_losses(capsys):
    main(["--games", "6", "--every", "3"])
    out = capsys.readouterr().out
    assert "WEIGHTS[4] = (" in out
    assert "held-out log-loss: learned" in out
