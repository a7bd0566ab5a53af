"""The table's move log is the whole game, one item per move, and the hand's trade note
belongs to the move that completed the trade (games.presenters.table, docs/table.md).

Games are played with seeded random legal moves (tests.games.presenters.test_fragment_markup
.play_random), every seat a person but the last, a bot.
"""

import random

import pytest

from games import engine, store
from games.models import Game
from games.presenters import describe, table
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_describe import MoveLog
from tests.games.presenters.test_fragment_markup import parse, play_random
from tests.games.presenters.test_table_secrecy import cards_in, codes_in

pytestmark = pytest.mark.django_db


def started(players, seed, **options):
    users = [make_user(f"l{players}-{n}", display_name=f"L{n}") for n in range(players - 1)]
    return make_started_game(
        users, bots=("easy",), players=players, seed=seed, spectators=True, **options
    )


def all_rows(game):
    return store.recent_events(game.pk, None)


def test_a_long_game_shows_every_move_newest_first_each_with_its_own_lines():
    game = started(4, 41, target_score=500, stacking=True)
    rng = random.Random(41)
    for _ in range(130):
        play_random(game, rng)
    game.refresh_from_db()
    rows = all_rows(game)
    assert len(rows) > 106
    names = {s: f"L{s}" for s in range(3)} | {3: "Bot 4 (Easy)"}
    for reader in (None, 0, 1, 2, 3):
        log = MoveLog(table.table_context(game, reader)["log_html"])
        seen = [row for row in rows if engine.events_for(row.events, reader)]
        # Every move of the game is there, newest first: none is cut off.
        assert [seq for seq, _lines in log.moves] == [row.seq for row in reversed(seen)]
        assert log.latest == [seen[-1].seq]
        known = set()
        for row, (_seq, lines) in zip(seen, reversed(log.moves), strict=True):
            visible = engine.events_for(row.events, reader)
            # One move is one event row: its lines are its own events', in order.
            assert lines == [describe.describe(e, reader, names, 4) for e in visible]
            # Each move's item names only cards of its own events, which the reader may see.
            known |= codes_in(visible)
            assert cards_in(" ".join(lines)) <= codes_in(visible) <= known


def test_a_push_in_a_long_game_describes_only_the_new_move(monkeypatch):
    game = started(4, 42, target_score=500)
    rng = random.Random(42)
    for _ in range(110):
        play_random(game, rng)
    game.refresh_from_db()
    table.table_context(game, 1)
    described = []
    real = describe._describe_row
    monkeypatch.setattr(
        describe,
        "_describe_row",
        lambda events, seq, *a: described.append(seq) or real(events, seq, *a),
    )
    play_random(game, rng)
    game.refresh_from_db()
    log = MoveLog(table.table_context(game, 1)["log_html"])
    assert described == [game.last_seq]
    assert len(log.moves) > 100 and log.moves[0][0] == game.last_seq


def traded_note(html):
    """The hand's "You gave ... You received ..." paragraph, or None."""
    found = parse(html).find("section", id="table-hand").find_all("p", cls="traded")
    return found[0] if found else None


@pytest.mark.parametrize("players,seed", [(4, 43), (6, 44)])
def test_the_trade_note_shows_just_after_its_trade_and_goes_with_the_next_move(players, seed):
    """The note is there exactly while the newest move completed a trade of the reader's
    (a setup pass, a symbol swap, a half pass or tag-in given or received), and says what
    that trade moved; the next move by anyone takes it away, though the engine's view still
    remembers the trade."""
    game = started(players, seed, target_score=500, stacking=True)
    rng = random.Random(seed)
    shown, hidden_after = set(), 0
    for _ in range(220):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        last = all_rows(game)[-1]
        kinds = {e["type"] for e in last.events}
        for seat in range(players):
            view = state.view(seat)
            html = table.render_fragments(table.table_context(game, seat, state=state))
            note = traded_note(html)
            mine = [
                e
                for e in engine.events_for(last.events, seat)
                if (e["type"] == "traded" and e["seat"] == seat)
                or (e["type"] == "gave" and seat in (e["seat"], e["to"]))
            ]
            if mine:
                assert note is not None, (seat, kinds)
                text = note.text()
                for code in view["gave"]:
                    assert engine.card_name(code) in text
                for code in view["received"]:
                    assert engine.card_name(code) in text
                shown.add(
                    "swap" if "swap" in kinds else "setup_pass" if "setup_pass" in kinds else "give"
                )
            else:
                assert note is None, (seat, kinds)
                if view["gave"] or view["received"]:
                    hidden_after += 1  # the trade is over: it no longer lingers
        play_random(game, rng)
    assert shown == {"setup_pass", "swap", "give"}
    assert hidden_after > 50


def test_the_pick_button_says_swap_card_in_a_symbol_swap_and_pass_card_in_the_setup_pass():
    game = started(4, 45, target_score=500)
    rng = random.Random(45)
    labels = {}
    for _ in range(300):
        game = Game.objects.select_related("snapshot").get(pk=game.pk)
        state = store.load_state(game)
        for seat in state.view(None)["choosing"]:
            context = table.table_context(game, seat, state=state)
            if context["mode"] != "pick":
                continue
            hand = parse(table.render_fragments(context)).find("section", id="table-hand")
            button = hand.find("button", id="btn-pick")
            hint = hand.find("div", cls="controls").find("span", cls="hint")
            labels[context["decision"]] = (button.text(), hint.find("em").text())
        if len(labels) == 2:
            break
        play_random(game, rng)
    assert labels == {"setup": ("Pass card", "Pass card"), "swap": ("Swap card", "Swap card")}


def test_a_page_shows_the_table_at_the_event_its_game_was_read_at():
    """A page reads its game row, then its rows of the log and the state in statements of
    their own: a move landing in between is not shown on a page that says it is one event
    earlier (its hand's trade note, its log), and the state is not run past it."""
    game = started(4, 45)
    rng = random.Random(45)
    for _ in range(6):
        play_random(game, rng)
    before = Game.objects.select_related("snapshot").get(pk=game.pk)  # the page's game row
    state_then = store.load_state(before).to_dict()
    earlier_snapshot = before.snapshot
    play_random(game, rng)  # a move lands before the page reads the rest
    play_random(game, rng)
    game.refresh_from_db()
    assert game.last_seq == before.last_seq + 2

    context = table.table_context(before, 0)
    assert context["public"].rows[-1].seq == before.last_seq
    # The state from an older snapshot and the events after it stops at the game's event.
    at_event = Game.objects.get(pk=game.pk)
    at_event.last_seq = before.last_seq + 1
    replayed = store.load_state(at_event, earlier_snapshot).to_dict()
    assert replayed != state_then  # one event on from the snapshot
    assert replayed != store.load_state(game).to_dict()  # and not two
