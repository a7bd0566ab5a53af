"""The table shows how many people are watching: logged-in people, each counted once."""

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.urls import reverse

from games.store import spectators
from tests.conftest import make_started_game, make_user
from tests.games.views.test_consumers import communicator, connected

pytestmark = pytest.mark.django_db(transaction=True)


def watching(client, user, game):
    client.force_login(user)
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    found = re.search(r'class="watching">(\d+) watching<', html)
    return int(found.group(1)) if found else None


def test_the_count_follows_the_spectators_sockets(client, four, ed):
    game = make_started_game(four, spectators=True)
    cache.delete(f"spectators:{game.pk}")
    fay = make_user("fay")
    assert watching(client, four[0], game) == 0

    async def scenario():
        page = database_sync_to_async(watching)
        first, second = communicator(game, ed), communicator(game, fay)
        await connected(first)
        await connected(second)
        assert spectators.count(game.pk) == 2
        assert await page(client, four[0], game) == 2
        await first.disconnect()
        assert await page(client, four[0], game) == 1
        await second.disconnect()
        assert await page(client, four[0], game) == 0

    async_to_sync(scenario)()


def test_a_person_watching_in_several_tabs_counts_once(four, ed):
    game = make_started_game(four, spectators=True)
    cache.delete(f"spectators:{game.pk}")

    async def scenario():
        tabs = [communicator(game, ed) for _ in range(3)]
        for tab in tabs:
            await connected(tab)
        assert spectators.count(game.pk) == 1
        for tab in tabs[:2]:
            await tab.disconnect()
        assert spectators.count(game.pk) == 1
        await tabs[2].disconnect()
        assert spectators.count(game.pk) == 0
        again = communicator(game, ed)
        await connected(again)
        assert spectators.count(game.pk) == 1
        await again.disconnect()

    async_to_sync(scenario)()


def test_a_visitor_without_a_session_is_not_let_in_nor_counted(four):
    game = make_started_game(four, spectators=True)
    cache.delete(f"spectators:{game.pk}")

    async def scenario():
        comm = communicator(game, AnonymousUser())
        ok, code = await comm.connect()
        await comm.disconnect()  # ends the refused consumer, or it outlives the loop
        assert (ok, code) == (False, 4401)

    async_to_sync(scenario)()
    assert spectators.count(game.pk) == 0


def test_players_sockets_are_not_counted_as_watchers(client, four):
    game = make_started_game(four, spectators=True)
    cache.delete(f"spectators:{game.pk}")

    async def scenario():
        comm = communicator(game, four[1])
        await connected(comm)
        assert spectators.count(game.pk) == 0
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_table_without_spectators_shows_no_count(client, four):
    game = make_started_game(four)
    assert watching(client, four[0], game) is None


def test_a_lost_counter_never_goes_below_zero(four):
    game = make_started_game(four, spectators=True)
    cache.delete(f"spectators:{game.pk}")
    assert spectators.left(game.pk, 7) == 0
    assert spectators.count(game.pk) == 0
    assert spectators.joined(game.pk, 7) == 1
