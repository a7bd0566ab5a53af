"""The seat's whole condition in its state (its clock, time-outs, stand-in, disconnect
hold), its finished games with their results, and a finished game's export by token."""

from datetime import datetime

import pytest

from games.actions import presence
from games.models import Game
from games.store import seats
from tests.conftest import make_user
from tests.games.actions.test_clock import start, time_out_once_more
from tests.games.api.conftest import Api, bot_table, run_site_bots
from tests.games.clock_support import at, fresh, travel

pytestmark = pytest.mark.django_db


def when(text):
    return datetime.fromisoformat(text)


def test_the_state_tells_the_seat_its_clock_time_outs_hold_and_stand_in(robo, robo_api):
    """A real-time game where the bot account at seat 3 times out once, drops, times out
    during its hold (not counted), and is then played by a site bot until it is back."""
    people = [make_user("ana"), make_user("bo"), make_user("cy")]
    game = start([*people, robo], bot_accounts=True, seed=3)
    with travel(at(0)):
        fresh_state = robo_api.get(f"/games/{game.pk}").json()
    assert fresh_state["timeouts"] == 0 and fresh_state["timeout_limit"] == 3
    assert when(fresh_state["clock_due"]) == seats.due(fresh(game), 3) == at(30)
    assert fresh_state["stand_in"] is fresh_state["hold_until"] is None

    moment = time_out_once_more(game, 3, 0)
    with travel(at(moment)):
        presence.seat_connected(game.pk, 3)  # its stream opens...
        presence.seat_disconnected(game.pk, 3)  # ... and drops
        held = robo_api.get(f"/games/{game.pk}").json()
    assert held["timeouts"] == 1
    assert when(held["hold_until"]) == at(moment + 120) and held["stand_in"] is None

    moment = time_out_once_more(game, 3, moment)  # inside the hold: made, not counted
    assert robo_api.get(f"/games/{game.pk}").json()["timeouts"] == 1

    from games.actions import timeouts

    with travel(at(moment + 200)):
        timeouts.sweep()
        away = robo_api.get(f"/games/{game.pk}").json()
    assert away["stand_in"] == "away" and away["hold_until"] is None
    assert when(away["stand_in_since"]) == at(moment + 200)
    assert away["clock_due"] is None and away["site_bot"] is False


def test_a_turn_by_turn_seat_has_no_limit_of_time_outs(robo, robo_api):
    game = bot_table(robo, pace=Game.Pace.TURN_BASED)
    answer = robo_api.get(f"/games/{game.pk}").json()
    assert answer["timeout_limit"] is None and answer["timeouts"] == 0


def finished_game(bot):
    """A game the bot account lost by conceding at its first decision."""
    game = bot_table(bot)
    run_site_bots(game)
    return game


def test_finished_games_are_listed_with_their_result_only_when_asked(robo, robo_api):
    running = bot_table(robo, seed=1)
    lost = finished_game(robo)
    conceded = robo_api.post(
        f"/games/{lost.pk}/decisions", {"action": {"type": "concede"}, "key": "bye"}
    )
    assert conceded.status_code == 200
    assert fresh(lost).status == Game.Status.FINISHED
    plain = robo_api.get("/seats").json()
    assert [s["game"] for s in plain] == [running.pk]
    assert set(plain[0]) == {"game", "seat", "status", "your_turn", "last_seq"}  # as before

    listed = robo_api.get("/seats?finished=true").json()
    assert [s["game"] for s in listed] == [running.pk, lost.pk]
    ended = listed[1]
    assert ended["status"] == "finished" and ended["your_turn"] is False
    assert ended["finished_at"]
    assert ended["result"] == {
        "team": 0,
        "won": False,
        "rank": 2,
        "score": ended["result"]["scores"][0],
        "scores": ended["result"]["scores"],
    }
    assert "result" not in listed[0]


def test_the_export_goes_to_the_seats_holder_only_and_only_once_the_game_is_over(
    robo, robo_api, rita, rita_api
):
    """The site's export of a finished game, by token; a second bot account asking for it
    gets the 404 of a game it holds no seat at, and a running game is not exported."""
    game = finished_game(robo)
    early = robo_api.get(f"/games/{game.pk}/export")
    assert early.status_code == 409 and "finished" in early.json()["detail"]
    robo_api.post(f"/games/{game.pk}/decisions", {"action": {"type": "concede"}, "key": "bye"})

    exported = robo_api.get(f"/games/{game.pk}/export")
    assert exported.status_code == 200, exported.content
    data = exported.json()
    assert data["game"] == game.pk and data["format"] == "wild-cards-teams/1"
    assert data["events"][-1]["kind"] == "concede"
    assert data["seats"][0]["player"] == "robo"

    stranger = rita_api.get(f"/games/{game.pk}/export")
    nowhere = rita_api.get("/games/999999/export")
    assert stranger.status_code == nowhere.status_code == 404
    assert stranger.content == nowhere.content
    assert Api(None).get(f"/games/{game.pk}/export").status_code == 401
