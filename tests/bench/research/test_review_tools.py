"""The review's calibration and speed commands."""

import json

from bench.research import review_calibration, review_speed
from games.bots.review import Row


def test_the_calibration_reviews_seat_zero_and_writes_one_line_a_decision(tmp_path, capsys):
    out = tmp_path / "losses.jsonl"
    review_calibration.main(
        ["--games", "2", "--actions", "300", "--seed", "4", "--out", str(out), "easy", "normal"]
    )
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert {x["level"] for x in lines} == {"easy", "normal"}
    assert {x["game"] for x in lines} == {0, 1}
    assert all(x["loss"] >= 0 and x["kind"] for x in lines)
    printed = capsys.readouterr().out
    assert "4 games reviewed" in printed
    assert "easy: 2 games with a decision reviewed" in printed
    assert "normal: 2 games with a decision reviewed" in printed
    assert "mistakes or worse per 100 decisions" in printed
    # The same lines read back report the same counts without reviewing again.
    review_calibration.main(["--read", str(out)])
    again = capsys.readouterr().out
    assert again.strip() == printed.split("(what the seat knew only)\n")[1].strip()


def test_a_share_of_the_decisions_is_drawn_from_the_games_seed():
    whole = review_calibration.review_game(("easy", 0, 4, 2, 300, 1.0))
    part = review_calibration.review_game(("easy", 0, 4, 2, 300, 0.5))
    again = review_calibration.review_game(("easy", 0, 4, 2, 300, 0.5))
    seqs = {x["seq"] for x in whole[2]}
    assert {x["seq"] for x in part[2]} < seqs
    assert part[2] == again[2]


def test_the_games_rows_are_what_the_site_stores(capsys):
    from games.engine import GameState, Options

    options = Options(players=4)
    rows = review_calibration.game_rows(options, 5, ["easy", "normal", "normal", "normal"], 5)
    assert rows[0] == Row(1, None, None, GameState.new(options, 5).initial_events())
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    g = GameState.new(options, 5)
    for r in rows[1:]:
        assert g.act(r.seat, r.action) == r.events
    assert g.stage == "over"


def test_the_speed_command_prints_a_line_per_table_size(monkeypatch, capsys):
    from games.bots import Budget, review

    small = {n: Budget(rollouts=2, horizon=10) for n in (4, 6)}
    monkeypatch.setattr(review, "REVIEW_BUDGET", small)
    review_speed.main(["--players", "4", "6", "--games", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("4 players: 1 reviews of ")
    assert out[1].startswith("6 players: 1 reviews of ")
