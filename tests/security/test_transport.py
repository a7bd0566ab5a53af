"""CSRF on every post (form field and htmx header), and the socket's origin and session
checks, through the real ASGI application (config.asgi)."""

import json
import re

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from config.asgi import application
from games import store
from games.models import GameEvent
from games.moderation import actions as moderation
from tests.security.world import build_world, fingerprint, routes

CSRF_REFUSAL = "CSRF verification failed"
# Posted without a CSRF token on purpose: the one-click unsubscribe of an email (RFC 8058)
# comes from the mail provider, and its signed token is the proof. A bad token is refused.
NO_CSRF = {"/accounts/unsubscribe/x/": 400}
# The Bot API takes a bearer token, never the session cookie, so a forged cross-site post
# has no credential to ride on: without a token it is a 401 (with a session or not).
BEARER_ONLY = "/api/bot/"
SCHEMA = "/api/bot/openapi.json"  # read with GET, like a page: a post is refused as anywhere
# Any other path under /api/bot/ is no route: a JSON 404, whatever the method or credential.
NO_ROUTE = "/api/bot/no-such-route/"


def every_url(world):
    """Every URL of the URL conf with its words and numbers filled from the world."""
    values = {
        "game_id": world.open_table.pk,
        "number": 2,
        "seat": 2,
        "token": "x",
        "uidb64": "x",
        "username": "bo",
        "content_type_id": 1,
        "id": world.bo.pk,
        "object_id": world.game.pk,
        "message_id": 1,
        "invitation_id": 1,
        "token_id": 1,
        "subscription_id": 1,
        "search_id": 1,
    }
    found = []
    for _, route, _ in routes():
        if "(?P<app_label>" in route:
            found.append("/admin/games/")
        elif "(?P<url>" in route:
            found.append("/admin/no-such-page/")
        elif route == "^api/bot/":
            found.append(NO_ROUTE)
        else:
            found.append(
                "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), route)
            )
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "player", "staff"])
def test_every_post_without_the_token_is_refused(who):
    world = build_world()
    client = Client(enforce_csrf_checks=True)
    user = {"anonymous": None, "player": world.ana, "staff": world.mo}[who]
    if user:
        client.force_login(user)
    before = fingerprint()
    urls = every_url(world)
    assert len(urls) > 60
    for url in urls:
        for headers in ({}, {"HX-Request": "true"}):
            response = client.post(url, {"reason": "x", "level": "easy"}, headers=headers)
            if url in NO_CSRF:
                assert response.status_code == NO_CSRF[url], url
                continue
            if url == NO_ROUTE:
                assert response.status_code == 404, url
                assert "/bots/docs/api/" in response.json()["detail"], url
                continue
            if url.startswith(BEARER_ONLY) and url not in (BEARER_ONLY, SCHEMA):
                assert response.status_code in (401, 405), (url, response.status_code)
                continue
            assert response.status_code == 403, (url, response.status_code)
            assert CSRF_REFUSAL in response.content.decode(), url
    # A token from another session is no better than none.
    other = Client()
    other.get(reverse("accounts:login"))
    stolen = other.cookies["csrftoken"].value
    response = client.post(
        reverse("lobby:take", args=[world.open_table.pk, 2]),
        {"csrfmiddlewaretoken": stolen},
        headers={"X-CSRFToken": stolen},
    )
    assert response.status_code == 403
    assert fingerprint() == before


@pytest.mark.django_db
def test_with_the_token_a_post_goes_through_as_a_field_or_as_htmx_sends_it():
    world = build_world()
    turn = world.game.turn
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.players[turn])
    page = client.get(reverse("games:play", args=[world.game.pk])).content.decode()
    # htmx sends the token from <body hx-headers>; plain forms carry it as a field.
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)
    assert re.search(r'name="csrfmiddlewaretoken" value="[^"]+"', page)
    act = reverse("games:act", args=[world.game.pk])
    move = store.load_state(world.game).legal_actions(turn)[0]

    response = client.post(
        act,
        {"action": json.dumps(move), "key": "a"},
        headers={"X-CSRFToken": token, "HX-Request": "true"},
    )
    assert response.status_code == 200
    assert GameEvent.objects.filter(game=world.game, seat=turn, kind=move["type"]).exists()

    host = Client(enforce_csrf_checks=True)
    host.force_login(world.ed)
    form = host.get(reverse("lobby:table", args=[world.open_table.pk])).content.decode()
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    response = host.post(
        reverse("lobby:take", args=[world.open_table.pk, 2]), {"csrfmiddlewaretoken": field}
    )
    assert response.status_code == 302
    assert world.open_table.seats.get(number=2).user == world.ed


# --- the socket: origin and session -----------------------------------------------------------


def socket(game, *, origin=b"http://127.0.0.1:8000", cookie=None):
    headers = [(b"host", b"127.0.0.1:8000")]
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)


def session_of(user):
    client = Client()
    client.force_login(user)
    return client, client.cookies["sessionid"].value


def outcome(comm):
    async def run():
        connected, code = await comm.connect(timeout=10)
        hello = await comm.receive_json_from(timeout=10) if connected else None
        # Ends the application either way: one left waiting for a disconnect would be
        # cancelled when async_to_sync closes its loop, which can hang.
        await comm.disconnect()
        return connected, code, hello

    return async_to_sync(run)()


@pytest.mark.django_db(transaction=True)
def test_the_socket_checks_origin_and_session():
    world = build_world()
    bo_client, bo_session = session_of(world.bo)

    # Bo's own browser, on the site's own origin: Bo's seat.
    connected, _, hello = outcome(socket(world.game, cookie=bo_session))
    assert connected and hello["seat"] == 1

    # Another site's page opening a socket with Bo's cookie: refused before any consumer.
    for origin in (b"http://evil.example", b"https://127.0.0.1.evil.example", b"null", None):
        connected, _, _ = outcome(socket(world.game, origin=origin, cookie=bo_session))
        assert not connected, origin

    # No session, a made-up one, and Bo's after logging out: nobody, told to log in.
    for cookie in (None, "not-a-session"):
        connected, code, _ = outcome(socket(world.game, cookie=cookie))
        assert not connected and code == 4401
    bo_client.post(reverse("accounts:logout"))
    connected, code, _ = outcome(socket(world.game, cookie=bo_session))
    assert not connected and code == 4401


@pytest.mark.django_db(transaction=True)
def test_a_banned_players_session_no_longer_opens_the_socket():
    world = build_world()
    _, cy_session = session_of(world.cy)
    assert outcome(socket(world.game, cookie=cy_session))[0]
    moderation.ban(world.cy, world.mo, "cheating")
    connected, code, _ = outcome(socket(world.game, cookie=cy_session))
    assert not connected and code == 4401
