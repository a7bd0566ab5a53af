"""The bot games the site's length estimate starts from (bench/research/durations.py), and the
figures it ships (games/data/round_lengths.json)."""

import json
import statistics

from bench.research import durations
from games.presenters import durations as estimate


def test_a_round_of_bots_is_counted_in_decisions_and_points(tmp_path):
    samples = durations.measure(4, "normal", rounds=2, seed=3)
    assert len(samples["decisions"]) == len(samples["points"]) == 2
    # Every seat chooses its setup card, and someone plays out a hand of seven at least.
    assert all(decisions > 4 + 7 for decisions in samples["decisions"])
    assert all(points > 0 for points in samples["points"])
    out = tmp_path / "lengths.json"
    durations.main(["--rounds", "1", "--sizes", "4", "--out", str(out)])
    written = json.loads(out.read_text())["sizes"]["4"]["normal"]
    assert written["rounds"] == 1 and len(written["decisions"]) == len(written["points"]) == 1
    assert written["decisions"][0] > 11


def test_the_figures_the_site_ships_cover_every_table_size():
    shipped = json.loads(estimate.DATA.read_text())["sizes"]
    for players in ("4", "6", "8"):
        normal = shipped[players]["normal"]
        assert normal["rounds"] >= 40
        assert len(normal["points"]) == len(normal["decisions"]) == normal["rounds"]
        assert normal["decisions"] == sorted(normal["decisions"]) and normal["decisions"][0] > 10
    # More seats, more decisions in a round.
    medians = [statistics.median(shipped[p]["normal"]["decisions"]) for p in ("4", "6", "8")]
    assert medians == sorted(medians)
