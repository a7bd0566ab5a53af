"""The ladder command: duplicate pairs and its exact last line."""

import re

from games.bots.ladder import main, wilson

LAST = re.compile(r"^(\w+) vs (\w+): \1 won (\d+) of (\d+) \((\d\.\d{3}), 95% CI "
                  r"\[(\d\.\d{3}), (\d\.\d{3})\]\)$")


def test_it_prints_decision_times_and_the_result_as_its_last_line(capsys):
    main(["--games", "6", "--players", "4", "--seed", "3", "--rollouts", "1",
          "--horizon", "5", "hard", "random"])
    out = capsys.readouterr().out.strip().splitlines()
    m = LAST.match(out[-1])
    assert m, out[-1]
    assert m.group(1, 2) == ("hard", "random") and int(m.group(4)) == 6
    assert any(line.startswith("hard: ") and "median" in line and "p95" in line for line in out)
    assert any(line.startswith("random: ") for line in out)


def test_six_players_with_two_jobs_count_every_game(capsys):
    main(["--games", "4", "--players", "6", "--seed", "1", "--jobs", "2", "easy", "normal"])
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(
        "easy vs normal: easy won ")


def test_duplicate_pairs_cancel_the_deal_between_equal_players(capsys):
    # The same level on both sides of a duplicate pair of a fully deterministic player:
    # each deal is won once by each side, so exactly half.
    main(["--games", "20", "--players", "4", "--seed", "5", "normal", "normal"])
    assert "normal won 10 of 20" in capsys.readouterr().out.strip().splitlines()[-1]


def test_the_wilson_interval():
    lo, hi = wilson(550, 1000)
    assert round(lo, 3) == 0.519 and round(hi, 3) == 0.581


def test_the_search_knobs_reach_the_budget(capsys):
    main(["--games", "2", "--players", "6", "--seed", "1", "--rollouts", "1", "--horizon", "5",
          "--score", "best", "--z", "2.5", "hard", "normal"])
    out = capsys.readouterr().out
    assert "Budget(rollouts=1, horizon=5, score=best, z=2.5)" in out


def test_the_new_search_knobs_reach_the_budget_too(capsys):
    main(["--games", "2", "--players", "4", "--seed", "1", "--rollouts", "1", "--horizon", "5",
          "--drop", "1.0", "--model", "public", "--pool", "10", "--wilds", "normal", "hard",
          "normal"])
    out = capsys.readouterr().out
    assert "Budget(rollouts=1, horizon=5, score=share, z=1.5, drop=1.0, model=public, " \
           "pool=10, wilds=Normal's)" in out


def test_a_run_can_start_part_way_so_two_processes_share_it(capsys):
    # Easy against random: every game differs. Games 4-7 of an 8-game run, played alone,
    # are the same games as in the whole run.
    def games(*extra):
        main(["--games", "8", "--players", "4", "--seed", "9", *extra, "easy", "random"])
        out = capsys.readouterr()
        return (int(LAST.match(out.out.strip().splitlines()[-1]).group(3)),
                int(LAST.match(out.out.strip().splitlines()[-1]).group(4)))
    whole, first, second = games(), games("--games", "4"), games("--start", "4")
    assert second[1] == 4 and first[1] == 4
    assert first[0] + second[0] == whole[0]
