"""The load tool's pure parts: it reads a seat's choices from the page as a person would.

bench/load.py plays from the pushed fragments alone; these tests render the real
fragments of games in play and check that what the tool reads is exactly what the
engine allows that seat, and that every move it picks is accepted.
"""

import random

import pytest

from bench.load import choices, page_seq, percentile, pick_action, summarize
from games import store
from games.actions import decisions
from games.models import Game
from games.presenters import table
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db


def page(game, seat):
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    return table.render_fragments(table.table_context(game, seat)), store.load_state(game)


def engine_choices(state, seat):
    legal = state.legal_actions(seat)
    view = state.view(seat)
    return {
        "play": {(a["card"], "color" in a) for a in legal if a["type"] == "play"},
        "other": {a["type"] for a in legal if a["type"] in ("draw", "pass_turn", "take_penalty")},
        "pick": {a["card"] for a in legal if a["type"] == "pass"},
        "give": view.get("must_give") or 0,
    }


def page_choices(html):
    found = choices(html)
    return {
        "play": {(a["card"], "color" in a) for a in found["play"]},
        "other": {a["type"] for a in found["other"]},
        "pick": {a["card"] for a in found["pick"]},
        "give": found["give"][0] if found["give"] else 0,
    }


@pytest.mark.parametrize("seed", [3, 11])
def test_what_the_tool_reads_from_each_page_is_what_the_engine_allows(four, seed):
    game = make_started_game(four, seed=seed, target_score=300)
    rng = random.Random(seed)
    kinds = set()
    for _ in range(160):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        movers = []
        for seat in range(4):
            html, state = page(game, seat)
            assert page_seq(html) == game.last_seq
            assert page_choices(html) == engine_choices(state, seat), (
                f"seat {seat} at {game.last_seq}"
            )
            action = pick_action(html, rng)
            if action is not None:
                movers.append((seat, action))
        assert movers, "some seat always has a decision in an active game"
        seat, action = movers[0]
        kinds.add(action["type"])
        # Accepted as it is: the tool never sends a move the engine refuses.
        decisions.apply_decision(game.pk, seat, action, "person")
    assert {"pass", "play"} <= kinds


def test_a_wild_gets_a_colour_and_a_playable_card_is_preferred_to_drawing():
    html = (
        '<form id="hand-form" method="post" data-mode="play" data-need="0">'
        '<button type="submit" class="card hand-card" id="card-0-R7" name="play" value="R7" '
        'disabled><span class="visually-hidden">Red 7</span>x</button>'
        '<button type="button" class="card hand-card playable" id="card-1-W" '
        'data-wild="W" aria-expanded="false"><span class="visually-hidden">Wild</span>x</button>'
        '<button type="submit" class="primary" name="do" value="draw" id="btn-draw">'
        "Draw a card</button>"
    )
    for n in range(20):
        action = pick_action(html, random.Random(n))
        assert action["type"] == "play" and action["card"] == "W" and action["color"] in "RYGB"


def test_percentiles_are_nearest_rank_of_the_sorted_values():
    values = list(range(1, 101))
    assert percentile(values, 50) == 51
    assert percentile(values, 95) == 95
    assert percentile(values, 99) == 99
    assert percentile([], 95) is None
    stats = summarize([30.0, 10.0, 20.0])
    assert stats == {"n": 3, "median": 20.0, "p95": 30.0, "p99": 30.0, "max": 30.0}


def test_history_plays_the_moves_asked_and_leaves_no_clock_running(four):
    from bench.load import _play_history

    game = make_started_game(four, seed=5, target_score=1000)
    start = game.last_seq
    _play_history(game.pk, four, 30)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.last_seq == start + 30
    assert (game.clocks, game.deadline_at, game.wake_at, game.countdown_at) == (
        {},
        None,
        None,
        None,
    )
    # The state is the one those moves make, and the game goes on from it.
    state = store.load_state(game)
    assert state.to_dict() == store.replay(game).to_dict()
    assert game.waiting_on
