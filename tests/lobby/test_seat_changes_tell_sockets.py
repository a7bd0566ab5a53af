"""A lobby seat change tells the sockets and bot streams listening at the seats it changed
to check again who holds them (access.seats_changed): a reader that lost its seat must not
keep reading it. Each way a seat changes hands is tried as it comes: the table page's forms,
Play again, and the bot accounts' lobby functions. Through the channel layer, as a socket
listening at the seat's group hears it."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import Client
from django.urls import reverse

from games import push
from games.models import Game
from lobby import services as lobby
from tests.conftest import make_started_game, make_table, make_user
from tests.games.history.helpers import finish

pytestmark = pytest.mark.django_db(transaction=True)

CHANGED = {"type": "access.changed"}


def told(game, numbers, change):
    """Runs `change()` while a listener sits in the group of each seat of `numbers`;
    returns {seat number: the first message it heard, or None}."""

    async def scenario():
        layer = get_channel_layer()
        listeners = {}
        for number in numbers:
            channel = await layer.new_channel()
            await layer.group_add(push.seat_group(game.pk, number), channel)
            listeners[number] = channel
        await database_sync_to_async(change)()
        heard = {}
        for number, channel in listeners.items():
            try:
                # Sent before the change's answer returned: the wait is only a bound on a
                # failure, never reached when the message is there.
                heard[number] = await asyncio.wait_for(layer.receive(channel), 5)
            except TimeoutError:
                heard[number] = None
        return heard

    return async_to_sync(scenario)()


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def post(user, name, *args, **data):
    response = client_of(user).post(reverse(f"lobby:{name}", args=args), data)
    assert response.status_code == 302, response.content.decode()[:500]


def test_taking_moving_and_leaving_a_seat_tell_both_seats(ana, bo):
    game = make_table(ana)
    assert told(game, [1], lambda: post(bo, "take", game.pk, 1)) == {1: CHANGED}
    # A move frees one seat and fills another: both are told.
    assert told(game, [1, 2], lambda: post(bo, "take", game.pk, 2)) == {1: CHANGED, 2: CHANGED}
    assert told(game, [2], lambda: post(bo, "leave", game.pk)) == {2: CHANGED}


def test_the_hosts_removal_and_bot_and_closing_the_table_tell_the_seats(ana, bo, cy):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.take_seat(game.pk, cy, 2)
    assert told(game, [1], lambda: post(ana, "remove", game.pk, 1)) == {1: CHANGED}
    assert told(game, [3], lambda: post(ana, "bot", game.pk, 3, level="easy")) == {3: CHANGED}
    assert told(game, [0, 2], lambda: post(ana, "leave", game.pk)) == {0: CHANGED, 2: CHANGED}


def test_a_bot_account_accepting_or_joining_tells_its_seat(ana):
    robo = make_user("robo", is_bot=True)
    game = make_table(ana, bot_accounts=True)
    invitation = lobby.invite_bot(game.pk, ana, 2, "robo")
    assert told(game, [2], lambda: lobby.accept_invitation(invitation.pk, robo)) == {2: CHANGED}
    other = make_user("other", is_bot=True)
    assert told(game, [1], lambda: lobby.join_table(game.pk, other)) == {1: CHANGED}


def test_play_again_tells_the_seats_it_fills_at_the_new_table(ana, bo):
    old = finish(make_started_game([ana, bo], players=4))
    client_of(ana).post(reverse("games:again", args=[old.pk]))
    new = Game.objects.get(rematch_of=old)
    assert told(new, [1], lambda: client_of(bo).post(reverse("games:again", args=[old.pk]))) == {
        1: CHANGED
    }
