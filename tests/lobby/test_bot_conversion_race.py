"""Two requests at once from one new account: "become a bot account" and "take this seat"
at a table that takes no bot accounts. At most one may succeed: a bot account seated there
is a program at a table whose host never asked for one. take_seat reads the account again
under its row lock (after the table's), and the conversion locks the same row before it
looks at the account's seats, so whichever comes second sees what the first did.

On PostgreSQL with real threads (SQLite has no row locks, so there the race cannot lose).
"""

import threading
from functools import partial

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Game, Seat
from lobby import services as lobby
from tests.conftest import PASSWORD, make_table, make_user, race

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("require_postgres"),
]


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def become_bot(client):
    return client.post(reverse("accounts:bot"), {"password": PASSWORD, "understood": "on"})


def take_seat(client, game, number=1):
    return client.post(reverse("lobby:take", args=[game.pk, number]))


def bot_seated(user, game):
    """Whether `user` ended as a bot account seated at `game` (a table that takes none)."""
    user = User.objects.get(pk=user.pk)
    return user.is_bot and Seat.objects.filter(game=game, user=user).exists()


def wait_for_a_blocked_query():
    """Returns once another session waits for a row lock (pg_locks is read live, even
    inside this transaction)."""
    with connection.cursor() as cursor:
        for _ in range(3000):
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                return
            cursor.execute("SELECT pg_sleep(0.01)")
    pytest.fail("the seat's request never waited for the table's lock")


def in_thread(call, answers, key):
    def run():
        try:
            answers[key] = call()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_seat_request_that_read_the_account_before_it_became_a_bot_account_is_refused(ana):
    """The interleaving that lost: the seat's request has read the account (a person's) and
    waits for the table's lock, held by another change, while the conversion commits."""
    game = make_table(ana)
    newbie = make_user("newbie")
    taker, converter = client_of(newbie), client_of(newbie)
    answers = {}
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=game.pk)  # another seat change is under way
        taking = in_thread(lambda: take_seat(taker, game), answers, "take")
        wait_for_a_blocked_query()
        in_thread(lambda: become_bot(converter), answers, "convert").join(60)
        assert answers["convert"].status_code == 302  # the account is a bot account now
    taking.join(60)

    assert User.objects.get(pk=newbie.pk).is_bot
    assert answers["take"].status_code == 403
    assert lobby.NO_BOT_ACCOUNTS in answers["take"].content.decode()
    assert not Seat.objects.filter(game=game, user=newbie).exists()


def test_become_a_bot_account_and_take_a_seat_posted_at_once_never_both_succeed(ana):
    for round_ in range(8):
        game = make_table(ana)
        newbie = make_user(f"newbie{round_}")
        taker, converter = client_of(newbie), client_of(newbie)
        take, convert = race([partial(take_seat, taker, game), partial(become_bot, converter)])
        assert not isinstance(take, Exception) and not isinstance(convert, Exception)
        assert not bot_seated(newbie, game)
        # Exactly one of the two went through; the other was refused with its reason.
        assert sorted([take.status_code, convert.status_code]) == [302, 403]
