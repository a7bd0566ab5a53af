"""What a push reads (games/store.py): the seats with their names, the last events.

Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import effects, store
from games.actions import decisions
from games.models import GameEvent, Seat
from games.presenters import describe, table
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


def written_reads(game, django_capture_on_commit_callbacks):
    """The TableReads a decision's write handed to its push."""
    game.refresh_from_db()
    state = store.load_state(game)
    seat = game.waiting_on[0]
    with django_capture_on_commit_callbacks() as callbacks:
        decisions.apply_decision(game.pk, seat, state.auto_action(seat), "person")
    (push,) = [c for c in callbacks if getattr(c, "func", None) is effects.game_changed]
    return push.keywords["reads"]


def test_the_write_reads_for_its_push_what_the_push_would_read_after_the_commit(
    four, django_capture_on_commit_callbacks
):
    game = make_started_game(four[:3], bots=("easy",), seed=5)
    held = timezone.now() + timedelta(hours=3)
    Seat.objects.filter(game=game, number=3).update(held_for=four[3], held_until=held)
    play_until(game, 45)
    reads = written_reads(game, django_capture_on_commit_callbacks)
    game.refresh_from_db()
    if connection.vendor != "postgresql":
        # The ORM path writes in three statements and leaves the reads to the push.
        assert not reads.up_to(game.last_seq)
        return
    assert reads.up_to(game.last_seq)
    after = store.table_seats(game.pk)
    assert [
        (s.pk, s.game_id, s.number, s.user_id, s.bot_level, s.held_for_id, s.held_until)
        for s in reads.seats
    ] == [
        (s.pk, s.game_id, s.number, s.user_id, s.bot_level, s.held_for_id, s.held_until)
        for s in after
    ]
    assert reads.seats[3].held_until == held
    assert [s.label() for s in reads.seats] == [s.label() for s in after]
    assert reads.seats[0].user.username == "ana" and reads.seats[3].user is None
    rows = store.recent_events(game.pk, table.PUSH_LOG_ROWS)
    assert len(reads.rows) == len(rows) == table.PUSH_LOG_ROWS
    # The same text, so the move log's cache (keyed on it) describes each row once.
    assert [(r.seq, r.raw) for r in reads.rows] == [(r.seq, r.raw) for r in rows]
    assert reads.rows[-1].seq == game.last_seq


def test_a_short_game_reads_the_events_it_has(four, django_capture_on_commit_callbacks):
    game = make_started_game(four, seed=5)
    reads = written_reads(game, django_capture_on_commit_callbacks)
    if connection.vendor == "postgresql":
        assert [r.seq for r in reads.rows] == [1, 2]
    else:
        assert reads.rows is None


def test_reads_filled_for_one_event_are_not_used_for_a_later_one():
    reads = store.TableReads(log_rows=40)
    assert not reads.up_to(7)
    reads.seq, reads.seats, reads.rows = 7, [], []
    assert reads.up_to(7) and not reads.up_to(8)
