"""Rematch series: "Play again" with the same players continues a series, each team's wins
counted from the games' own outcomes; someone new in a seat starts a new one."""

import re

import pytest
from django.urls import reverse

from games.actions import rematch
from games.presenters import history, series
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.history.helpers import finish, make_finished_game

pytestmark = pytest.mark.django_db


def again(game, users):
    """Everyone asks to play again; the host starts the new table; it is played out."""
    new = None
    for user in users:
        new = rematch.play_again(game.pk, user)
    lobby.start_table(new.pk, users[0])
    return finish(new)


def winners(games):
    return [history.outcome(g)["winner"] for g in games]


def test_play_again_with_the_same_players_keeps_one_series_with_each_teams_wins(four):
    games = [make_finished_game(four)]
    for _ in range(3):
        games.append(again(games[-1], four))

    found = series.standings(games)
    assert [found[g.pk].number for g in games] == [1, 2, 3, 4]
    expected = [0, 0]
    for game, winner in zip(games, winners(games), strict=True):
        expected[winner] += 1
        assert found[game.pk].wins == expected
    assert sum(found[games[-1].pk].wins) == 4

    (one,) = series.of_player(four[0], four[0])
    ana_team, bo_team = found[games[-1].pk].wins  # Ana at seat 0 (team 0), Bo at seat 1
    assert one["length"] == 4 and [g.pk for g in one["games"]] == [g.pk for g in games]
    assert one["score"] == f"{ana_team}–{bo_team}"
    (bo_side,) = series.of_player(four[1], four[1])
    assert bo_side["score"] == f"{bo_team}–{ana_team}"
    assert one["result"] == (
        "level" if ana_team == bo_team else "won" if ana_team > bo_team else "lost"
    )
    assert bo_side["teams"][0]["mine"] and bo_side["teams"][0]["players"] == ["Bo", "di"]


def test_someone_new_in_a_seat_starts_a_new_series(four):
    first = make_finished_game(four)
    second = again(first, four)
    ed = make_user("ed")
    # Di does not come back (she declines the seat held for her): Ed takes it.
    third = None
    for user in (four[0], four[1], four[2], ed):
        third = rematch.play_again(second.pk, user) if user != ed else third
    rematch.decline(third.pk, four[3])
    lobby.take_seat(third.pk, ed, 3)
    lobby.start_table(third.pk, four[0])
    third = finish(third)

    found = series.standings([first, second, third])
    assert [found[g.pk].number for g in (first, second, third)] == [1, 2, 1]
    (only,) = series.of_player(four[0], four[0])
    assert only["last"].pk == second.pk and only["length"] == 2
    assert series.of_player(ed, ed) == []


def test_the_history_rows_carry_the_series_game_number_and_score(four):
    first = make_finished_game(four)
    second = again(first, four)
    lone = make_finished_game(four)
    rows = series.mark_rows(history.rows(four[1], four[1]), four[1], four[1])
    by_game = {r["game"].pk: r for r in rows}
    assert "series" not in by_game[lone.pk]
    assert by_game[first.pk]["series"]["number"] == 1
    wins = series.standings([first, second])[second.pk].wins
    assert by_game[second.pk]["series"] == {"number": 2, "score": f"{wins[1]}–{wins[0]}"}


def test_the_history_page_and_the_profile_show_the_series(client, four):
    first = make_finished_game(four)
    second = again(first, four)
    third = again(second, four)
    lone = make_finished_game(four)
    wins = series.standings([first, second, third])[third.pk].wins  # per team; Ana is team 0
    client.force_login(four[0])

    page = client.get(reverse("history:mine")).content.decode()
    cells = {
        int(m.group(1)): m.group(2)
        for m in re.finditer(
            r'<tr data-game="(\d+)">\s*<td>[^<]*</td>\s*<td>(.*?)</td>', page, re.S
        )
    }
    assert "Series game 3 · " + f"{wins[0]}–{wins[1]}" in cells[third.pk]
    assert "Series game 1 · " in cells[first.pk]
    assert "series-tag" not in cells[lone.pk]

    profile = client.get(reverse("history:profile", args=[four[0].username])).content.decode()
    section = profile.split('id="series"', 1)[1].split("</ul>", 1)[0]
    assert f"<strong>{wins[0]}–{wins[1]}</strong>" in section
    assert "over 3 games" in section
    result = "won" if wins[0] > wins[1] else "lost" if wins[0] < wins[1] else "level"
    assert f"{result} over 3 games" in section
    for game in (first, second, third):
        assert f"Table {game.pk}</a>" in section
    assert f"Table {lone.pk}</a>" not in section
    # The other team's player reads the same series from their side.
    client.force_login(four[1])
    theirs = client.get(reverse("history:profile", args=[four[1].username])).content.decode()
    assert f"<strong>{wins[1]}–{wins[0]}</strong>" in theirs


def test_a_profile_without_series_says_how_one_starts(client, four):
    make_finished_game(four)
    client.force_login(four[0])
    page = client.get(reverse("history:profile", args=[four[0].username])).content.decode()
    assert "No rematch series yet" in page and 'id="series"' not in page
