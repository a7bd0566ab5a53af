"""Tables made by bots through the Bot API: a bot account creates a table with the create
form's options, invites another bot account (or a person who allows it), adds site bots,
removes a seat's occupant and starts it; only the host may; an invitation is accepted once
however often it is asked, and may be declined.

Robo and Rita are bot accounts; Ana is a person.
"""

import pytest
from django.test import Client
from django.urls import reverse

from accounts import bot_tokens
from games.api.routes import tables as table_routes
from games.models import Game
from lobby import services as lobby
from lobby.forms import TableForm
from lobby.models import Invitation
from tests.conftest import make_table, play_one
from tests.games.api.conftest import Api, make_bot
from tests.games.presenters.test_table_secrecy import codes_in

pytestmark = pytest.mark.django_db


def delete(api, path):
    return api._keep(api.client.delete(f"/api/bot{path}", headers=api._headers()))


def create(api, **options):
    response = api.post("/tables", options)
    assert response.status_code == 201, response.json()
    return response.json()


def seat_kinds(table):
    return [(s["seat"], s["occupant"], s["name"]) for s in table["seats"]]


def test_a_bot_creates_a_table_with_every_option_of_the_create_form_and_sits_at_seat_0(
    robo, robo_api
):
    options = {
        "players": 6,
        "pace": "turn",
        "move_seconds": 15,
        "turn_hours": 72,
        "bot_speed": "quick",
        "missed_deadline": "leave",
        "stacking": True,
        "final_card_penalty": False,
        "target_score": 500,
        "spectators": True,
        "private": True,
        "rated": True,
        "bot_accounts": True,
    }

    table = create(robo_api, **options)

    game = Game.objects.get(pk=table["game"])
    assert {name: getattr(game, name) for name in Game.TABLE_OPTIONS} == options
    assert (game.host, game.status) == (robo, Game.Status.OPEN)
    assert table["options"] == options
    assert (table["your_seat"], table["you_host"], table["status"]) == (0, True, "open")
    assert seat_kinds(table)[0] == (0, "bot_account", "Robo")
    assert [s["occupant"] for s in table["seats"][1:]] == ["empty"] * 5
    assert table["invite_link"].endswith(reverse("lobby:invite", args=[game.invite_token]))


def test_a_table_created_with_no_options_has_the_create_forms_defaults(robo_api):
    table = create(robo_api)

    form = TableForm({"scoring": "single"})
    defaults = {
        name: form.fields[name].initial
        if form.fields[name].initial is not None
        else Game._meta.get_field(name).default
        for name in Game.TABLE_OPTIONS
        if name not in ("target_score", "rated")
    }
    assert {k: table["options"][k] for k in defaults} == defaults
    assert (table["options"]["target_score"], table["options"]["rated"]) == (None, False)


def test_the_options_offered_are_exactly_the_create_forms_choices():
    """The schema's enumerations are written out for the published data model: they must
    name the form's choices, no more and no fewer."""
    form = TableForm()
    fields = table_routes.TableOptions.model_fields
    for name in ("players", "pace", "move_seconds", "turn_hours", "bot_speed", "missed_deadline"):
        offered = set(fields[name].annotation.__args__)
        assert offered == {value for value, _ in form.fields[name].choices if value != ""}, name
    assert set(fields) == set(Game.TABLE_OPTIONS)


@pytest.mark.parametrize(
    "options, where",
    [
        ({"players": 5}, "players"),
        ({"move_seconds": 20}, "move_seconds"),
        ({"pace": "blitz"}, "pace"),
        ({"target_score": 20}, "target_score"),
        ({"private": "perhaps"}, "private"),
        # A misspelt option is refused, not ignored into a table nobody asked for.
        ({"stackng": True}, "stackng"),
    ],
)
def test_options_the_form_does_not_offer_are_refused_and_nothing_is_made(robo_api, options, where):
    response = robo_api.post("/tables", options)

    assert response.status_code == 400
    assert where in response.json()["detail"]
    assert not Game.objects.exists()


def test_a_bot_may_host_only_so_many_open_tables_at_once(robo_api):
    for _ in range(table_routes.MAX_OPEN_TABLES):
        create(robo_api)

    response = robo_api.post("/tables", {})

    assert response.status_code == 409
    assert "open tables already" in response.json()["detail"]
    assert Game.objects.count() == table_routes.MAX_OPEN_TABLES
    # Closing one makes room again; closing it twice says it is closed.
    first = Game.objects.order_by("pk").first().pk
    closed = delete(robo_api, f"/tables/{first}")
    assert (closed.status_code, closed.json()["status"]) == (200, "aborted")
    again = delete(robo_api, f"/tables/{first}")
    assert (again.status_code, again.json()["detail"]) == (409, "This table was closed.")
    create(robo_api)


def test_the_whole_flow_a_bot_creates_invites_a_bot_adds_site_bots_and_starts(
    robo_api, rita, rita_api
):
    table = create(robo_api, rated=True)
    game_id = table["game"]

    invited = robo_api.post(f"/tables/{game_id}/invitations", {"seat": 2, "username": "RITA"})
    assert invited.status_code == 201
    invitation = invited.json()
    assert {k: invitation[k] for k in ("game", "seat", "invitee", "invitee_is_bot", "status")} == {
        "game": game_id,
        "seat": 2,
        "invitee": "rita",
        "invitee_is_bot": True,
        "status": "open",
    }
    # The seat stays empty, marked, until Rita accepts; she finds the invitation.
    shown = robo_api.get(f"/tables/{game_id}").json()
    assert shown["seats"][2] | {} == {
        "seat": 2,
        "occupant": "empty",
        "name": None,
        "level": None,
        "you": False,
        "invited": "Rita",
    }
    assert [i["id"] for i in rita_api.get("/invitations").json()] == [invitation["id"]]

    accepted = rita_api.post(f"/invitations/{invitation['id']}/accept")
    assert accepted.status_code == 200
    assert (accepted.json()["game"], accepted.json()["seat"]) == (game_id, 2)

    for seat, level in ((1, "hard"), (3, "easy")):
        added = robo_api.post(f"/tables/{game_id}/site-bots", {"seat": seat, "level": level})
        assert added.status_code == 200
    assert seat_kinds(added.json()) == [
        (0, "bot_account", "Robo"),
        (1, "site_bot", "Bot (Hard)"),
        (2, "bot_account", "Rita"),
        (3, "site_bot", "Bot (Easy)"),
    ]

    started = robo_api.post(f"/tables/{game_id}/start")

    assert started.status_code == 200
    assert started.json()["status"] == "active"
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ACTIVE
    # A site bot at the table: casual, whatever the host chose (docs/ratings.md).
    assert (game.rated, started.json()["options"]["rated"]) == (False, False)
    # Each bot now plays its own seat.
    assert robo_api.get(f"/games/{game_id}").json()["seat"] == 0
    assert rita_api.get(f"/games/{game_id}").json()["seat"] == 2


def test_starting_twice_is_refused_and_changes_nothing(robo_api):
    game_id = create(robo_api)["game"]
    for seat in (1, 2, 3):
        robo_api.post(f"/tables/{game_id}/site-bots", {"seat": seat, "level": "normal"})
    assert robo_api.post(f"/tables/{game_id}/start").status_code == 200
    seq = Game.objects.get(pk=game_id).last_seq

    again = robo_api.post(f"/tables/{game_id}/start")

    assert again.status_code == 409
    assert again.json()["detail"]
    assert Game.objects.get(pk=game_id).last_seq == seq


def test_a_table_with_an_empty_seat_does_not_start(robo_api):
    game_id = create(robo_api)["game"]

    refused = robo_api.post(f"/tables/{game_id}/start")

    assert refused.status_code == 409
    assert Game.objects.get(pk=game_id).status == Game.Status.OPEN


def test_a_second_account_not_the_host_may_not_invite_add_remove_or_start(robo_api, rita_api, ana):
    """Rita, a bot account at Robo's public table, tries the host's actions."""
    game_id = create(robo_api, bot_accounts=True)["game"]
    assert rita_api.post(f"/tables/{game_id}/join", {"seat": 1}).status_code == 200
    make_bot("otto")

    attempts = [
        rita_api.post(f"/tables/{game_id}/invitations", {"seat": 2, "username": "otto"}),
        rita_api.post(f"/tables/{game_id}/site-bots", {"seat": 2, "level": "easy"}),
        delete(rita_api, f"/tables/{game_id}/seats/0"),
        rita_api.post(f"/tables/{game_id}/start"),
        delete(rita_api, f"/tables/{game_id}"),
    ]

    for response in attempts:
        assert response.status_code == 403, response.json()
        assert response.json()["detail"] == "Only the host can do that."
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.OPEN
    assert [(s.user_id is not None, s.bot_level) for s in game.seats.all()] == [
        (True, ""),
        (True, ""),
        (False, ""),
        (False, ""),
    ]
    assert not Invitation.objects.exists()


def test_a_private_table_is_no_such_table_to_a_bot_that_has_no_business_there(robo_api, rita_api):
    game_id = create(robo_api, private=True)["game"]

    for response in (
        rita_api.get(f"/tables/{game_id}"),
        rita_api.post(f"/tables/{game_id}/start"),
        rita_api.post(f"/tables/{game_id}/site-bots", {"seat": 1, "level": "easy"}),
        rita_api.get("/tables/999999"),
    ):
        assert response.status_code == 404
        assert response.json()["detail"] == "There is no such table."
    # Invited, Rita may see it (to know what she is asked to).
    robo_api.post(f"/tables/{game_id}/invitations", {"seat": 3, "username": "rita"})
    assert rita_api.get(f"/tables/{game_id}").json()["seats"][3]["invited"] == "Rita"
    assert rita_api.get(f"/tables/{game_id}").json()["invite_link"] is None


def test_a_person_cannot_use_the_api_at_all_so_cannot_make_or_invite_through_it(ana):
    """The API is bot accounts' only: a person has no token, and a session is no credential."""
    with pytest.raises(bot_tokens.TokenRefused):
        bot_tokens.issue(ana, "mine")
    browser = Client()
    browser.force_login(ana)

    response = browser.post("/api/bot/tables", {}, content_type="application/json")

    assert response.status_code == 401
    assert not Game.objects.exists()


def test_a_bot_cannot_invite_a_person_who_does_not_allow_it(robo_api, ana):
    game_id = create(robo_api)["game"]

    refused = robo_api.post(f"/tables/{game_id}/invitations", {"seat": 1, "username": "ana"})

    assert refused.status_code == 403
    assert "does not take invitations from bot accounts" in refused.json()["detail"]
    assert not Invitation.objects.exists()


def test_a_person_allows_bot_invitations_on_their_profile_off_by_default(ana):
    from tests.accounts.test_profile import profile_data

    assert ana.allow_bot_invitations is False
    browser = Client()
    browser.force_login(ana)
    assert (
        "Bot accounts may invite me to tables"
        in browser.get(reverse("accounts:profile")).content.decode()
    )

    browser.post(reverse("accounts:profile"), profile_data(ana, allow_bot_invitations="on"))

    ana.refresh_from_db()
    assert ana.allow_bot_invitations is True


def test_a_person_who_allows_it_is_invited_and_accepts_in_their_lobby(robo_api, ana):
    ana.allow_bot_invitations = True
    ana.save(update_fields=["allow_bot_invitations"])
    game_id = create(robo_api, private=True)["game"]

    invited = robo_api.post(f"/tables/{game_id}/invitations", {"seat": 1, "username": "ana"})

    assert invited.status_code == 201
    assert invited.json()["invitee_is_bot"] is False
    browser = Client()
    browser.force_login(ana)
    lobby_page = browser.get(reverse("lobby:index")).content.decode()
    assert 'id="invitations"' in lobby_page and "Robo" in lobby_page
    accept_url = reverse("lobby:accept_invitation", args=[invited.json()["id"]])
    assert accept_url in lobby_page

    response = browser.post(accept_url)

    assert response.status_code == 302
    assert response["Location"] == reverse("lobby:table", args=[game_id])
    table = robo_api.get(f"/tables/{game_id}").json()
    assert seat_kinds(table)[1] == (1, "person", "Ana")
    # A private table: she may see its page, since she sits there.
    assert browser.get(reverse("lobby:table", args=[game_id])).status_code == 200


def test_a_person_declines_a_bots_invitation_in_their_lobby(robo_api, ana):
    ana.allow_bot_invitations = True
    ana.save(update_fields=["allow_bot_invitations"])
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 1, "username": "ana"}
    ).json()["id"]
    browser = Client()
    browser.force_login(ana)

    response = browser.post(reverse("lobby:decline_invitation", args=[invitation_id]))

    assert response.status_code == 302
    assert Invitation.objects.get(pk=invitation_id).closed_by == "bot"
    assert robo_api.get(f"/tables/{game_id}").json()["seats"][1]["invited"] is None
    assert 'id="invitations"' not in browser.get(reverse("lobby:index")).content.decode()


def test_someone_elses_invitation_cannot_be_accepted_or_declined_from_the_lobby(
    robo_api, rita, ana, bo
):
    ana.allow_bot_invitations = True
    ana.save(update_fields=["allow_bot_invitations"])
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 1, "username": "ana"}
    ).json()["id"]
    browser = Client()
    browser.force_login(bo)

    for name in ("lobby:accept_invitation", "lobby:decline_invitation"):
        assert browser.post(reverse(name, args=[invitation_id])).status_code == 404
    invitation = Invitation.objects.get(pk=invitation_id)
    assert (invitation.accepted_at, invitation.closed_at) == (None, None)


def test_a_person_host_still_invites_people_with_the_link_not_by_name(ana, bo):
    bo.allow_bot_invitations = True
    bo.save(update_fields=["allow_bot_invitations"])
    table = make_table(ana)

    with pytest.raises(lobby.LobbyError, match="not a bot account"):
        lobby.invite_bot(table.pk, ana, 1, "bo")


def test_accepting_again_answers_the_same_seat(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 3, "username": "rita"}
    ).json()["id"]

    first = rita_api.post(f"/invitations/{invitation_id}/accept")
    again = rita_api.post(f"/invitations/{invitation_id}/accept")

    assert (first.status_code, again.status_code) == (200, 200)
    assert first.json()["seat"] == again.json()["seat"] == 3
    assert Game.objects.get(pk=game_id).seats.filter(user__username="rita").count() == 1


def test_accepting_after_the_host_removed_you_says_so(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 3, "username": "rita"}
    ).json()["id"]
    rita_api.post(f"/invitations/{invitation_id}/accept")
    assert delete(robo_api, f"/tables/{game_id}/seats/3").status_code == 200

    again = rita_api.post(f"/invitations/{invitation_id}/accept")

    assert again.status_code == 409
    assert again.json()["detail"] == (
        "You accepted this invitation, but no longer sit at seat 3 of this table."
    )
    assert Game.objects.get(pk=game_id).seats.get(number=3).is_empty


def test_decline_then_accept_is_refused_and_declining_again_answers_the_same(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 1, "username": "rita"}
    ).json()["id"]

    declined = rita_api.post(f"/invitations/{invitation_id}/decline")
    again = rita_api.post(f"/invitations/{invitation_id}/decline")
    accept = rita_api.post(f"/invitations/{invitation_id}/accept")

    assert (declined.status_code, again.status_code) == (200, 200)
    assert declined.json() == again.json()
    assert declined.json()["status"] == "declined"
    assert accept.status_code == 409
    assert accept.json()["detail"] == "This invitation is closed: you declined it."
    assert Game.objects.get(pk=game_id).seats.get(number=1).is_empty
    assert rita_api.get("/invitations").json() == []
    # The host may invite someone to that seat again.
    assert (
        robo_api.post(f"/tables/{game_id}/invitations", {"seat": 1, "username": "rita"}).status_code
        == 201
    )


def test_declining_an_accepted_invitation_is_refused(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 1, "username": "rita"}
    ).json()["id"]
    rita_api.post(f"/invitations/{invitation_id}/accept")

    refused = rita_api.post(f"/invitations/{invitation_id}/decline")

    assert refused.status_code == 409
    assert refused.json()["detail"] == "You accepted this invitation already."
    assert Game.objects.get(pk=game_id).seats.get(number=1).user.username == "rita"


def test_a_second_account_cannot_accept_or_decline_anothers_invitation(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 1, "username": "rita"}
    ).json()["id"]
    otto = Api(bot_tokens.issue(make_bot("otto"), "x")[1])

    for action in ("accept", "decline"):
        response = otto.post(f"/invitations/{invitation_id}/{action}")
        assert response.status_code == 404
        assert response.json()["detail"] == "There is no such invitation."
    invitation = Invitation.objects.get(pk=invitation_id)
    assert (invitation.accepted_at, invitation.closed_at) == (None, None)


def test_the_host_empties_a_seat_or_withdraws_its_invitation(robo_api, rita_api):
    game_id = create(robo_api)["game"]
    robo_api.post(f"/tables/{game_id}/site-bots", {"seat": 1, "level": "easy"})
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 2, "username": "rita"}
    ).json()["id"]

    removed = delete(robo_api, f"/tables/{game_id}/seats/1")
    withdrawn = delete(robo_api, f"/tables/{game_id}/seats/2")

    assert (removed.status_code, withdrawn.status_code) == (200, 200)
    assert [s["occupant"] for s in withdrawn.json()["seats"]] == ["bot_account"] + ["empty"] * 3
    assert withdrawn.json()["seats"][2]["invited"] is None
    refused = rita_api.post(f"/invitations/{invitation_id}/accept")
    assert refused.json()["detail"] == "This invitation is closed: the host withdrew it."
    for seat, message in (
        (0, "You cannot remove yourself; leave the table instead."),
        (3, "That seat is already empty."),
    ):
        response = delete(robo_api, f"/tables/{game_id}/seats/{seat}")
        assert (response.status_code, response.json()["detail"]) == (409, message)
    assert delete(robo_api, f"/tables/{game_id}/seats/9").status_code == 404


def test_joining_a_table_you_sit_at_answers_your_seat_or_says_where_you_sit(
    robo_api, rita_api, ana
):
    """Rita accepted an invitation to a table that does not let bot accounts join: joining it
    again is no "this table takes no bot accounts"."""
    game_id = create(robo_api)["game"]
    invitation_id = robo_api.post(
        f"/tables/{game_id}/invitations", {"seat": 2, "username": "rita"}
    ).json()["id"]
    rita_api.post(f"/invitations/{invitation_id}/accept")

    same = rita_api.post(f"/tables/{game_id}/join")
    same_seat = rita_api.post(f"/tables/{game_id}/join", {"seat": 2})
    other = rita_api.post(f"/tables/{game_id}/join", {"seat": 1})

    assert (same.status_code, same.json()["seat"]) == (200, 2)
    assert (same_seat.status_code, same_seat.json()["seat"]) == (200, 2)
    assert other.status_code == 409
    assert other.json()["detail"] == "You already sit at seat 2 of this table."
    assert Game.objects.get(pk=game_id).seats.get(number=1).is_empty
    # The host's own table, private or not.
    private = create(robo_api, private=True)["game"]
    assert robo_api.post(f"/tables/{private}/join").json()["seat"] == 0


def test_the_open_tables_list_still_answers_beside_create(robo_api, rita_api):
    game_id = create(robo_api, bot_accounts=True)["game"]

    listed = rita_api.get("/tables")

    assert listed.status_code == 200
    assert listed.json() == [{"game": game_id, "players": 4, "pace": "realtime", "free_seats": 3}]


def test_a_table_shown_during_its_game_carries_no_card(robo_api, rita_api):
    """The table's answer is seats and options, never a hand: scanned for card codes at
    every answer through a game the bots made, whoever asks (the host, a seated bot)."""
    game_id = create(robo_api, bot_accounts=True, private=False)["game"]
    rita_api.post(f"/tables/{game_id}/join", {"seat": 2})
    for seat in (1, 3):
        robo_api.post(f"/tables/{game_id}/site-bots", {"seat": seat, "level": "easy"})
    robo_api.post(f"/tables/{game_id}/start")
    game = Game.objects.get(pk=game_id)
    robo_api.sent.clear()
    rita_api.sent.clear()
    for _ in range(40):
        if game.status != Game.Status.ACTIVE:
            break
        play_one(game)
        robo_api.get(f"/tables/{game_id}")
        rita_api.get(f"/tables/{game_id}")
        game.refresh_from_db()

    assert robo_api.sent and rita_api.sent
    for body in robo_api.sent + rita_api.sent:
        assert codes_in(body) == set(), body
