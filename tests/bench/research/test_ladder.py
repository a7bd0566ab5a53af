"""The ladder command: duplicate pairs, its ranking line and its exact last line."""

import re

from bench.research.ladder import main, mean_interval, pairing, wilson

LAST = re.compile(
    r"^(\w+) vs (\w+): \1 won (\d+) of (\d+) \((\d\.\d{3}), 95% CI "
    r"\[(\d\.\d{3}), (\d\.\d{3})\]\)$"
)


def test_it_prints_decision_times_and_the_result_as_its_last_line(capsys):
    main(
        [
            "--games",
            "6",
            "--players",
            "4",
            "--seed",
            "3",
            "--rollouts",
            "1",
            "--horizon",
            "5",
            "hard",
            "random",
        ]
    )
    out = capsys.readouterr().out.strip().splitlines()
    m = LAST.match(out[-1])
    assert m, out[-1]
    assert m.group(1, 2) == ("hard", "random") and int(m.group(4)) == 6
    assert any(line.startswith("hard: ") and "median" in line and "p95" in line for line in out)
    assert any(line.startswith("random: ") for line in out)


def test_six_players_with_two_jobs_count_every_game(capsys):
    main(["--games", "4", "--players", "6", "--seed", "1", "--jobs", "2", "easy", "normal"])
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("easy vs normal: easy won ")


def test_duplicate_pairs_cancel_the_deal_between_equal_players(capsys):
    # The same level on both sides of a duplicate pair of a fully deterministic player:
    # each deal is won once by each side, so exactly half.
    main(["--games", "20", "--players", "4", "--seed", "5", "normal", "normal"])
    assert "normal won 10 of 20" in capsys.readouterr().out.strip().splitlines()[-1]


RANKED = re.compile(
    r"^(\w+) vs (\w+): \1 ranked above a B team in (\d\.\d{3}) of (\d+) "
    r"games' pairings \(95% CI \[(\d\.\d{3}), (\d\.\d{3})\]\)$"
)


def test_a_pairing_scores_a_team_against_each_other_team_by_the_final_ranking():
    # Team 0 first, team 2 second, team 1 third.
    ranking = [[0, 1], [2, 2], [1, 3]]
    assert pairing(ranking, 0) == 1.0
    assert pairing(ranking, 2) == 0.5
    assert pairing(ranking, 1) == 0.0
    # A shared rank counts half: level with one, above the other.
    assert pairing([[1, 1], [0, 2], [3, 2], [2, 4]], 0) == (0.0 + 0.5 + 1.0) / 3


def test_the_ranking_line_counts_a_win_as_above_every_b_team(capsys):
    # With three teams a win scores 1 and a loss at most 1/2 (the winner is above A), so
    # the mean pairing lies between the share won and that share plus half the rest.
    main(["--games", "8", "--players", "6", "--seed", "2", "easy", "random"])
    out = capsys.readouterr().out.strip().splitlines()
    ranked, last = RANKED.match(out[-2]), LAST.match(out[-1])
    assert ranked and last, out[-2:]
    won = int(last.group(3)) / int(last.group(4))
    m = float(ranked.group(3))
    assert int(ranked.group(4)) == 8
    assert won - 0.0005 <= m <= won + (1 - won) / 2 + 0.0005
    assert float(ranked.group(5)) <= m <= float(ranked.group(6))


def test_equal_players_rank_level_at_four_players(capsys):
    # Duplicate pairs of a deterministic player: each deal once above, once below.
    main(["--games", "20", "--players", "4", "--seed", "5", "normal", "normal"])
    out = capsys.readouterr().out.strip().splitlines()
    assert RANKED.match(out[-2]).group(3) == "0.500"


def test_the_mean_interval():
    m, lo, hi = mean_interval([0.0, 1.0] * 50)
    assert m == 0.5 and round(lo, 3) == 0.402 and round(hi, 3) == 0.598


def test_the_wilson_interval():
    lo, hi = wilson(550, 1000)
    assert round(lo, 3) == 0.519 and round(hi, 3) == 0.581


def test_the_search_knobs_reach_the_budget(capsys):
    main(
        [
            "--games",
            "2",
            "--players",
            "6",
            "--seed",
            "1",
            "--rollouts",
            "1",
            "--horizon",
            "5",
            "--score",
            "best",
            "--z",
            "2.5",
            "hard",
            "normal",
        ]
    )
    out = capsys.readouterr().out
    assert "Budget(rollouts=1, horizon=5, score=best, z=2.5)" in out


def test_the_new_search_knobs_reach_the_budget_too(capsys):
    main(
        [
            "--games",
            "2",
            "--players",
            "4",
            "--seed",
            "1",
            "--rollouts",
            "1",
            "--horizon",
            "5",
            "--drop",
            "1.0",
            "--model",
            "public",
            "--pool",
            "10",
            "--wilds",
            "normal",
            "--weights",
            "late_wild",
            "--own-rollouts",
            "normal",
            "--explore",
            "0.1",
            "hard",
            "normal",
        ]
    )
    out = capsys.readouterr().out
    assert (
        "Budget(rollouts=1, horizon=5, score=share, z=1.5, drop=1.0, model=public, "
        "pool=10, wilds=Normal's, weights=late_wild, own_rollouts=normal, "
        "explore=0.1)" in out
    )


def test_the_weights_set_a_normal_teams_turn_score():
    from bench.research.ladder import play
    from games.engine import Options

    def moves(weights):
        seen = []
        play(
            Options(players=8),
            1,
            ["normal"] * 4,
            "w",
            None,
            weights=weights,
            watch=lambda game, seat, history, action: seen.append((seat, action)),
        )
        return seen

    plain = moves(None)
    assert moves([None, "normal", None, None]) == plain
    shedding = moves(["shedding", None, None, None])
    # Team 0 (seats 0 and 4) plays differently from the same deal, and its first move that
    # differs is its own.
    # The two games may differ in length: compare the moves both made.
    first = next(i for i, (a, b) in enumerate(zip(plain, shedding, strict=False)) if a != b)
    assert shedding[first][0] % 4 == 0


def test_a_run_can_start_part_way_so_two_processes_share_it(capsys):
    # Easy against random: every game differs. Games 4-7 of an 8-game run, played alone,
    # are the same games as in the whole run.
    def games(*extra):
        main(["--games", "8", "--players", "4", "--seed", "9", *extra, "easy", "random"])
        out = capsys.readouterr()
        return (
            int(LAST.match(out.out.strip().splitlines()[-1]).group(3)),
            int(LAST.match(out.out.strip().splitlines()[-1]).group(4)),
        )

    whole, first, second = games(), games("--games", "4"), games("--start", "4")
    assert second[1] == 4 and first[1] == 4
    assert first[0] + second[0] == whole[0]


def test_an_explore_share_outside_0_to_1_is_refused_with_a_clear_message(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["--games", "2", "--explore", "1.5", "hard", "normal"])
    assert "1.5 is not a share of the turns (0 to 1)" in capsys.readouterr().err


FULL = re.compile(
    r"^(\w+) vs (\w+): \1 ranked above a B team in (\d\.\d{3}) of (\d+) "
    r"games' pairings \(95% CI over (\d+) deals \[(\d\.\d{3}), (\d\.\d{3})\]\)$"
)


def test_a_full_rotation_leaves_equal_players_at_exactly_one_half_on_every_deal(capsys):
    # Each deal is played with A on each of the four teams' seats. A deterministic level
    # against itself plays one game four times, and the four seatings' pairing scores sum
    # to the six pairs of teams: every deal's mean is one half, so the interval is a point.
    main(["--games", "8", "--players", "8", "--seed", "5", "--rotate", "full", "normal", "normal"])
    m = FULL.match(capsys.readouterr().out.strip().splitlines()[-2])
    assert m, "the ranking line names the deals"
    assert m.group(3, 4, 5, 6, 7) == ("0.500", "8", "2", "0.500", "0.500")


def test_two_seatings_of_a_deal_leave_part_of_its_luck_at_eight_players(capsys):
    # The same deterministic level with only two of the four seatings: the deals still
    # favour some teams, which the full rotation above cancels.
    main(["--games", "40", "--players", "8", "--seed", "5", "normal", "normal"])
    assert RANKED.match(capsys.readouterr().out.strip().splitlines()[-2]).group(3) != "0.500"


def test_a_full_rotations_first_two_seatings_are_the_pair_games():
    from bench.research.ladder import _pair
    from games.engine import Options

    args = [Options(players=6), 3, 0, "easy", "random", None, 0, None, None, "all", None]
    args[6] = 3
    wins3, played3, _, ranked3 = _pair(tuple(args))
    args[6] = 2
    wins2, played2, _, ranked2 = _pair(tuple(args))
    assert (played3, played2) == (3, 2)
    assert ranked3[:2] == ranked2
    assert len(set(ranked3)) > 1, "easy against random: the seatings play differently"


def test_a_full_rotation_refuses_a_count_that_splits_a_deal(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["--games", "6", "--players", "8", "--rotate", "full", "easy", "random"])
    assert "multiples of 4" in capsys.readouterr().err


def test_the_kinds_of_decision_searched_reach_the_budget(capsys):
    import pytest

    main(
        [
            "--games",
            "2",
            "--players",
            "8",
            "--seed",
            "1",
            "--rollouts",
            "1",
            "--horizon",
            "5",
            "--searched",
            "setup,give",
            "hard",
            "normal",
        ]
    )
    assert "searched=setup,give" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--games", "2", "--searched", "turn,bluff", "hard", "normal"])
    assert "kinds of decision are among turn, penalty" in capsys.readouterr().err


PAIRED = re.compile(
    r"^paired with (.+): (\w+) ranked ([+-]\d\.\d{4}) above it over (\d+) "
    r"shared deals \(95% CI \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]\)$",
    re.MULTILINE,
)


def test_a_run_is_paired_deal_by_deal_with_another_on_the_same_deals(tmp_path, capsys):
    import pytest

    # Normal against itself with every seating scores exactly one half on each deal, so a
    # run paired with it differs by its own ranking minus one half; deals only one of the
    # two runs played are left out.
    plain = tmp_path / "normal.txt"
    main(
        [
            "--games",
            "16",
            "--players",
            "8",
            "--seed",
            "3",
            "--rotate",
            "full",
            "--per-deal",
            str(plain),
            "normal",
            "normal",
        ]
    )
    capsys.readouterr()
    lines = plain.read_text().split("\n")
    assert [x.split()[:2] for x in lines if x] == [["deal", str(i)] for i in range(4)]
    assert all(float(x.split()[2]) == 0.5 for x in lines if x)
    late = tmp_path / "late.txt"
    main(
        [
            "--games",
            "24",
            "--players",
            "8",
            "--seed",
            "3",
            "--rotate",
            "full",
            "--start",
            "4",
            "--weights",
            "late_wild",
            "--per-deal",
            str(late),
            "--paired-with",
            str(plain),
            "normal",
            "normal",
        ]
    )
    out = capsys.readouterr().out
    paired = PAIRED.search(out)
    assert paired and FULL.match(out.strip().splitlines()[-2])
    assert int(paired.group(4)) == 3  # deals 1-3 of the 1-5 played
    scores = {int(x.split()[1]): float(x.split()[2]) for x in late.read_text().splitlines()}
    assert sorted(scores) == [1, 2, 3, 4, 5]
    expected = sum(scores[i] - 0.5 for i in (1, 2, 3)) / 3
    assert expected != 0.0
    assert float(paired.group(3)) == pytest.approx(expected, abs=5e-5)
    assert float(paired.group(5)) <= float(paired.group(3)) <= float(paired.group(6))


def test_a_missing_or_foreign_paired_file_is_refused_with_a_clear_message(tmp_path, capsys):
    import pytest

    notes = tmp_path / "notes.txt"
    notes.write_text("hard won the lot\n")
    for path in (tmp_path / "absent.txt", notes):
        with pytest.raises(SystemExit):
            main(["--games", "2", "--paired-with", str(path), "normal", "normal"])
        assert f"--paired-with {path}: not a --per-deal file" in capsys.readouterr().err


def test_the_ladder_compares_inferences_on_the_same_level(capsys):
    main(
        [
            "--games",
            "2",
            "--players",
            "8",
            "--seed",
            "2",
            "--rollouts",
            "1",
            "--horizon",
            "5",
            "--infer-a",
            "all",
            "--infer-b",
            "none",
            "hard",
            "hard",
        ]
    )
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("hard vs hard: hard won ") and " of 2 " in out[-1]
    assert any(line.startswith("hard/A: ") for line in out)
    assert any(line.startswith("hard/B: ") for line in out)
    assert "inferences A " in out[0] and " B none" in out[0]


def test_the_ladder_runs_the_partly_revealed_oracle(capsys):
    main(
        [
            "--games",
            "2",
            "--players",
            "4",
            "--seed",
            "3",
            "--rollouts",
            "2",
            "--horizon",
            "8",
            "--reveal",
            "partner",
            "oracle",
            "normal",
        ]
    )
    out = capsys.readouterr().out
    assert "oracle sees partner" in out
    assert out.strip().splitlines()[-1].startswith("oracle vs normal: oracle won ")
