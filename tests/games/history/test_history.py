"""A player's history page: its rows, each filter, and the statistics page."""

import pytest
from django.urls import reverse

from games import engine
from games.models import Game
from tests.conftest import make_started_game, make_table
from tests.games.history.helpers import make_finished_game

pytestmark = pytest.mark.django_db


def shown(client, url, **params):
    response = client.get(url, params)
    assert response.status_code == 200
    return {row["game"].pk: row for row in response.context["page"]}


def my_team_result(game, seat):
    view = engine.Game.from_dict(game.snapshot.state).view(None)
    team = seat % (game.players // 2)
    ranks = dict(map(tuple, view["game_over"]["ranking"]))
    return (
        ("win" if view["game_over"]["winner"] == team else "loss"),
        ranks[team],
        view["scores"][team],
    )


@pytest.fixture
def games(four, ed):
    """Ana plays: a finished 4-seat real-time game, a finished 6-seat turn game,
    a running 4-seat game, an aborted game, and an open table (never listed)."""
    ana, bo, cy, di = four
    finished4 = make_finished_game(four)
    finished6 = make_finished_game([ana, bo, cy, di, ed], players=6, pace="turn")
    running = make_started_game(four)
    aborted = make_started_game([ana, bo], bots=["easy"])
    Game.objects.filter(pk=aborted.pk).update(status=Game.Status.ABORTED)
    open_table = make_table(ana)
    return {
        "finished4": finished4,
        "finished6": finished6,
        "running": running,
        "aborted": aborted,
        "open": open_table,
    }


def test_the_history_lists_started_games_with_date_mode_size_teams_result_rank_and_score(
    client, ana, games
):
    client.force_login(ana)
    rows = shown(client, reverse("history:mine"))

    assert set(rows) == {g.pk for k, g in games.items() if k != "open"}
    f4 = rows[games["finished4"].pk]
    games["finished4"].refresh_from_db()
    assert (f4["result"], f4["rank"], f4["score"]) == my_team_result(games["finished4"], 0)
    assert f4["size"] == 4 and f4["mode"] == "realtime"
    assert f4["teams"][0] == {"team": 0, "players": ["Ana", "cy"], "mine": True}
    running = rows[games["running"].pk]
    assert (running["result"], running["rank"], running["score"]) == (None, None, None)


FILTERS = [
    ({"status": "finished"}, {"finished4", "finished6"}),
    ({"status": "running"}, {"running"}),
    ({"status": "aborted"}, {"aborted"}),
    ({"mode": "turn"}, {"finished6"}),
    ({"mode": "realtime"}, {"finished4", "running", "aborted"}),
    ({"size": "6"}, {"finished6"}),
    ({"size": "4"}, {"finished4", "running", "aborted"}),
    ({"size": "4", "status": "finished"}, {"finished4"}),
]


def test_each_filter_keeps_only_the_matching_games(client, ana, games):
    # One test over every filter: each case would otherwise play the same games again.
    client.force_login(ana)
    for params, expected in FILTERS:
        rows = shown(client, reverse("history:mine"), **params)
        assert set(rows) == {games[k].pk for k in expected}, params


def test_the_result_filter_keeps_won_or_lost_finished_games(client, ana, games):
    client.force_login(ana)
    results = {
        key: my_team_result(Game.objects.get(pk=games[key].pk), 0)[0]
        for key in ("finished4", "finished6")
    }
    for wanted in ("win", "loss"):
        rows = shown(client, reverse("history:mine"), result=wanted)
        assert set(rows) == {games[k].pk for k, r in results.items() if r == wanted}


def test_someone_elses_history_hides_private_tables_they_did_not_share(client, ana, bo, ed):
    private = make_finished_game([ana, bo], private=True)
    public = make_finished_game([ana, bo])
    client.force_login(ed)
    assert set(shown(client, reverse("history:player", args=["ana"]))) == {public.pk}
    client.force_login(bo)
    assert set(shown(client, reverse("history:player", args=["ana"]))) == {private.pk, public.pk}


def test_the_statistics_count_games_wins_and_average_rank_overall_by_size_and_mode(
    client, ana, games
):
    client.force_login(ana)
    outcomes = {
        key: my_team_result(Game.objects.get(pk=games[key].pk), 0)
        for key in ("finished4", "finished6")
    }
    response = client.get(reverse("history:profile", args=["ana"]))
    stats = response.context["stats"]

    wins = sum(1 for r, _, _ in outcomes.values() if r == "win")
    ranks = [rank for _, rank, _ in outcomes.values()]
    assert stats["overall"]["games"] == 2
    assert stats["overall"]["wins"] == wins
    assert stats["overall"]["average_rank"] == round(sum(ranks) / 2, 2)
    assert stats["running"] == 1
    by_size = {g["key"]: g for g in stats["by_size"]}
    assert by_size[4]["games"] == 1 and by_size[4]["average_rank"] == outcomes["finished4"][1]
    assert by_size[6]["wins"] == (outcomes["finished6"][0] == "win")
    by_mode = {g["key"]: g for g in stats["by_mode"]}
    assert by_mode["turn"]["games"] == 1 and by_mode["realtime"]["games"] == 1
    assert by_mode["turn"]["average_rank"] == outcomes["finished6"][1]
    assert 'id="stat-games">2<' in response.content.decode()


def test_a_player_with_no_games_has_empty_statistics(client, ed):
    client.force_login(ed)
    stats = client.get(reverse("history:profile", args=["ed"])).context["stats"]
    assert stats["overall"] == {"games": 0, "wins": 0, "win_rate": None, "average_rank": None}


def test_history_pages_need_a_log_in(client, ana):
    for url in (reverse("history:mine"), reverse("history:profile", args=["ana"])):
        assert client.get(url).status_code == 302
