"""Two requests at once on one invitation: a retrying bot's accept sent twice, and an
accept racing its own decline. The game row's lock serves them one after the other, so
the bot sits at most once, and the second accept answers the seat the first took.

On PostgreSQL with real threads (SQLite has no row locks, so there the race cannot lose).
"""

import pytest

from accounts import bot_tokens
from games.models import Game
from lobby import services as lobby
from lobby.models import Invitation
from tests.conftest import race
from tests.games.api.conftest import Api, make_bot

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("require_postgres"),
]


def invited_table():
    robo, rita = make_bot("robo"), make_bot("rita")
    game = lobby.create_table(robo)
    invitation = lobby.invite_bot(game.pk, robo, 2, "rita")
    return game, invitation, rita


def test_two_accepts_at_once_seat_the_bot_once_and_both_answer_its_seat():
    game, invitation, rita = invited_table()
    raw = bot_tokens.issue(rita, "twice")[1]
    path = f"/invitations/{invitation.pk}/accept"

    answers = race([lambda: Api(raw).post(path), lambda: Api(raw).post(path)])

    assert [a.status_code for a in answers] == [200, 200]
    assert [a.json()["seat"] for a in answers] == [2, 2]
    assert list(game.seats.filter(user=rita).values_list("number", flat=True)) == [2]
    assert Invitation.objects.get(pk=invitation.pk).accepted_at is not None


def test_an_accept_and_a_decline_at_once_leave_one_of_them_whole():
    game, invitation, rita = invited_table()
    raw = bot_tokens.issue(rita, "both")[1]

    accept, decline = race(
        [
            lambda: Api(raw).post(f"/invitations/{invitation.pk}/accept"),
            lambda: Api(raw).post(f"/invitations/{invitation.pk}/decline"),
        ]
    )

    invitation.refresh_from_db()
    seated = Game.objects.get(pk=game.pk).seats.filter(user=rita).exists()
    if accept.status_code == 200:
        assert decline.status_code == 409
        assert (seated, invitation.closed_at) == (True, None)
    else:
        assert (accept.status_code, decline.status_code) == (409, 200)
        assert (seated, invitation.closed_by, invitation.accepted_at) == (False, "bot", None)
