"""Access: nobody acts for another seat, reads another seat's cards, starts or moderates a
table that is not theirs; no page, push or email a person can reach shows a hidden card.

The card scan and the per-seat "what could this seat know" come from the table's own
secrecy test (tests/games/presenters/test_table_secrecy.py): every card name or code in a
document, hidden elements and attributes included, against the seat's view and every
event it was shown.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core import mail
from django.test import Client
from django.urls import reverse

from games.actions import outbox
from games.models import EmailOutbox, Game, GameEvent
from games.routing import websocket_urlpatterns
from lobby import services as lobby
from tests.conftest import PASSWORD, make_started_game, make_user, play_one
from tests.games.presenters.test_table_secrecy import Knowable, cards_in
from tests.security.world import build_world, fingerprint


def pages_about(game, users):
    """Every GET a person can send about a running game, with the parameters that choose
    what it shows (seat, every hand, step)."""
    urls = [
        reverse("games:play", args=[game.pk]),
        reverse("lobby:table", args=[game.pk]),
        reverse("history:export", args=[game.pk]),
        reverse("history:mine"),
        reverse("lobby:index"),
        reverse("history:report", args=[game.pk]),
    ]
    replay = reverse("history:replay", args=[game.pk])
    urls += [replay, f"{replay}?all=1", f"{replay}?step=2", f"{replay}?step=1&all=1"]
    urls += [f"{replay}?seat={s}" for s in range(game.players)]
    urls += [f"{replay}?seat={s}&step=3" for s in range(game.players)]
    for user in users:
        urls += [
            reverse("history:profile", args=[user.username]),
            reverse("history:player", args=[user.username]),
        ]
    return urls


@pytest.mark.django_db
def test_no_page_anyone_can_reach_shows_a_card_they_may_not_see():
    players = [make_user(f"p{i}") for i in range(4)]
    watcher, staff = make_user("watcher"), make_user("staff", is_staff=True)
    game = make_started_game(players, spectators=True)
    knowable = Knowable(game, [None, 0, 1, 2, 3])
    readers = [(p, s) for s, p in enumerate(players)] + [(watcher, None), (staff, None)]
    clients = {}
    for user, _ in readers:
        clients[user.pk] = Client()
        clients[user.pk].force_login(user)
    scanned = leaks = 0
    problems = []
    for moves in (0, 6, 15, 30):
        for _ in range(moves):
            game.refresh_from_db()
            if game.status == Game.Status.ACTIVE:
                play_one(game)
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break  # a short deal ended the game: once over, every hand may be shown
        knowable.refresh()
        for user, seat in readers:
            allowed = knowable(seat)
            for url in pages_about(game, players):
                for headers in ({}, {"HX-Request": "true"}):
                    response = clients[user.pk].get(url, headers=headers, follow=True)
                    assert response.status_code < 500, url
                    found = cards_in(response.content.decode())
                    scanned += 1
                    if found - allowed:
                        leaks += 1
                        problems.append((user.username, url, headers, sorted(found - allowed)))
            # The scan sees what is there: a player's own hand is on their table page.
            if seat is not None:
                page = clients[user.pk].get(reverse("games:play", args=[game.pk])).content.decode()
                assert set(knowable.state.view(seat)["hand"]) <= cards_in(page)
    assert not problems, problems[:5]
    assert scanned > 300


@pytest.mark.django_db(transaction=True)
def test_a_seats_socket_carries_only_what_that_seat_may_see():
    players = [make_user(f"s{i}") for i in range(4)]
    watcher = make_user("watcher")
    game = make_started_game(players, spectators=True)
    knowable = Knowable(game, [None, 1])
    application = URLRouter(websocket_urlpatterns)

    async def scenario():
        sockets = {}
        for seat, user in ((1, players[1]), (None, watcher)):
            comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
            comm.scope["user"] = user
            assert (await comm.connect())[0]
            assert (await comm.receive_json_from(timeout=5))["seat"] == seat
            sockets[seat] = comm
        pushes = hands = 0
        for _ in range(25):
            await database_sync_to_async(play_one)(game)
            await database_sync_to_async(knowable.refresh)()
            for seat, comm in sockets.items():
                push = await comm.receive_json_from(timeout=10)
                assert push["type"] == "fragments"
                found = cards_in(push["html"])
                extra = found - knowable(seat)
                assert not extra, (seat, push["seq"], sorted(extra))
                if seat == 1 and 'id="table-hand"' in push["html"]:
                    # The scan sees what is there: the seat's own hand, when the push holds
                    # it (one that leaves it out, unchanged, is scanned all the same).
                    assert set(knowable.state.view(1)["hand"]) <= found
                    hands += 1
                pushes += 1
        for comm in sockets.values():
            await comm.disconnect()
        return pushes, hands

    pushes, hands = async_to_sync(scenario)()
    assert pushes == 50 and hands > 0


@pytest.mark.django_db
def test_no_email_carries_a_card():
    players = [make_user(f"m{i}") for i in range(4)]
    game = make_started_game(players, pace=Game.Pace.TURN_BASED, turn_hours=12)
    client = Client()
    client.post(reverse("accounts:password_reset"), {"email": "m1@example.com"})
    client.post(
        reverse("accounts:signup"),
        {
            "username": "newbie",
            "email": "newbie@example.com",
            "display_name": "New",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    for _ in range(20):
        play_one(game)
        outbox.deliver_outbox(game_id=game.pk)
    kinds = {m.subject.split(" ")[0] for m in mail.outbox}
    assert EmailOutbox.objects.filter(game=game, sent_at__isnull=False).exists()
    assert len(mail.outbox) >= 5 and len(kinds) >= 3, kinds
    for message in mail.outbox:
        parts = [message.subject, message.body] + [body for body, _ in message.alternatives]
        for part in parts:
            assert cards_in(part) == set(), (message.subject, part[:200])


@pytest.mark.django_db
def test_nobody_acts_for_another_seat_over_http():
    world = build_world()
    state = world.state()
    turn = world.game.turn
    poster = next(u for u in world.players if world.seat_of(u) != turn)
    client = world.client(poster)
    before = fingerprint()
    for action in state.legal_actions(turn):
        assert action not in state.legal_actions(world.seat_of(poster))
        for extra in ({"seat": turn}, {"seat": str(turn), "user": world.players[turn].pk}):
            response = client.post(
                reverse("games:act", args=[world.game.pk]),
                {"action": json.dumps(action), "key": "k", **extra},
                headers={"HX-Request": "true"},
            )
            assert response.status_code == 400
            assert 'role="alert"' in response.content.decode()
    # An outsider may not post at all, even what the seat on turn may do.
    response = world.client(world.ed).post(
        reverse("games:act", args=[world.game.pk]),
        {"action": json.dumps(state.legal_actions(turn)[0]), "seat": turn},
    )
    assert response.status_code == 403
    assert fingerprint() == before
    # The same move from the seat on turn is applied: the refusals were not a broken door.
    response = world.client(world.players[turn]).post(
        reverse("games:act", args=[world.game.pk]),
        {"action": json.dumps(state.legal_actions(turn)[0]), "key": "k"},
    )
    assert response.status_code == 302
    assert GameEvent.objects.filter(game=world.game).count() == len(before["events"]) + 1


@pytest.mark.django_db
def test_only_the_host_starts_or_runs_the_seats_of_a_table():
    world = build_world()
    table = world.open_table
    for number in (2, 3):
        lobby.add_bot(table.pk, world.ana, number, "easy")
    before = fingerprint()
    for user in (world.bo, world.ed, world.cy):
        client = world.client(user)
        assert client.post(reverse("lobby:start", args=[table.pk])).status_code == 403
        assert client.post(reverse("lobby:remove", args=[table.pk, 2])).status_code == 403
        assert (
            client.post(reverse("lobby:bot", args=[table.pk, 2]), {"level": "hard"}).status_code
            == 403
        )
    assert fingerprint() == before
    response = world.client(world.ana).post(reverse("lobby:start", args=[table.pk]))
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Game.Status.ACTIVE


@pytest.mark.django_db
def test_moderation_is_for_staff_only():
    world = build_world()
    before = fingerprint()
    for user in (world.ana, world.bo, world.ed):
        client = world.client(user)
        for url, data in (
            (
                reverse("admin:games_game_moderate", args=[world.game.pk]),
                {"what": "bot", "seat": 1, "level": "easy", "reason": "because"},
            ),
            (
                reverse("admin:games_game_changelist"),
                {
                    "action": "abort_tables",
                    "_selected_action": [world.game.pk],
                    "apply": "1",
                    "reason": "because",
                },
            ),
            (
                reverse("admin:accounts_user_changelist"),
                {
                    "action": "ban_accounts",
                    "_selected_action": [world.bo.pk],
                    "apply": "1",
                    "reason": "because",
                },
            ),
            (reverse("admin:games_game_log", args=[world.game.pk]), None),
        ):
            response = client.post(url, data) if data else client.get(url)
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("admin:login"))
            assert not cards_in(response.content.decode())
    assert fingerprint() == before
    # A moderator can: the refusals above were about who asked.
    response = world.client(world.mo).post(
        reverse("admin:games_game_moderate", args=[world.game.pk]),
        {"what": "bot", "seat": 1, "level": "easy", "reason": "because"},
    )
    assert response.status_code == 302
    assert GameEvent.objects.filter(game=world.game, actor="moderator").count() == 1


@pytest.mark.django_db
def test_the_address_limit_is_not_lifted_by_a_forwarded_for_header(settings):
    make_user("ana")
    settings.LOGIN_RATE_IP_LIMIT = 3
    for n in range(3):
        Client().post(
            reverse("accounts:login"),
            {"username": f"nobody{n}", "password": "x"},
            headers={"X-Forwarded-For": f"10.0.0.{n}"},
        )
    response = Client().post(
        reverse("accounts:login"),
        {"username": "ana", "password": PASSWORD},
        headers={"X-Forwarded-For": "10.9.9.9"},
    )
    assert response.status_code == 429
    assert "Too many log-in attempts" in response.content.decode()


@pytest.mark.django_db
def test_sign_ups_past_the_limit_create_no_account_even_when_valid(settings):
    settings.SIGNUP_RATE_LIMIT = 2
    from accounts.models import User

    statuses = []
    for n in range(4):
        response = Client().post(
            reverse("accounts:signup"),
            {
                "username": f"new{n}",
                "email": f"new{n}@example.com",
                "display_name": "",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
        statuses.append(response.status_code)
    assert statuses == [302, 302, 429, 429]
    assert sorted(User.objects.values_list("username", flat=True)) == ["new0", "new1"]
