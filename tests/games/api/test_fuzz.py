"""Schemathesis fuzzes every route of the Bot API from the schema the site serves: inputs
that fit the schema and inputs that do not, with a valid token, at random ids and at the
bot's real game, invitation and table. No answer is a server error, every answer is one the
schema describes, and a refused request changes nothing in the database."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts import bot_tokens
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.api.conftest import bot_table, run_site_bots
from tests.games.api.test_schema import REPO_PATH
from tests.security.world import fingerprint

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
FUZZ = hypothesis_settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


@pytest.fixture
def no_connection_closing():
    """The WSGI handler closes the database connection at the end of each request, which
    would end the test's transaction; Django's own test client turns that off the same way."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(settings, robo, no_connection_closing):
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    settings.API_RATE_LIMIT = 10**6  # tested on its own (test_tokens.py)
    ana = make_user("ana")
    game = bot_table(robo)
    run_site_bots(game)
    table = lobby.create_table(ana, players=4, bot_accounts=True)
    invited = lobby.create_table(ana, players=4)
    invitation = lobby.invite_bot(invited.pk, ana, 2, "robo")
    _, raw = bot_tokens.issue(robo, "fuzz")
    schema = schemathesis.openapi.from_wsgi("/api/bot/openapi.json", get_wsgi_application())
    real = {"game_id": [game.pk, table.pk], "invitation_id": [invitation.pk]}
    return schema, raw, real


def operations(schema):
    return [
        (path, method) for path, methods in schema.raw_schema["paths"].items() for method in methods
    ]


def test_the_schema_lists_every_route():
    """Version 1 changes only by adding: today's routes stay (others may join them)."""
    from games.api import api

    paths = set(api.get_openapi_schema()["paths"])
    assert paths >= {
        "/api/bot/account",
        "/api/bot/invitations",
        "/api/bot/invitations/{invitation_id}/accept",
        "/api/bot/tables",
        "/api/bot/tables/{game_id}/join",
        "/api/bot/seats",
        "/api/bot/games/{game_id}",
        "/api/bot/games/{game_id}/decisions",
    }


def _attack(strategy, headers, tried, operation):
    """Fuzzes one operation with `strategy`; each status code answered goes into
    `tried[operation]`."""
    state = {"before": fingerprint()}

    @FUZZ
    @given(case=strategy)
    def attack(case):
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        tried.setdefault(operation, set()).add(response.status_code)
        if response.status_code >= 400:
            assert fingerprint() == state["before"], (
                case.path_parameters,
                case.body,
                response.status_code,
            )
            detail = response.json()["detail"]
            # Words for the program, and where it points, a page of the site.
            assert detail and not REPO_PATH.search(detail), detail
        else:  # a request that went through (a legal move, a seat taken) may change
            state["before"] = fingerprint()

    attack()


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_every_route_survives_fuzzing_and_refusals_change_nothing(world, mode):
    schema, raw, real = world
    headers = {"Authorization": f"Bearer {raw}"}
    tried = {}
    for path, method in operations(schema):
        operation = schema[path][method.upper()]
        names = [p for p in ("game_id", "invitation_id") if "{" + p + "}" in path]
        targets = [None] + [{name: value} for name in names for value in real[name]]
        for fixed in targets:
            strategy = (
                operation.as_strategy(mode, path_parameters=fixed)
                if fixed
                else operation.as_strategy(mode)
            )
            _attack(strategy, headers, tried, (path, method))
    assert set(tried) == set(operations(schema))
    if mode == GenerationMode.NEGATIVE:
        assert all(codes - {200} for codes in tried.values() if codes != {200}), tried


def test_without_a_token_every_route_is_a_401(world):
    schema, _, _ = world
    before = fingerprint()
    for path, method in operations(schema):
        if path.endswith("openapi.json"):
            continue
        _refused_anonymously(path, schema[path][method.upper()].as_strategy())
    assert fingerprint() == before


def _refused_anonymously(path, strategy):
    @hypothesis_settings(
        max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(case=strategy)
    def anonymous(case):
        response = case.call()
        assert response.status_code == 401, (path, response.status_code)

    anonymous()
