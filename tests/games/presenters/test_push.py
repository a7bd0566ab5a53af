"""A push renders what every reader of a table sees alike once, and each reader's own part
for that reader alone (games.effects.seat_pushes, games.presenters.table.PublicTable).

Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import io
import random
import re

import pytest
from django.core.management import call_command
from django.db import connection

from games import effects, engine, push, store
from games.models import Game
from games.presenters import bot_view, table
from games.presenters.table import plates, render
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_describe import MoveLog
from tests.games.presenters.test_fragment_markup import play_random

pytestmark = pytest.mark.django_db

FORM_KEY = re.compile(r'name="key" value="[0-9a-f]{32}(-concede)?"')
BETWEEN = re.compile(r">\s+<")
VERSION = re.compile(r' data-v="[0-9a-f]+"')
LOG = re.compile(r'<section [^>]*id="table-log".*?</section>', re.S)


def seat_of(game, group):
    return None if group == push.public_group(game.pk) else int(group.rsplit("-", 1)[1])


def people(players):
    return [make_user(f"r{players}-{n}", display_name=f"R{n}") for n in range(players)]


@pytest.mark.parametrize("players,seed", [(4, 4), (8, 6)])
def test_each_reader_is_pushed_exactly_what_their_own_page_resync_shows(players, seed):
    game = make_started_game(
        people(players), players=players, seed=seed, spectators=True, target_score=300
    )
    rng = random.Random(seed)
    for _ in range(60):  # past the rows a push holds
        game = Game.objects.select_related("snapshot").get(pk=game.pk)
        if game.status != Game.Status.ACTIVE:
            break
        # Each push whole, as with Redis (what an in-process push leaves out when it
        # remembers the last one: tests/games/push/test_changes.py).
        pushes = effects.seat_pushes(game.pk)
        assert len(pushes) == players + 1
        for group, message in pushes:
            seat = seat_of(game, group)
            alone = table.render_fragments(table.table_context(game, seat))
            # Only the forms' one-time keys differ between two renderings, and the move log:
            # the page holds the whole game, a push its newest moves (the page keeps the rest);
            # and the blank lines between the fragments.
            # and the pieces' versions, which only a push cut down against the last one needs
            # (tests/games/push/test_changes.py).
            pushed, page = (
                BETWEEN.sub("><", VERSION.sub("", FORM_KEY.sub("", html))).strip()
                for html in (message["html"], alone)
            )
            assert LOG.sub("", pushed) == LOG.sub("", page), group
            pushed_moves = MoveLog(LOG.search(pushed).group(0)).moves
            page_moves = MoveLog(LOG.search(page).group(0)).moves
            assert pushed_moves == page_moves[: len(pushed_moves)]
            # The moves of the newest PUSH_LOG_MOVES events, each the reader may see, and
            # the page must hold every event before them.
            newest = store.recent_events(game.pk, table.PUSH_LOG_MOVES)
            assert len(pushed_moves) == sum(
                1 for row in newest if engine.events_for(row.events, seat)
            )
            assert message["log_after"] == max(0, game.last_seq - table.PUSH_LOG_MOVES)
        play_random(game, rng)


def test_what_every_reader_sees_alike_is_rendered_once_per_push(monkeypatch):
    players = 8
    game = make_started_game(people(players), players=players, seed=9, spectators=True)
    rng = random.Random(9)
    for _ in range(12):
        play_random(game, rng)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    rendered = []
    real_parts, real_fragments = render.parts, table.render_fragments

    class Counting:
        """table_parts.html's macros, each call counted by the macro's name (every piece of
        the table reaches them through `render.parts`)."""

        def __getattr__(self, name):
            macro = getattr(real_parts(), name)

            def call(*args):
                rendered.append(name)
                return macro(*args)

            return call

    def fragments(context, request=None, **options):
        rendered.append("fragments")
        return real_fragments(context, request, **options)

    monkeypatch.setattr(render, "parts", Counting)
    monkeypatch.setattr(table, "render_fragments", fragments)
    plates.render_plate.cache_clear()
    render.slot_fills.cache_clear()
    plates.scores.cache_clear()
    effects.seat_pushes(game.pk)
    counts = {name: rendered.count(name) for name in set(rendered)}
    assert counts.pop("fragments") == players + 1
    assert counts.pop("direction") == counts.pop("piles") == counts.pop("result") == 1
    assert counts.pop("discard_summary") == counts.pop("discard_cards") == 1
    assert counts.pop("round_line") == counts.pop("deal_check") == 1
    # Each plate once, its reader's places (own seat, partner's, neither) filled in for
    # each reader: nine readers would have needed 72 plates rendered each for themselves.
    assert counts.pop("plate") == players
    # What fills those places, once per role and place for the whole process.
    assert counts.pop("plate_slot") == 3 * len(render.PLATE_SLOTS)
    # The scores as each team's readers see them, and as a spectator does.
    assert counts.pop("scores") == players // 2 + 1
    assert set(counts) <= {"hand_card", "colour_choice"}

    # A move changes a plate or a few: only those are rendered again.
    before = plate_data(game)
    play_random(game, rng)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    changed = sum(a != b for a, b in zip(before, plate_data(game), strict=True))
    assert 0 < changed < players
    rendered.clear()
    effects.seat_pushes(game.pk)
    assert rendered.count("plate") == changed
    assert rendered.count("plate_slot") == 0


def plate_data(game):
    # The recent events too: a plate says whether its seat acted last, or traded.
    return table.PublicTable(
        game,
        store.load_state(game),
        store.table_seats(game.pk),
        store.recent_events(game.pk, table.LOG_LENGTH),
    ).plate_data


def test_a_push_with_nobody_listening_renders_nothing(monkeypatch):
    game = make_started_game(people(4), seed=10, spectators=True)
    monkeypatch.setattr(table, "PublicTable", None)  # would fail if it were built
    assert effects.seat_pushes(game.pk, listening=lambda groups: set()) == []


def test_the_push_benchmark_reports_each_table_size():
    out = io.StringIO()
    call_command("bench_push", positions=3, sizes="4,6", stdout=out)
    lines = out.getvalue().splitlines()
    assert any(line.strip().startswith("4 listening seats: wall ") for line in lines)
    assert any(line.strip().startswith("6 listening seats: wall ") for line in lines)
    assert not Game.objects.exists()  # its games are deleted after


def test_a_bot_accounts_stream_is_pushed_its_seats_state_and_no_html_is_rendered(monkeypatch):
    """A Bot API stream listens at its seat's program group: the push gives it the seat's
    state (what GET /api/bot/games/<id> answers), made from the state just committed, and
    renders no page for it; the seat's page group, with no page open, gets nothing."""
    users = people(4)
    users[2].is_bot = True
    users[2].save(update_fields=["is_bot"])
    game = make_started_game(users, seed=12, bot_accounts=True)
    program = push.program_group(game.pk, 2)
    monkeypatch.setattr(table, "PublicTable", None)  # would fail if a page were rendered
    pushes = effects.seat_pushes(game.pk, listening=lambda groups: {program} & set(groups))
    assert [group for group, _ in pushes] == [program]
    message = pushes[0][1]
    assert message["type"] == "game.state" and message["holder"] == users[2].pk
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    assert message["state"] == bot_view.seat_state(game, 2)
    assert message["state"]["view"] == store.load_state(game).view(2)
    # A person's seat has no program group to be pushed to.
    monkeypatch.undo()
    everyone = {group for group, _ in effects.seat_pushes(game.pk, listening=set)}
    assert program in everyone and push.program_group(game.pk, 1) not in everyone


@pytest.mark.django_db(transaction=True)
def test_the_decision_benchmark_times_the_push_which_reads_nothing_on_postgresql():
    out = io.StringIO()
    call_command("bench_decisions", early=3, late=6, samples=2, stdout=out)
    text = out.getvalue()
    assert "move 3: core wall " in text and "move 6: core wall " in text, text
    # The push's seats and last events come with the write on PostgreSQL; elsewhere the
    # push reads them in two statements.
    reads = 0 if connection.vendor == "postgresql" else 2
    assert text.count("notify wall") == 2 and text.count(f"SQL [{reads}];") == 2, text
    assert not Game.objects.exists()  # its game is deleted after
