"""The move log's cache (games.presenters.describe.row_move): each row's lines for one reader
are described once per process, and a cached line never reaches another reader or another row.

PostgreSQL only: there a push reads each row's stored JSON text, which is the cache's key.
Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import pytest

from games import store
from games.presenters import describe, table
from games.store import EventRow
from tests.conftest import make_started_game, play_one, play_until

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


@pytest.fixture(autouse=True)
def empty_cache():
    describe._LOG_CACHE.clear()
    yield
    describe._LOG_CACHE.clear()


def log_of(game, seat):
    game.refresh_from_db()
    return table.table_context(game, seat)["log_html"]


def test_every_seat_gets_what_describing_its_own_rows_gives_whatever_was_cached_first(four):
    game = make_started_game(four, seed=5)
    play_until(game, 14)
    cold = {}
    for seat in (0, 1, 2, 3, None):
        describe._LOG_CACHE.clear()
        cold[seat] = log_of(game, seat)
    # Each seat's private line "You were dealt ..." is in its own log only.
    dealt = {seat: cold[seat].split("You were dealt ")[1].split("</li>")[0] for seat in range(4)}
    assert len(set(dealt.values())) == 4
    assert not any(dealt[0] in cold[seat] for seat in (1, 2, 3, None))
    describe._LOG_CACHE.clear()
    for seat in (0, 1, 2, 3, None, 3, 2, 1, 0):
        assert log_of(game, seat) == cold[seat], seat
    # What the cache holds for a seat is that seat's own lines.
    for (raw, seq, seat, names, players), lines in describe._LOG_CACHE.items():
        expected = describe._describe_row(
            EventRow(seq, raw=raw).events, seq, seat, dict(names), players
        )
        assert lines == expected


def test_a_later_push_describes_only_the_rows_it_has_not_described(four, monkeypatch):
    game = make_started_game(four, seed=5)
    play_until(game, 10)
    described = []
    real = describe.describe
    monkeypatch.setattr(
        describe,
        "describe",
        lambda event, seat, *a: described.append(event) or real(event, seat, *a),
    )
    log_of(game, 1)
    first = len(described)
    assert first > 10
    described.clear()
    event = play_one(game).event
    log_of(game, 1)
    game.refresh_from_db()
    new = [e for e in store.recent_events(game.pk, 1)[0].events]
    assert event.seq == game.last_seq
    assert described == [e for e in new if e.get("visible_to") is None or 1 in e["visible_to"]]


def test_two_rows_with_the_same_text_keep_their_own_numbers(four):
    game = make_started_game(four, seed=5)
    names = {s: f"P{s}" for s in range(4)}
    raw = '[{"type": "draw", "seat": 2, "count": 1, "visible_to": null}]'
    moves = [
        describe.row_move(EventRow(seq, raw=raw), 0, names, tuple(names.items()), 4)
        for seq in (7, 9)
    ]
    assert moves[0] == (
        ("P2 drew a card.",),
        '<li class="move" data-seq="7"><p>P2 drew a card.</p></li>',
    )
    assert moves[1] == (
        ("P2 drew a card.",),
        '<li class="move" data-seq="9"><p>P2 drew a card.</p></li>',
    )
    assert game  # the rows need no game: the key is the row's own text


def test_a_renamed_player_is_described_afresh(four):
    game = make_started_game(four, seed=5)
    play_until(game, 10)
    before = log_of(game, 0)
    four[1].display_name = "Bo the Bold"
    four[1].save()
    after = log_of(game, 0)
    assert "Bo the Bold" not in before and "Bo the Bold" in after


def test_the_cache_stays_within_its_size(four, monkeypatch):
    monkeypatch.setattr(describe, "LOG_CACHE_SIZE", 20)
    game = make_started_game(four, seed=5)
    play_until(game, 30)
    for seat in (0, 1, 2, 3):
        log_of(game, seat)
        assert len(describe._LOG_CACHE) <= 20
    assert log_of(game, 2) == table.table_context(game, 2)["log_html"]
    state = store.load_state(game)
    assert state  # the game is still loadable: the cache holds markup only
