"""Paths no route can hold: a NUL or another control character, bytes that are not UTF-8,
and path parts of thousands of characters, at every URL of the URL conf.

A NUL in a path part reached the views, and PostgreSQL refuses NUL in a text query:
/invite/%00/ and /players/%00/ were a 500. config.middleware answers any path with a
control character or bytes that are not UTF-8 with a 400 in words, before any view. A path
longer than any of ours (config.middleware.MAX_PATH) is a 414, in words too.
The random side of this (other scripts, mixtures) is in test_bad_input_http.py.
"""

import re
from urllib.parse import unquote

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.urls import reverse

from config.asgi import application
from config.middleware import MAX_PATH, TOO_LONG, UNREADABLE
from tests.security.world import build_world, fingerprint, readable, routes

NUL_PATHS = [
    "/invite/%00/",
    "/players/%00/",
    "/players/%00/history/",
    "/players/ana%00/",
    "/accounts/confirm/%00/",
]
# A stray continuation byte, a lone lead byte, a cut-off sequence, an overlong "/", a
# surrogate, a code point beyond U+10FFFF: none of them UTF-8.
NOT_UTF8 = ["%FF", "%80", "%C3%28", "%E2%82", "%C0%AF", "%ED%A0%80", "%F4%90%80%80"]
CONTROL = ["%00", "%01", "%0A", "%1B", "%7F", "%C2%85"]


def filled(route, part):
    """The route with every word and number in it replaced by `part` (sent as is)."""
    return "/" + re.sub(r"<(?:\w+:)?\w+>", lambda m: part, route)


def routes_with_parts():
    """Every route with a word or a number in its path (the admin's too)."""
    return [route for _, route, _ in routes() if "<" in route and "(?P<" not in route]


def refused_in_words(response):
    return (
        response.status_code == 400
        and readable(response)
        and UNREADABLE in response.content.decode()
    )


@pytest.mark.django_db
def test_a_nul_in_a_query_parameter_is_a_400_in_words_not_a_server_error(client):
    # An admin list filtered by a NUL reached PostgreSQL, which refuses NUL in text.
    world = build_world()
    before = fingerprint()
    client.force_login(world.mo)
    changelist = reverse("admin:games_game_changelist")
    for target, params in (
        (changelist, {"status": "\x00"}),
        (changelist, {"q": "a\x00b"}),
        (changelist, {"\x00": "1"}),
        (reverse("lobby:index"), {"p": "\x00"}),
    ):
        response = client.get(target, params)
        assert refused_in_words(response), (target, params, response.status_code)
    # Without the NUL the same list answers.
    assert client.get(changelist, {"status": "active"}).status_code == 200
    assert fingerprint() == before


@pytest.mark.django_db
@pytest.mark.parametrize("target", NUL_PATHS)
def test_a_nul_in_a_path_is_a_400_in_words_not_a_server_error(target, client):
    world = build_world()
    before = fingerprint()
    for user in (None, world.bo, world.mo):
        client.logout()
        if user:
            client.force_login(user)
        for method in (client.get, client.post):
            response = method(target)
            assert refused_in_words(response), (target, user, response.status_code)
    assert fingerprint() == before


@pytest.mark.django_db
def test_every_route_refuses_a_control_character_or_bytes_that_are_not_utf8_in_words(client):
    world = build_world()
    before = fingerprint()
    targets = [
        filled(route, "ana" + bad) for route in routes_with_parts() for bad in (*CONTROL, *NOT_UTF8)
    ]
    targets += ["/%00", "/%FF/", "/admin/%00/", "/static/%00", "/history/%0A"]
    assert len(targets) > 200
    for user in (None, world.bo, world.mo):
        client.logout()
        if user:
            client.force_login(user)
        for target in targets:
            response = client.get(target)
            assert refused_in_words(response), (target, user, response.status_code)
    assert client.post(targets[0]).status_code == 400
    assert fingerprint() == before


@pytest.mark.django_db
def test_a_path_part_of_ten_thousand_characters_is_refused_as_too_long_at_every_route(client):
    """Before any view: the log-in redirect would carry it in `next` (a security error in
    Django's log beyond 16 KB), a view would look it up."""
    world = build_world()
    before = fingerprint()
    long_parts = ["a" * 10_000, "9" * 10_000, "%E2%99%A0" * 10_000]
    for user in (None, world.bo, world.mo):
        client.logout()
        if user:
            client.force_login(user)
        for route in routes_with_parts():
            for part in long_parts:
                for method in (client.get, client.post):
                    response = method(filled(route, part))
                    assert response.status_code == 414, (route, part[:5], user)
                    assert readable(response) and TOO_LONG in response.content.decode()
    assert fingerprint() == before


@pytest.mark.django_db
def test_a_path_just_within_the_limit_is_answered_by_its_route(client):
    client.force_login(build_world().bo)
    near = "/players/" + "a" * (MAX_PATH - len("/players//")) + "/"
    assert len(near) == MAX_PATH
    assert client.get(near).status_code == 404
    assert client.get(near.replace("/players/", "/players/a")).status_code == 414


def as_daphne_sends(raw_path):
    """An HTTP scope as Daphne builds it: the path decoded with errors="replace" (bytes that
    are not UTF-8 become U+FFFD), the bytes as sent in raw_path."""
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "path": unquote(raw_path),
        "raw_path": raw_path.encode("ascii"),
        "root_path": "",
        "scheme": "http",
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }


async def asgi_get(raw_path):
    communicator = ApplicationCommunicator(application, as_daphne_sends(raw_path))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=10)
    body = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await communicator.wait(timeout=10)
    return start["status"], body.decode(errors="replace")


# Transactional: Django's ASGI handler closes the database connection after each request,
# which a test inside a transaction would not survive.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "raw_path",
    [
        "/invite/%00/",
        "/players/%FF/",
        "/players/%ED%A0%80/",
        "/players/%EF%BF%BD/history/",
        "/games/1%00/act/",
    ],
)
def test_through_the_asgi_application_as_daphne_decodes_paths(raw_path):
    build_world()
    before = fingerprint()
    status, body = async_to_sync(asgi_get)(raw_path)
    assert status == 400 and UNREADABLE in body, (raw_path, status)
    assert fingerprint() == before


@pytest.mark.django_db(transaction=True)
def test_a_path_in_another_script_still_finds_its_page(client):
    world = build_world()
    world.ed.username = "édouard_ß"
    world.ed.save(update_fields=["username"])
    client.force_login(world.bo)
    assert client.get("/players/%C3%A9douard_%C3%9F/").status_code == 200
    assert client.get("/players/%C3%A9douard_%E2%99%A0/").status_code == 404
    # As Daphne decodes it: no log-in there, so the log-in page, not a refusal.
    status, _ = async_to_sync(asgi_get)("/players/%C3%A9douard_%C3%9F/history/")
    assert status == 302
