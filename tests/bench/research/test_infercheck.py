"""The inference check: how much a lean tells about the true hidden hands."""

from bench.research.infercheck import lean_gain
from games.bots import SeatMemory
from tests.games.bots.test_inference import wild_position


def test_the_gain_check_rewards_a_lean_toward_the_true_hand():
    g, seen = wild_position()
    view = g.view(0)
    mem = SeatMemory.build(view, seen, {"wild_colour"})
    hands = [list(h) for h in g.hands]
    hands[1] = ["B4", "B5", "B6", "B7"]
    assert lean_gain(mem, view, hands)[0] > 0
    hands[1] = ["R4", "R5", "Y6", "Y7"]
    assert lean_gain(mem, view, hands)[0] < 0
