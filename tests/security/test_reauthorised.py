"""A move is authorised when it is applied, not when its socket opened.

The sockets here go through the site's whole ASGI stack (origin check, session cookie,
AuthMiddlewareStack), with the session a real log-in made: what an attacker's browser has.
"""

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from config.asgi import application
from games import effects, store
from games.actions import decisions
from games.models import Game, GameEvent, Seat
from games.moderation import actions as moderation
from tests.conftest import PASSWORD, make_started_game, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def socket(game, client=None, cookie=None):
    headers = [(b"origin", b"http://testserver")]
    if client is not None:
        cookie = f"sessionid={client.cookies['sessionid'].value}"
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)


async def opened(comm):
    ok, code = await comm.connect()
    assert ok, code
    hello = await comm.receive_json_from(timeout=5)
    assert hello["type"] == "hello"
    return hello


async def closed_with(comm):
    """The close code of the socket, skipping any pushes sent before it."""
    while True:
        message = await comm.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message["code"]


def state_of(game):
    return store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))


def events(game):
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", "actor"))


@pytest.fixture
def mod(db):
    return make_user("mod", is_staff=True, is_superuser=True)


# --- the write door ---------------------------------------------------------------------------


def test_the_door_refuses_a_move_by_a_user_a_moderator_removed(four, mod):
    game = make_started_game(four)
    ana = four[0]
    pick = state_of(game).legal_actions(0)[0]  # the setup pass: a pick the bot makes too
    moderation.remove_user(game.pk, ana, mod, "abusive chat")
    before = events(game)

    with pytest.raises(decisions.SeatLost, match="no longer yours"):
        decisions.apply_decision(
            game.pk, 0, pick, GameEvent.Actor.PERSON, user=ana, idempotency_key="after-removal"
        )

    assert events(game) == before
    assert Seat.objects.get(game=game, number=0).user_id is None


def test_the_door_refuses_a_banned_account_read_afresh_not_the_callers_copy(four, mod):
    game = make_started_game(four)
    ana = four[0]  # loaded before the ban, as a socket's user is
    User.objects.filter(pk=ana.pk).update(banned_at=timezone.now())
    before = events(game)

    with pytest.raises(decisions.SeatLost, match="may not play"):
        decisions.apply_decision(
            game.pk, 0, state_of(game).legal_actions(0)[0], GameEvent.Actor.PERSON, user=ana
        )

    assert events(game) == before


def test_the_door_refuses_a_user_acting_for_another_seat(four):
    game = make_started_game(four)
    with pytest.raises(decisions.SeatLost):
        decisions.apply_decision(
            game.pk, 1, state_of(game).legal_actions(1)[0], GameEvent.Actor.PERSON, user=four[0]
        )
    assert len(events(game)) == 1


def test_a_seat_a_bot_plays_for_good_refuses_its_persons_move_with_a_reason(client, four):
    game = make_started_game(four)
    Game.objects.filter(pk=game.pk).update(
        stand_ins={"0": {"reason": "timeouts", "since": "2026-12-01T10:00:00+00:00"}},
        bot_seats=[0],
    )
    pick = state_of(game).legal_actions(0)[0]
    client.force_login(four[0])

    answer = client.post(
        reverse("games:act", args=[game.pk]),
        {"pick": "1", "cards": pick["card"], "key": "k1"},
        HTTP_HX_REQUEST="true",
    )

    assert answer.status_code == 403
    html = answer.content.decode()
    assert "A bot plays your seat for the rest of this game after three missed moves" in html
    assert len(events(game)) == 1
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert 'id="bot-for-good"' in page
    assert 'id="btn-pick"' not in page and 'id="btn-concede"' not in page


def test_a_seat_a_bot_holds_while_its_person_is_away_is_still_theirs(four):
    game = make_started_game(four)
    Game.objects.filter(pk=game.pk).update(
        stand_ins={"0": {"reason": "away", "since": "2026-12-01T10:00:00+00:00"}},
        bot_seats=[0],
    )
    decisions.apply_decision(
        game.pk, 0, state_of(game).legal_actions(0)[0], GameEvent.Actor.PERSON, user=four[0]
    )
    assert len(events(game)) == 2


# --- open sockets lose what their user lost ----------------------------------------------------


def test_a_removed_players_open_socket_is_closed_and_cannot_move(four, mod):
    game = make_started_game(four)
    ana = four[0]

    async def scenario():
        comm = socket(game, await _client(ana))
        await opened(comm)
        await _sync(moderation.remove_user)(game.pk, ana, mod, "abusive chat")
        assert await closed_with(comm) == 4410

    async_to_sync(scenario)()
    moves = GameEvent.objects.filter(game=game, actor=GameEvent.Actor.PERSON)
    assert not moves.exists()


def test_a_socket_that_missed_the_push_is_refused_at_its_next_move_and_closed(
    four, mod, monkeypatch
):
    game = make_started_game(four)
    ana = four[0]
    pick = state_of(game).legal_actions(0)[0]
    # The push to the user's sockets is lost (a Redis blip): the door still refuses.
    monkeypatch.setattr(effects, "access_changed", lambda user_id: None)

    async def scenario():
        comm = socket(game, await _client(ana))
        await opened(comm)
        await _sync(moderation.remove_user)(game.pk, ana, mod, "abusive chat")
        await comm.send_json_to({"type": "act", "action": pick, "key": "late"})
        while True:
            answer = await comm.receive_json_from(timeout=5)
            if answer["type"] == "error":
                break
        assert "no longer yours" in answer["message"]
        assert await closed_with(comm) == 4410

    async_to_sync(scenario)()
    assert not GameEvent.objects.filter(game=game, actor=GameEvent.Actor.PERSON).exists()


def test_a_banned_players_open_socket_is_closed(four, mod):
    game = make_started_game(four)

    async def scenario():
        comm = socket(game, await _client(four[1]))
        await opened(comm)
        await _sync(moderation.ban)(four[1], mod, "cheating")
        assert await closed_with(comm) == 4423

    async_to_sync(scenario)()


def test_a_suspended_spectators_socket_is_closed(four, ed, mod):
    game = make_started_game(four, spectators=True)

    async def scenario():
        comm = socket(game, await _client(ed))
        hello = await opened(comm)
        assert hello["seat"] is None
        await _sync(moderation.suspend)(ed, mod, "spam", timezone.now() + timedelta(days=1))
        assert await closed_with(comm) == 4423

    async_to_sync(scenario)()


def test_a_password_change_closes_the_sockets_of_the_users_other_sessions(four):
    game = make_started_game(four)
    bo = four[1]
    phone = Client()
    assert phone.login(username=bo.username, password=PASSWORD)
    laptop = logged_in(bo)

    async def scenario():
        comm = socket(game, phone)
        await opened(comm)
        answer = await _sync(laptop.post)(
            reverse("accounts:password_change"),
            {
                "old_password": PASSWORD,
                "new_password1": "a-new-secret-for-bo-77",
                "new_password2": "a-new-secret-for-bo-77",
            },
        )
        assert answer.status_code == 302
        assert await closed_with(comm) == 4401
        # The laptop's own session goes on, with the new password's hash.
        fresh = socket(game, laptop)
        await opened(fresh)
        await fresh.disconnect()

    async_to_sync(scenario)()
    assert phone.get(reverse("games:play", args=[game.pk])).status_code == 302


def test_a_socket_is_closed_when_its_session_expires(four):
    game = make_started_game(four)
    client = logged_in(four[2])
    session = client.session
    session.set_expiry(2)
    session.save()

    async def scenario():
        comm = socket(game, client)
        await opened(comm)
        assert await comm.receive_nothing(timeout=1)
        assert await _close_within(comm, 6) == 4401

    async_to_sync(scenario)()


def test_an_unrelated_save_of_the_account_leaves_its_sockets_open(four):
    game = make_started_game(four)
    cy = four[2]

    async def scenario():
        comm = socket(game, await _client(cy))
        await opened(comm)
        cy.display_name = "Cyrus"
        await _sync(cy.save)()
        assert await comm.receive_nothing(timeout=0.5)
        await comm.send_json_to({"type": "sync"})
        assert (await comm.receive_json_from(timeout=5))["type"] == "hello"
        await comm.disconnect()

    async_to_sync(scenario)()


# --- who may watch: page and socket agree --------------------------------------------------------


@pytest.mark.parametrize(
    "cookie", [None, "sessionid=forged0000000000000000000000000000", "logged-out"]
)
def test_a_visitor_without_a_valid_session_may_neither_load_nor_follow_a_public_table(four, cookie):
    game = make_started_game(four, spectators=True)
    if cookie == "logged-out":
        client = logged_in(make_user("gil"))
        cookie = f"sessionid={client.cookies['sessionid'].value}"
        client.post(reverse("accounts:logout"))
    page = Client()
    if cookie:
        page.cookies.load(cookie)

    assert page.get(reverse("games:play", args=[game.pk])).status_code == 302

    async def scenario():
        comm = socket(game, cookie=cookie)
        ok, code = await comm.connect()
        await comm.disconnect()  # ends the refused consumer, or it outlives the loop
        assert (ok, code) == (False, 4401)

    async_to_sync(scenario)()


def test_a_logged_in_outsider_may_load_and_follow_a_public_table(four, ed):
    game = make_started_game(four, spectators=True)
    client = logged_in(ed)
    assert client.get(reverse("games:play", args=[game.pk])).status_code == 200

    async def scenario():
        comm = socket(game, client)
        hello = await opened(comm)
        assert hello["seat"] is None
        await comm.disconnect()

    async_to_sync(scenario)()


# --- helpers -------------------------------------------------------------------------------------


def _sync(function):
    return database_sync_to_async(function)


async def _client(user):
    return await _sync(logged_in)(user)


async def _close_within(comm, seconds):
    message = await comm.receive_output(timeout=seconds)
    assert message["type"] == "websocket.close", message
    return message["code"]
