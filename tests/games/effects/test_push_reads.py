"""What a push reads (games/store.py): the seats with their names, the last events.

Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import pytest

from games import store
from games.models import GameEvent, Seat
from games.presenters import describe
from tests.conftest import make_started_game, play_until

pytestmark = pytest.mark.django_db


def test_table_seats_are_in_seat_order_with_each_persons_name(four):
    game = make_started_game(four[:3], bots=("easy",), seed=5)
    seats = store.table_seats(game.pk)
    assert [s.number for s in seats] == [0, 1, 2, 3]
    assert [s.label() for s in seats] == [s.label() for s in Seat.objects.filter(game=game)]
    assert seats[0].label() == "Ana" and seats[3].user is None and seats[3].is_bot


def test_the_seats_names_need_no_further_read(four, django_assert_num_queries):
    """Every push names the seats: a person, a site bot or a bot account, from the one read."""
    game = make_started_game(four[:3], bots=("easy",), seed=5)
    type(four[2]).objects.filter(pk=four[2].pk).update(is_bot=True)
    seats = store.table_seats(game.pk)
    with django_assert_num_queries(0):
        names = describe.seat_names(seats)
    assert names[2].endswith(" [bot]") and names[3].startswith("Bot 4")


def test_a_field_table_seats_did_not_load_is_read_when_asked_never_left_blank(four):
    game = make_started_game(four, seed=5)
    seat = store.table_seats(game.pk)[1]
    assert seat.user.email == "bo@example.com"


def test_recent_events_are_the_last_ones_oldest_first(four):
    game = make_started_game(four, seed=5)
    play_until(game, 12)
    rows = store.recent_events(game.pk, 5)
    stored = list(GameEvent.objects.filter(game=game).order_by("seq"))[-5:]
    assert [r.seq for r in rows] == [e.seq for e in stored] == [8, 9, 10, 11, 12]
    assert [r.events for r in rows] == [e.events for e in stored]
