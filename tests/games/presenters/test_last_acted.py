"""The plates mark the last player to act (and the partners who just traded), alike for every
reader, from what everyone may see."""

import uuid

import pytest

from games import store
from games.actions import decisions
from games.presenters import table
from tests.conftest import make_started_game, play_one
from tests.games.presenters.test_fragment_markup import last_to_act, parse

pytestmark = pytest.mark.django_db


def plates(game, reader):
    game.refresh_from_db()
    html = table.render_fragments(table.table_context(game, reader))
    felt = parse(html).find("section", id="table-seats")
    return {
        int(p.attrs["id"].removeprefix("seat-")): p
        for p in felt.find("ol", cls="seat-list").find_all("li", cls="plate")
    }


def marked(game, reader, cls="last-acted"):
    return sorted(n for n, p in plates(game, reader).items() if cls in p.attrs["class"].split())


def act(game, seat, action):
    decisions.apply_decision(game.pk, seat, action, "person", idempotency_key=uuid.uuid4().hex)


def test_no_plate_is_marked_before_anyone_has_acted(four):
    game = make_started_game(four, seed=5)
    for reader in (None, 0, 1, 2, 3):
        assert marked(game, reader) == []
        assert all(
            "last to act" not in p.attrs["aria-label"] for p in plates(game, reader).values()
        )


def test_the_plate_of_whoever_acted_last_is_marked_for_every_reader(four):
    game = make_started_game(four, seed=5, target_score=300)
    seen = set()
    for _ in range(40):
        game.refresh_from_db()
        seat = game.waiting_on[0]
        play_one(game)
        seen.add(seat)
        for reader in (None, 0, 1, 2, 3):
            assert marked(game, reader) == [seat]
            plate = plates(game, reader)[seat]
            assert plate.attrs["aria-label"].endswith(", last to act")
            others = [p for n, p in plates(game, reader).items() if n != seat]
            assert all("last to act" not in p.attrs["aria-label"] for p in others)
    assert seen == {0, 1, 2, 3}


def test_the_mark_is_the_newest_seated_event_rows_seat_after_any_move(four):
    """Against the event table itself: the newest row holding a public event with a seat."""
    game = make_started_game(four, seed=9, target_score=300, stacking=True)
    for _ in range(120):
        play_one(game)
        newest = last_to_act(game)
        assert marked(game, None) == ([] if newest is None else [newest])
        assert marked(game, 2) == marked(game, None)


def test_the_setup_pass_marks_the_last_chooser_and_every_trading_partner(four):
    game = make_started_game(four, seed=5)
    state = store.load_state(game)
    assert state.view(None)["decision"] == "setup"
    for seat in (2, 0, 3):
        act(game, seat, {"type": "pass", "card": state.view(seat)["hand"][0]})
        assert marked(game, 1) == [seat]
        assert marked(game, 1, "just-traded") == []
    act(game, 1, {"type": "pass", "card": state.view(1)["hand"][0]})
    for reader in (None, 0, 1, 2, 3):
        assert marked(game, reader) == [1]
        assert marked(game, reader, "just-traded") == [0, 1, 2, 3]
    # The next move is no trade: the partners' marks go.
    play_one(game)
    assert marked(game, None, "just-traded") == []


def test_a_changed_choice_that_only_its_player_sees_does_not_move_the_mark(four):
    game = make_started_game(four, seed=5)
    state = store.load_state(game)
    hand = state.view(0)["hand"]
    act(game, 0, {"type": "pass", "card": hand[0]})
    act(game, 1, {"type": "pass", "card": state.view(1)["hand"][0]})
    # Seat 0 changes its card: nobody else may know it did anything.
    act(game, 0, {"type": "pass", "card": next(c for c in hand if c != hand[0])})
    for reader in (None, 1, 2, 3):
        assert marked(game, reader) == [1]
