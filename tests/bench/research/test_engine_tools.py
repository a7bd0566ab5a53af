"""The engine's research tools run from bench/research and print their figures."""

import random

from bench.research import engine_speed, simulate
from games.engine import Options


def test_a_random_game_is_played_to_the_end_with_every_card_accounted_for():
    g, actions = simulate.play_game(Options(players=6), 3, random.Random(1), check=True)
    assert g.stage == "over" and actions > 0


def test_the_simulation_reports_wins_and_speed(capsys):
    simulate.main(["--games", "3", "--players", "4", "--seed", "2", "--check"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("3 games of 4 players (")
    assert out[1].startswith("wins per team [")
    assert out[2].endswith(" actions/s")


def test_the_speed_benchmark_reports_the_engine_and_the_snapshot(capsys):
    engine_speed.main(["--games", "2", "--repeat", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("engine: ") and out[0].endswith("best of 1)")
    assert out[1].startswith("snapshot: to_dict + from_dict round trip ")
    assert out[2].startswith("rlcard")
