"""A push sends only what changed (games.push.changes), and a page that applies it holds the
same table as a fresh page would show.

The page here is the load tool's model of static/js/table.js (bench.load.Page: the pieces'
versions, the discard pile's list's length, and here the move log's events too), fed the
real pushes of seeded games in which every seat is a person; each step is compared with a
fresh rendering of the same position for the same reader. Each test runs with both memories
of what was pushed: this process's, and the one in Redis that every process of a site shares
(where each push is made with a new SharedMemory, as by another process, and the memory
lives in Redis alone).
"""

import random
import re
import uuid

import pytest
from django.conf import settings

from bench.load import Page
from config.channel_layer import ChannelLayer as RedisChannelLayer
from games import effects, store
from games.actions import decisions
from games.engine.random_moves import random_action
from games.models import Game
from games.presenters import table
from games.presenters.table import pieces
from games.push import changes, redis_batch
from games.store import seats as seat_store
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

_MOVE = re.compile(r'<li class="move[^"]*" data-seq="(\d+)"')
_LOG = re.compile(r'<section [^>]*id="table-log".*?</section>', re.S)


class LoggedPage(Page):
    """The model page, with the events of its move log: a push's log holds only the moves
    after `log_after`, and the page keeps the ones it had (table.js carries them over)."""

    def load(self, html, seq):
        super().load(html, seq)
        self.moves = set(_moves(html))

    def apply(self, msg):
        super().apply(msg)
        self.moves |= set(_moves(msg["html"]))


def _moves(html):
    log = _LOG.search(html)
    return [int(n) for n in _MOVE.findall(log.group(0))] if log else []


def fresh(game_id, seat):
    """(the versions, the log's events, the discard list's length) of a fresh page."""
    game = Game.objects.select_related("snapshot").get(pk=game_id)
    html, cut = table.render_pieces(table.table_context(game, seat))
    page = LoggedPage()
    page.load(str(html), game.last_seq)
    return _shown(changes.versions_of(cut)), page.moves, page.discard


def _shown(versions):
    """The versions a page is checked by: the log's own is not one (a push's log holds only
    the newest moves, and the page keeps the rest), its events are compared instead."""
    return {name: v for name, v in versions.items() if name != pieces.LOG}


def play(game, rng):
    state = store.load_state(game)
    waiting = seat_store.waiting(game)
    seat = waiting[int(rng.random() * len(waiting))]
    decisions.apply_decision(
        game.pk, seat, random_action(state, seat, rng), "person", idempotency_key=uuid.uuid4().hex
    )
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    return game, store.load_state(game)


class Shared:
    """A site's memory in Redis, under a prefix of this test's own; `made()` is what a
    process making a push would use."""

    def __init__(self):
        self.layer = RedisChannelLayer(hosts=[settings.REDIS_URL])
        self.prefix = f"test-{uuid.uuid4().hex[:12]}"

    def made(self):
        return redis_batch.SharedMemory(self.layer, self.prefix)

    def forget(self, game_id):
        redis_batch._client(self.layer)[0].delete(f"{self.prefix}:pushed:{game_id}")

    def clear(self):
        client = redis_batch._client(self.layer)[0]
        for key in client.scan_iter(match=f"{self.prefix}:*"):
            client.delete(key)


class Here:
    def made(self):
        return changes.HERE

    def forget(self, game_id):
        changes.forget(game_id)


@pytest.fixture(params=["process", "redis"])
def memory(request):
    if request.param == "redis":
        if not settings.REDIS_URL:
            pytest.skip("needs REDIS_URL (a real Redis)")
        found = Shared()
        yield found
        found.clear()
    else:
        changes.forget()
        yield Here()
        changes.forget()


def pushes(game, state, memory):
    return {
        group: message
        for group, message in effects.seat_pushes(
            game.pk, game=game, state=state, memory=memory.made()
        )
        if message["type"] == "game.fragments"
    }


def _table(players, seed):
    people = [make_user(f"p{n}") for n in range(players)]
    return make_started_game(people, players=players, pace="realtime", seed=seed)


@pytest.mark.parametrize("players,seed", [(4, 3), (6, 8)])
def test_pages_that_apply_every_push_hold_the_table_a_fresh_page_shows(players, seed, memory):
    game, rng = _table(players, seed), random.Random(seed)
    pages = {}
    for seat in range(players):
        pages[seat] = LoggedPage()
        pages[seat].load(
            str(table.render_fragments(table.table_context(game, seat))), game.last_seq
        )
    sent, whole = [], 0
    for _ in range(90):
        if game.status != Game.Status.ACTIVE:
            break
        game, state = play(game, rng)
        for group, message in pushes(game, state, memory).items():
            seat = int(group.rsplit("-", 1)[1])
            page = pages[seat]
            assert page.holds(message), (group, message["seq"], message["keep"])
            page.apply(message)
            versions, moves, discard = fresh(game.pk, seat)
            assert _shown(page.versions) == versions, group
            assert page.moves == moves
            assert page.discard == discard
            sent.append(len(message["html"]))
            whole += len(str(table.render_fragments(table.table_context(game, seat))))
    # What the pages were sent is a small part of the whole tables they show.
    assert sum(sent) < whole / 2


def test_a_page_that_missed_a_push_resyncs_unless_what_it_holds_is_still_current(memory):
    game, rng = _table(4, 5), random.Random(5)
    page = LoggedPage()
    page.load(str(table.render_fragments(table.table_context(game, 0))), game.last_seq)
    refused = 0
    for n in range(80):
        if game.status != Game.Status.ACTIVE:
            break
        game, state = play(game, rng)
        message = pushes(game, state, memory)[f"game-{game.pk}-seat-0"]
        if n % 3 == 1:
            continue  # lost on the way
        if not page.holds(message):
            refused += 1
            page.load(str(table.render_fragments(table.table_context(game, 0))), game.last_seq)
            continue
        page.apply(message)
        # Shown at once only when it makes the page whole.
        assert (_shown(page.versions), page.moves, page.discard) == fresh(game.pk, 0)
    assert refused > 0


def test_a_process_that_remembers_nothing_sends_every_piece_and_the_newest_moves(memory):
    game, rng = _table(4, 7), random.Random(7)
    for _ in range(5):
        game, state = play(game, rng)
    pushes(game, state, memory)
    memory.forget(game.pk)  # a restart, or a memory lost
    game, state = play(game, rng)
    message = pushes(game, state, memory)[f"game-{game.pk}-seat-1"]
    assert message["keep"] == {} and message["append"] == {}
    for name in pieces.FRAGMENTS:
        assert f'id="{name}"' in message["html"]
    assert message["log_after"] == 0  # a short game: the log holds every move
    assert len(_moves(message["html"])) == game.last_seq


def test_a_push_older_than_the_one_remembered_is_sent_whole_and_forgets_nothing(memory):
    """Two moves committed close together, pushed by two threads: the older push finds the
    newer one remembered."""
    game, rng = _table(4, 9), random.Random(9)
    game, state = play(game, rng)
    older = (Game.objects.select_related("snapshot").get(pk=game.pk), state)
    game, state = play(game, rng)
    pushes(game, state, memory)
    remembered = memory.made().previous(game.pk, game.last_seq + 1)
    assert remembered.seq == game.last_seq
    message = pushes(*older, memory)[f"game-{game.pk}-seat-0"]
    assert message["keep"] == {}
    assert memory.made().previous(game.pk, game.last_seq + 1) == remembered


def test_the_discard_pile_grows_by_its_new_cards_alone(memory):
    game, rng = _table(4, 11), random.Random(11)
    grew = 0
    game, state = play(game, rng)
    pushes(game, state, memory)
    for _ in range(60):
        before = len(store.load_state(game).view(None)["discard"])
        game, state = play(game, rng)
        message = pushes(game, state, memory)[f"game-{game.pk}-seat-2"]
        after = len(state.view(None)["discard"])
        if after == before + 1 and "discard-cards" in message["append"]:
            more = message["append"]["discard-cards"]
            assert more["after"] == before and more["added"] == 1
            assert 'id="discard-cards"' not in message["html"]
            added = re.search(
                r'<ol hx-swap-oob="beforeend:#discard-cards">(.*?)</ol>', message["html"]
            )
            assert added.group(1).count("<li") == 1
            grew += 1
    assert grew > 5


def test_no_push_carries_a_card_its_reader_may_not_see(memory):
    """What a push leaves out changes nothing of who may read what: each seat's push holds
    no card code of another seat's hand."""
    game, rng = _table(4, 13), random.Random(13)
    for _ in range(60):
        if game.status != Game.Status.ACTIVE:
            break
        game, state = play(game, rng)
        for group, message in pushes(game, state, memory).items():
            seat = int(group.rsplit("-", 1)[1])
            own = set(state.view(seat)["hand"])
            for other in range(4):
                if other == seat:
                    continue
                for code in set(state.view(other)["hand"]) - own:
                    assert f'value="{code}"' not in message["html"]
                    assert f'data-code="{code}"' not in message["html"]
