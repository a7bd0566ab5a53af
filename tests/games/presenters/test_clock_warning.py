"""When a seat's time runs low, and who is told: the moments the page shows its warning, read
from the game's public clocks, and the plates' time-outs so far (docs/table.md, "Time running
out")."""

from datetime import datetime, timedelta

import pytest

from games.models import Game
from games.presenters import table
from tests.conftest import make_started_game
from tests.games.presenters.test_last_acted import plates

pytestmark = pytest.mark.django_db


def moments(game, seat):
    due, warn, key = table.clock_warning(game, seat)
    return datetime.fromisoformat(due), datetime.fromisoformat(warn), key


def test_a_real_time_clock_runs_low_in_its_last_ten_seconds(four):
    game = _started(four, pace="realtime", move_seconds=30)
    seat = int(next(iter(game.clocks)))
    due, warn, key = moments(game, seat)
    assert due - warn == timedelta(seconds=10)
    assert due == datetime.fromisoformat(game.clocks[str(seat)]["due"])
    assert key == f"{seat}-{game.clocks[str(seat)]['since']}"


def test_a_turn_by_turn_deadline_runs_low_in_its_last_tenth(four):
    game = _started(four, pace="turn", turn_hours=24)
    seat = int(next(iter(game.clocks)))
    due, warn, _ = moments(game, seat)
    assert due - warn == timedelta(hours=24) / 10


def test_no_clock_no_warning_and_none_once_the_game_is_over(four):
    game = _started(four[:2], pace="realtime", move_seconds=15)  # bots at seats 2 and 3
    without = next(n for n in range(4) if str(n) not in game.clocks)
    assert table.clock_warning(game, without) is None
    with_clock = int(next(iter(game.clocks)))
    game.status = Game.Status.FINISHED
    assert table.clock_warning(game, with_clock) is None


def test_the_reader_and_their_partner_get_a_warning_and_nobody_else(four):
    game = _started(four, pace="realtime", move_seconds=15)
    context = table.table_context(game, 0)
    clocks = set(game.clocks)
    assert (context["clock_mine"] is not None) == ("0" in clocks)
    assert (context["clock_partner"] is not None) == ("2" in clocks)
    if context["clock_partner"]:
        assert context["clock_partner"]["role"] == "partner"
        assert context["clock_partner"]["due"] == game.clocks["2"]["due"]
    watcher = table.table_context(game, None)
    assert watcher["clock_mine"] is None and watcher["clock_partner"] is None


def test_a_plate_shows_its_time_outs_once_there_is_one(four):
    game = _started(four, pace="realtime", move_seconds=15)
    Game.objects.filter(pk=game.pk).update(timeouts={"1": 2, "3": 5})
    for reader in (None, 0, 1):
        found = plates(game, reader)
        assert found[1].find("span", cls="timeouts").text().strip().startswith("2 of 3")
        assert "2 of 3 time-outs" in found[1].attrs["aria-label"]
        # Never more than the limit: after it a bot plays the seat.
        assert found[3].find("span", cls="timeouts").text().strip().startswith("3 of 3")
        assert found[0].find_all("span", cls="timeouts") == []
        assert found[2].find_all("span", cls="timeouts") == []


def test_turn_by_turn_plates_show_no_time_outs(four):
    game = _started(four, pace="turn", turn_hours=12)
    Game.objects.filter(pk=game.pk).update(timeouts={"1": 2})
    assert plates(game, 0)[1].find_all("span", cls="timeouts") == []


def _started(users, **options):
    game = make_started_game(users, **options)
    game.refresh_from_db()
    assert game.clocks, "a started table waits on its people's setup passes"
    return game
