"""Bot accounts at tables: a host invites one by name to a seat, it accepts through the Bot
API's lobby functions, or it joins a public table whose host allows bot accounts; a
person's way to a seat refuses it anywhere else. A game with a bot account is casual.
"""

import pytest
from django.urls import reverse

from games.actions import ratings
from games.models import Game
from games.presenters.describe import seat_names
from lobby import services
from lobby.models import Invitation
from tests.conftest import make_table, make_user
from tests.games.ratings.helpers import confirmed

pytestmark = pytest.mark.django_db


def make_bot_account(username, **fields):
    return make_user(username, is_bot=True, **fields)


@pytest.fixture
def robo(db):
    return make_bot_account("robo", display_name="Robo")


@pytest.fixture
def table(ana):
    return make_table(ana)


def test_the_host_invites_a_bot_account_to_an_empty_seat_which_stays_free_until_it_accepts(
    ana, robo, table
):
    invitation = services.invite_bot(table.pk, ana, 2, "Robo")  # usernames in any case

    assert (invitation.bot, invitation.seat, invitation.invited_by) == (robo, 2, ana)
    assert table.seats.get(number=2).is_empty
    [listed] = services.bot_invitations(robo)
    assert listed["id"] == invitation.pk
    assert (listed["game"], listed["seat"], listed["host"], listed["players"]) == (
        table.pk,
        2,
        "Ana",
        4,
    )

    seat = services.accept_invitation(invitation.pk, robo)

    assert (seat.number, seat.user) == (2, robo)
    invitation.refresh_from_db()
    assert invitation.accepted_at is not None and invitation.closed_at is None
    assert services.bot_invitations(robo) == []


def test_only_the_host_invites(bo, robo, table):
    with pytest.raises(services.LobbyError, match="Only the host") as refused:
        services.invite_bot(table.pk, bo, 1, "robo")
    assert refused.value.status == 403
    assert not Invitation.objects.exists()


def test_only_a_bot_account_can_be_invited(ana, bo, table):
    with pytest.raises(services.LobbyError, match="not a bot account"):
        services.invite_bot(table.pk, ana, 1, "bo")
    with pytest.raises(services.LobbyError, match="no account named 'nobody'"):
        services.invite_bot(table.pk, ana, 1, "nobody")
    assert not Invitation.objects.exists()


def test_only_an_empty_seat_takes_an_invitation(ana, bo, robo, table):
    services.take_seat(table.pk, bo, 1)
    services.add_bot(table.pk, ana, 2, "easy")
    for number in (0, 1, 2):
        with pytest.raises(services.LobbyError, match="That seat is taken"):
            services.invite_bot(table.pk, ana, number, "robo")
    assert not Invitation.objects.exists()


def test_a_bot_account_is_invited_to_one_seat_of_a_table_at_a_time(ana, robo, table):
    services.invite_bot(table.pk, ana, 1, "robo")
    with pytest.raises(services.LobbyError, match="already invited to another seat"):
        services.invite_bot(table.pk, ana, 2, "robo")


def test_accepting_someone_elses_invitation_is_refused_as_a_missing_one(ana, robo, table):
    other = make_bot_account("other")
    invitation = services.invite_bot(table.pk, ana, 1, "robo")

    with pytest.raises(services.LobbyError) as someone_elses:
        services.accept_invitation(invitation.pk, other)
    with pytest.raises(services.LobbyError) as missing:
        services.accept_invitation(invitation.pk + 1000, other)

    assert str(someone_elses.value) == str(missing.value) == services.NO_SUCH_INVITATION
    assert someone_elses.value.status == missing.value.status == 404
    assert table.seats.get(number=1).is_empty


def test_a_person_taking_the_invited_seat_ends_the_invitation(ana, bo, robo, table):
    invitation = services.invite_bot(table.pk, ana, 1, "robo")
    services.take_seat(table.pk, bo, 1)

    assert services.bot_invitations(robo) == []
    with pytest.raises(services.LobbyError, match="closed: someone else took the seat"):
        services.accept_invitation(invitation.pk, robo)
    invitation.refresh_from_db()
    assert invitation.closed_by == "lapsed"


def test_the_host_cancels_an_invitation_and_the_bot_can_no_longer_accept_it(ana, robo, table):
    invitation = services.invite_bot(table.pk, ana, 1, "robo")
    services.cancel_invitation(table.pk, ana, 1)

    with pytest.raises(services.LobbyError, match="closed: the host withdrew it"):
        services.accept_invitation(invitation.pk, robo)
    # The seat can be offered again.
    assert services.invite_bot(table.pk, ana, 1, "robo").pk != invitation.pk


def test_an_invitation_to_a_table_that_started_cannot_be_accepted(ana, robo, table):
    invitation = services.invite_bot(table.pk, ana, 1, "robo")
    for number in (1, 2, 3):  # the host fills seat 1 too, changing their mind
        services.add_bot(table.pk, ana, number, "easy")
    services.start_table(table.pk, ana)

    assert services.bot_invitations(robo) == []
    with pytest.raises(services.LobbyError):
        services.accept_invitation(invitation.pk, robo)


def test_a_bot_account_joins_a_public_table_whose_host_allows_bot_accounts(ana, robo):
    game = make_table(ana, bot_accounts=True)

    assert [g.pk for g in services.open_tables_for_bots()] == [game.pk]
    seat = services.join_table(game.pk, robo)

    assert (seat.number, seat.user) == (1, robo)  # the first empty seat
    with pytest.raises(services.LobbyError, match="You already sit at seat 1 of this table"):
        services.join_table(game.pk, robo, 3)
    # Joining again without asking for another seat answers the seat it has.
    assert services.join_table(game.pk, robo) == seat


def test_a_bot_account_cannot_join_a_table_that_does_not_allow_bot_accounts(ana, robo, table):
    with pytest.raises(services.LobbyError, match="does not take bot accounts") as refused:
        services.join_table(table.pk, robo)
    assert refused.value.status == 403
    # Nor by the person's way to a seat.
    with pytest.raises(services.LobbyError, match="does not take bot accounts"):
        services.take_seat(table.pk, robo, 1)
    assert services.open_tables_for_bots() == []
    assert table.seats.filter(user=robo).count() == 0


def test_a_private_table_is_no_table_to_join_even_allowing_bot_accounts(ana, robo):
    game = make_table(ana, bot_accounts=True, private=True)
    with pytest.raises(services.LobbyError, match="no such table"):
        services.join_table(game.pk, robo)


def test_a_person_does_not_join_by_the_bots_way(ana, bo):
    game = make_table(ana, bot_accounts=True)
    with pytest.raises(services.LobbyError, match="Only bot accounts"):
        services.join_table(game.pk, bo)


def test_a_game_with_a_bot_account_is_casual_whatever_the_host_chose(ana, bo, cy, robo):
    confirmed(ana, bo, cy)  # a bot account needs no confirmed address: its table is casual
    game = make_table(ana, rated=True, bot_accounts=True)
    services.take_seat(game.pk, bo, 1)
    services.take_seat(game.pk, cy, 2)
    services.join_table(game.pk, robo, 3)
    services.start_table(game.pk, ana)

    game.refresh_from_db()
    assert game.rated is False
    # And were the flag set anyway, the rating would not count it.
    game.rated, game.status = True, Game.Status.FINISHED
    assert ratings.unrated_reason(game, list(game.seats.all())) == "a bot account played"


def test_a_bot_accounts_seat_is_marked_as_a_bot_in_the_names(ana, robo):
    game = make_table(ana, bot_accounts=True)
    services.join_table(game.pk, robo, 2)
    names = seat_names(list(game.seats.select_related("user")))
    assert names[0] == "Ana"
    assert names[2] == "Robo [bot]"


# --- The lobby's table page.


def test_the_host_invites_from_the_table_page_and_the_seat_shows_the_invitation(
    client, ana, robo, table
):
    client.force_login(ana)
    page = client.get(reverse("lobby:table", args=[table.pk])).content.decode()
    assert "Invite a bot account to seat 2" in page

    response = client.post(reverse("lobby:invite_bot", args=[table.pk, 1]), {"username": "robo"})

    assert response.status_code == 302
    page = client.get(reverse("lobby:table", args=[table.pk])).content.decode()
    assert "Invited: Robo" in page
    assert "Cancel the invitation to seat 2" in page
    client.post(reverse("lobby:cancel_invitation", args=[table.pk, 1]))
    assert (
        "Invited: Robo" not in client.get(reverse("lobby:table", args=[table.pk])).content.decode()
    )


def test_a_refused_invitation_answers_with_its_reason(client, ana, bo, table):
    client.force_login(ana)
    response = client.post(reverse("lobby:invite_bot", args=[table.pk, 1]), {"username": "bo"})
    assert response.status_code == 400
    assert "not a bot account" in response.content.decode()

    client.force_login(bo)
    response = client.post(reverse("lobby:invite_bot", args=[table.pk, 1]), {"username": "x"})
    assert response.status_code == 403


def test_a_seated_bot_account_is_tagged_on_the_table_page(client, ana, robo):
    game = make_table(ana, bot_accounts=True)
    services.join_table(game.pk, robo, 1)
    client.force_login(ana)
    page = client.get(reverse("lobby:table", args=[game.pk])).content.decode()
    assert 'class="tag bot-account"' in page and "<strong>Robo</strong>" in page


def test_the_create_form_offers_the_bot_accounts_option(client, ana):
    client.force_login(ana)
    assert "Bot accounts may join" in client.get(reverse("lobby:create")).content.decode()
