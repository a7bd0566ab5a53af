"""The fitting tool of the learned rollout score: its fit, its positions and its report."""

import math
import random

from bench.research.fit_leafvalue import _logit, fit, log_loss, main, positions


def test_the_fit_recovers_the_weights_that_made_the_data():
    # Two or three teams with random features; the winner drawn from a known logit.
    truth = (-0.3, 0.8, 0.0)
    rng = random.Random(5)
    data = []
    for _ in range(4000):
        fs = [tuple(rng.uniform(-2, 2) for _ in truth) for _ in range(rng.choice((2, 3)))]
        es = [math.exp(sum(w * x for w, x in zip(truth, f, strict=True))) for f in fs]
        y = rng.choices(range(len(fs)), weights=es)[0]
        data.append((fs, y))
    w = fit(data, ridge=0.01)
    assert all(abs(a - b) < 0.08 for a, b in zip(w, truth, strict=True)), w
    # The true weights explain the data better than no weights at all.
    assert log_loss(data, _logit(w)) < log_loss(data, _logit((0, 0, 0)))


def test_positions_label_each_with_the_winner_of_its_round():
    rows = list(positions(4, 3, seed=2, every=5))
    assert rows
    for i, fs, y in rows:
        assert i in (0, 1, 2)
        assert 0 <= y < len(fs) <= 2


def test_the_command_reports_the_fit_and_the_held_out_losses(capsys):
    main(["--games", "6", "--every", "3"])
    out = capsys.readouterr().out
    assert "WEIGHTS[4] = (" in out
    assert "held-out log-loss: learned" in out
