"""The Bot API's published data model: the OpenAPI schema types every key of a seat's view,
every decision, every action and every card as the engine has them (checked against whole
games the engine plays, so that neither can change without the other); readable operation
ids on every route, those added later too; no refusal or description that points into the
repository; JSON answers for paths that are no route; the AsyncAPI document of the streams;
and the pages that explain it all, linked from every page's footer."""

import ast
import json
import re
from pathlib import Path
from random import Random

import jsonschema_rs
import pytest
from django.conf import settings
from django.urls import reverse

from games.actions import account_events, seat_door
from games.api import api, asyncapi, operation_names
from games.api.pages import _json_lines, example_state
from games.engine import Game, Options, cards
from games.engine.game import _ACTIONS
from games.engine.random_moves import random_action
from games.engine.types import SeatView
from games.models import Game as GameRow
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.api.conftest import bot_table

# A path into the repository, as a message must never give one: docs/x.md, games/x.py...
REPO_PATH = re.compile(
    r"(?<![/\w.])(?:docs|games|accounts|lobby|examples|templates|tests|config|clients)/[\w./-]*"
    r"|\b[\w-]+\.(?:md|py)\b"
)
CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)*$")


@pytest.fixture(scope="module")
def schema():
    return api.get_openapi_schema()


def components(schema):
    return schema["components"]["schemas"]


def validator(schema, name):
    """A JSON-schema validator of component `name`, its references resolved in `schema`."""
    root = {"components": schema["components"], "$ref": f"#/components/schemas/{name}"}
    return jsonschema_rs.Draft202012Validator(root)


def played_views(players, stacking, seed, max_steps=3000):
    """Every seat's view and legal actions along a whole random game of the engine."""
    game = Game.new(
        Options(players=players, stacking=stacking, final_card_penalty=True, target_score=None),
        seed,
    )
    rng = Random(seed)
    for _ in range(max_steps):
        for seat in range(players):
            yield game.view(seat), game.legal_actions(seat)
        waiting = game.waiting_on()
        if not waiting:
            return
        seat = waiting[0]
        action = random_action(game, seat, rng)
        assert action is not None
        game.act(seat, action)


# ------------------------------------------------------------------ the typed model


def test_the_view_component_names_every_key_of_the_engines_view(schema):
    view = components(schema)["View"]
    assert set(view["properties"]) == set(SeatView.__annotations__)
    # A seat's view (never a spectator's) has every key.
    assert set(view["required"]) == set(SeatView.__annotations__)
    for name, prop in view["properties"].items():
        shape = components(schema).get(prop.get("$ref", "").rsplit("/", 1)[-1], prop)
        assert prop.get("description") or shape.get("description"), f"view.{name}"


def test_every_view_and_legal_action_of_whole_games_fits_the_schema(schema):
    """Random games at every table size, with stacking and without: each seat's view
    validates against View and each legal action against the oneOf, and every value of
    decision, stage and give_reason the engine used is one the schema lists."""
    view_ok = validator(schema, "View")
    legal_ok = validator(schema, "GameOut")
    props = components(schema)["View"]["properties"]
    seen = {"decision": set(), "stage": set(), "give_reason": set(), "action": set()}
    for players, stacking, seed in [(4, False, 1), (4, True, 2), (6, True, 3), (8, False, 4)]:
        for view, legal in played_views(players, stacking, seed):
            errors = [e.message for e in view_ok.iter_errors(view)]
            assert not errors, (errors[:3], view)
            answer = {
                "game": 1,
                "seat": view["seat"],
                "seq": 1,
                "status": "active",
                "view": view,
                "legal": legal,
                "deadline_at": None,
                "your_turn": bool(legal),
                "site_bot": False,
            }
            errors = [e.message for e in legal_ok.iter_errors(answer)]
            assert not errors, (errors[:3], legal)
            for key in ("decision", "stage", "give_reason"):
                seen[key].add(view[key])
            seen["action"] |= {a["type"] for a in legal}
    listed = {
        key: {v for option in props[key].get("anyOf", [props[key]]) for v in option.get("enum", [])}
        | ({None} if "anyOf" in props[key] else set())
        for key in ("decision", "stage", "give_reason")
    }
    assert listed["decision"] == {"setup", "swap", "give", "forced", "penalty", "turn", None}
    assert listed["stage"] == {"setup", "play", "over"}
    assert listed["give_reason"] == {"half_pass", "tag_in", None}
    for key in ("decision", "stage", "give_reason"):
        assert seen[key] <= listed[key], (key, seen[key] - listed[key])
    # Whole games at four table shapes reach most decisions; the rest are the rule book's.
    assert {"setup", "turn", None} <= seen["decision"]
    assert {"play", "pass", "draw"} <= seen["action"]


def test_the_actions_are_a_oneof_on_type_with_every_engine_action(schema):
    body = components(schema)["DecisionIn"]["properties"]["action"]
    assert body["discriminator"]["propertyName"] == "type"
    mapping = body["discriminator"]["mapping"]
    assert set(mapping) == set(_ACTIONS), "an engine action the schema does not describe"
    assert [o["$ref"] for o in body["oneOf"]] and len(body["oneOf"]) == len(_ACTIONS)
    for kind, ref in mapping.items():
        shape = components(schema)[ref.rsplit("/", 1)[-1]]
        assert shape["properties"]["type"]["const"] == kind
        assert shape.get("description"), f"the {kind} action is not explained"
    play = components(schema)["PlayAction"]
    assert play["required"] == ["type", "card"]
    assert "Wild" in play["properties"]["color"]["description"]
    assert components(schema)["GiveAction"]["properties"]["cards"]["items"] == {
        "$ref": "#/components/schemas/Card"
    }
    # pass_turn is explained honestly: when it is offered.
    assert "nothing left to draw" in components(schema)["PassTurnAction"]["description"]


def test_the_card_component_lists_every_code_and_its_pattern_no_other(schema):
    card = components(schema)["Card"]
    assert card["enum"] == list(cards.CODES) and len(card["enum"]) == 67
    pattern = re.compile(card["pattern"])
    assert all(pattern.match(code) for code in cards.CODES)
    for wrong in ("R0P", "R2PP", "B10", "X1", "RD4", "WD4", "w", "R", "R7 "):
        assert not pattern.match(wrong), wrong
    assert components(schema)["Color"]["enum"] == ["R", "Y", "G", "B"]
    # Every hand, pile and pick in the model is made of cards.
    view = components(schema)["View"]["properties"]
    for key in ("hand", "discard", "received", "gave"):
        assert view[key]["items"] == {"$ref": "#/components/schemas/Card"}, key


def test_numbering_from_zero_is_said_where_seats_and_teams_are(schema):
    for name, key in [("View", "seat"), ("View", "team"), ("GameOut", "seat"), ("SeatOut", "seat")]:
        text = components(schema)[name]["properties"][key]["description"]
        assert "from 0" in text and "+ 1" in text, (name, key)
    ranking = components(schema)["GameOver"]["properties"]["ranking"]
    assert "[team, rank]" in ranking["description"]


# ------------------------------------------------------------------ the schema itself


def test_every_route_has_a_readable_unique_operation_id(schema):
    """Over all routes, those other parts of the API add later included."""
    ids = [op["operationId"] for methods in schema["paths"].values() for op in methods.values()]
    assert len(ids) == len(set(ids)), ids
    for op_id in ids:
        assert CAMEL.match(op_id), op_id
        assert "api" not in op_id.lower() and "_" not in op_id, op_id
    by_route = {
        (method, path): op["operationId"]
        for path, methods in schema["paths"].items()
        for method, op in methods.items()
    }
    assert by_route[("get", "/api/bot/account")] == "getAccount"
    assert by_route[("get", "/api/bot/invitations")] == "listInvitations"
    assert by_route[("post", "/api/bot/invitations/{invitation_id}/accept")] == "acceptInvitation"
    assert by_route[("get", "/api/bot/games/{game_id}")] == "getGame"
    assert by_route[("post", "/api/bot/games/{game_id}/decisions")] == "createDecision"


def test_operation_ids_read_well_for_routes_yet_to_come():
    assert operation_names("GET", "/api/bot/games/{game_id}/export")[0] == "getGameExport"
    assert operation_names("POST", "/api/bot/tables")[0] == "createTable"
    assert operation_names("POST", "/api/bot/tables/{id}/start")[0] == "startTable"
    assert operation_names("DELETE", "/api/bot/tables/{id}/seats/{seat}") == (
        "deleteSeat",
        "deleteTableSeat",
    )
    assert operation_names("POST", "/api/bot/tables/{id}/site-bots")[0] == "createSiteBot"


def test_the_schema_has_servers_and_points_to_the_sites_docs_never_the_repository(schema):
    assert schema["servers"] and schema["servers"][0]["url"] == "/"
    assert "/bots/docs/" in schema["info"]["description"]
    assert "/api/bot/asyncapi.json" in schema["info"]["description"]
    texts = _strings(schema) + _strings(asyncapi.document("testserver"))
    named = [t for t in texts if REPO_PATH.search(t)]
    assert not named, named


def _strings(node):
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


# The modules whose strings a program may be answered: the API, its stream, the seat door,
# the lobby's services it seats through, the tokens and the account's events.
MESSAGE_MODULES = [
    "games/api",
    "games/actions/seat_door.py",
    "games/actions/decisions.py",
    "games/actions/account_events.py",
    "games/act_frames.py",
    "games/bot_stream.py",
    "games/account_stream.py",
    "lobby/services.py",
    "accounts/bot_tokens.py",
]


def _message_strings(path):
    """The string constants of a module but its docstrings: what it may say to a caller."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_message_of_the_api_names_a_repository_path():
    base = Path(settings.BASE_DIR)
    files = []
    for name in MESSAGE_MODULES:
        found = base / name
        if found.is_dir():
            # Not the pages for bot authors: they name the example's file on purpose.
            files += [f for f in sorted(found.rglob("*.py")) if f.name != "pages.py"]
        elif found.exists():
            files.append(found)
    assert len(files) > 5
    named = [
        (str(path.relative_to(base)), text)
        for path in files
        for text in _message_strings(path)
        # A logger's words and a module's own name are for the site's operators.
        if REPO_PATH.search(text) and not text.startswith(("games.", "%"))
    ]
    assert not named, named
    assert "/bots/docs/model/#actions" in seat_door.NOT_A_MOVE["program"]


# ------------------------------------------------------------------ refusals in JSON


@pytest.mark.django_db
def test_a_path_that_is_no_route_is_a_json_404_pointing_to_the_docs(client):
    for path in ("/api/bot/nope", "/api/bot/", "/api/bot/account/", "/api/bot/games/1/x/y"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response["Content-Type"].startswith("application/json"), path
        assert "/bots/docs/api/" in response.json()["detail"]


@pytest.mark.django_db
def test_a_method_the_route_does_not_take_is_a_json_405(client):
    response = client.delete("/api/bot/account")
    assert response.status_code == 405
    assert response["Content-Type"].startswith("application/json")
    assert response["Allow"] == "GET"
    assert "DELETE is not allowed" in response.json()["detail"]


@pytest.mark.django_db
def test_an_action_of_no_shape_is_a_400_in_words_and_moves_nothing(robo, robo_api):
    game = bot_table(robo)
    before = GameRow.objects.get(pk=game.pk).last_seq
    for action in (
        "play B7",
        ["play"],
        {"type": "fly"},
        {"type": "play", "card": "B7", "extra": 1},
        {"card": "B7"},
        None,
    ):
        response = robo_api.post(f"/games/{game.pk}/decisions", {"action": action, "key": "k"})
        assert response.status_code == 400, (action, response.status_code)
        assert response.json()["detail"], action
    assert "/bots/docs/model/#actions" in response.json()["detail"]
    assert GameRow.objects.get(pk=game.pk).last_seq == before


@pytest.mark.django_db
def test_a_setup_pick_changes_with_a_new_key_and_not_with_the_same_one(robo, robo_api):
    """What the model page says of a pick: a retry with its key keeps it, a new key
    replaces it until the last seat has picked."""
    game = bot_table(robo)
    answer = robo_api.get(f"/games/{game.pk}").json()
    assert answer["view"]["decision"] == "setup"
    first, second = answer["legal"][0], answer["legal"][-1]
    assert first["card"] != second["card"]
    url = f"/games/{game.pk}/decisions"
    assert robo_api.post(url, {"action": first, "key": "pick-1"}).status_code == 200
    assert robo_api.get(f"/games/{game.pk}").json()["view"]["my_pick"] == first["card"]
    again = robo_api.post(url, {"action": first, "key": "pick-1"})
    assert again.status_code == 200 and again.json()["replayed"]
    changed = robo_api.post(url, {"action": second, "key": "pick-2"})
    assert changed.status_code == 200, changed.content
    assert robo_api.get(f"/games/{game.pk}").json()["view"]["my_pick"] == second["card"]
    # With the seq of the state it was chosen on, a second pick is told it is stale.
    stale = robo_api.post(url, {"action": first, "key": "pick-3", "seq": answer["seq"]})
    assert stale.status_code == 409, stale.content
    assert robo_api.get(f"/games/{game.pk}").json()["view"]["my_pick"] == second["card"]


# ------------------------------------------------------------------ the streams' document


@pytest.mark.django_db
def test_the_asyncapi_document_names_every_frame_event_and_close_code(client):
    response = client.get("/api/bot/asyncapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    document = json.loads(response.content)
    assert document["asyncapi"].startswith("3.")
    game = document["channels"]["gameStream"]
    assert game["address"] == "/api/bot/games/{game_id}/stream"
    assert set(game["messages"]) == {"state", "act", "ok", "error", "closing"}
    assert set(game["x-close-codes"]) == {"4401", "4404", "4410", "4429", "4503"}
    assert document["channels"]["accountStream"]["address"] == "/api/bot/events/stream"
    schemas = document["components"]["schemas"]
    assert set(schemas["AccountEvent"]["properties"]["type"]["enum"]) == set(account_events.KINDS)
    for frame in ("state", "act", "ok", "error", "closing"):
        payload = document["components"]["messages"][frame]["payload"]["$ref"]
        shape = schemas[payload.rsplit("/", 1)[-1]]
        assert shape["properties"]["type"]["const"] == frame
    # The state frame is the HTTP answer's model: every field of GET /games/{id}.
    game_out = api.get_openapi_schema()["components"]["schemas"]["GameOut"]
    assert set(game_out["properties"]) < set(schemas["StateFrame"]["properties"])
    assert schemas["OkFrame"]["required"] == ["type", "seq", "key", "replayed"]
    assert _unresolved(document, document) == []


def _unresolved(node, document):
    """The `$ref`s of `node` that do not point to something in `document`."""
    found = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = document
            for part in ref.removeprefix("#/").split("/"):
                target = target.get(part) if isinstance(target, dict) else None
            if target is None:
                found.append(ref)
        for value in node.values():
            found += _unresolved(value, document)
    elif isinstance(node, list):
        for value in node:
            found += _unresolved(value, document)
    return found


# ------------------------------------------------------------------ the pages


DOC_PAGES = ["api_docs", "api_docs_reference", "api_docs_stream", "api_docs_model"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", DOC_PAGES)
def test_each_docs_page_renders_and_the_footer_links_every_one(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    page = response.content.decode()
    footer = page[page.index('<footer class="site-footer">') :]
    for other in DOC_PAGES:
        assert f'href="{reverse(other)}"' in footer, other
    assert 'href="/api/bot/openapi.json"' in footer
    assert 'href="/api/bot/asyncapi.json"' in footer


def _text(client, name):
    return " ".join(client.get(reverse(name)).content.decode().split())


@pytest.mark.django_db
def test_the_quick_start_gives_curl_examples_and_the_local_sandbox(client):
    page = _text(client, "api_docs")
    assert 'curl -s -H "Authorization: Bearer $TOKEN" $WCT/api/bot/account' in page
    assert "/api/bot/games/34/decisions" in page
    assert "<code>BOT_PACE_MS=0 API_RATE_LIMIT=1000 make run</code>" in page
    assert "local sandbox" in page


@pytest.mark.django_db
def test_the_reference_lists_every_route_of_the_schema(client, schema):
    page = _text(client, "api_docs_reference").replace("<wbr>", "")
    for path, methods in schema["paths"].items():
        for op in methods.values():
            assert f'id="{op["operationId"]}"' in page, op["operationId"]
            assert path in page


@pytest.mark.django_db
def test_the_model_page_explains_every_view_key_decision_action_and_card(client, schema):
    page = _text(client, "api_docs_model")
    for key in SeatView.__annotations__:
        assert f"<code>{key}</code>" in page, key
    for decision in ("setup", "swap", "give", "forced", "penalty", "turn", "null"):
        assert f'id="decision-{decision}"' in page, decision
    for kind in _ACTIONS:
        assert f'id="action-{kind}"' in page, kind
    for code in cards.CODES:
        assert f">{code}</code>" in page, code
    assert "it can be changed" in page and "numbered from 0" in page


@pytest.mark.django_db
def test_the_stream_page_lists_every_frame_event_and_close_code(client):
    page = _text(client, "api_docs_stream")
    for frame in ("state", "act", "ok", "error", "closing"):
        assert f'id="frame-{frame}"' in page, frame
    for kind in account_events.KINDS:
        assert f"<code>{kind}</code>" in page, kind
    for code in asyncapi.CLOSE_CODES:
        assert f"<code>{code}</code>" in page, code


@pytest.mark.django_db
def test_the_account_events_fit_their_published_schema(robo):
    """An event as the account's streams send it, against AccountEvent of both documents."""
    ana = make_user("ana")
    table = lobby.create_table(ana, players=4)
    lobby.invite_bot(table.pk, ana, 1, "robo")
    game = bot_table(robo)
    rows, _ = account_events.read(robo.pk, 0)
    messages = [account_events.as_message(row) for row in rows]
    assert {"invitation", "game_started"} <= {m["type"] for m in messages}
    schema = api.get_openapi_schema()
    check = validator(schema, "AccountEvent")
    for message in messages:
        errors = [e.message for e in check.iter_errors(message)]
        assert not errors, (errors, message)
        assert message["game"] in (table.pk, game.pk)
    assert (
        schema["components"]["schemas"]["AccountEvent"]
        == (asyncapi.component_schemas()["AccountEvent"])
    )


def test_the_model_pages_example_is_a_state_the_schema_accepts(schema):
    example = example_state()
    errors = [e.message for e in validator(schema, "GameOut").iter_errors(example)]
    assert not errors, errors
    assert json.loads(_json_lines(example)) == example
