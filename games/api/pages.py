"""The pages for people writing bots, at stable URLs: /bots/docs/ (bot accounts, tokens and a
quick start in curl), /bots/docs/api/ (every route), /bots/docs/stream/ (the websockets'
messages), /bots/docs/model/ (cards, the view, decisions, actions, numbering); and the
AsyncAPI document at /api/bot/asyncapi.json.

The reference pages are made from the served OpenAPI schema and the AsyncAPI document, so
that what the pages say and what the API answers cannot drift apart.
"""

import json
import re
from functools import lru_cache

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt

from games.api import api, asyncapi, not_allowed, schemas
from games.engine import Game, Options, cards

EXAMPLE = settings.BASE_DIR / "examples" / "random_bot.py"
METHODS = ("get", "post", "put", "patch", "delete")


@lru_cache(maxsize=1)
def example_code():
    # Read from the repository's file, so that the page always shows the code that CI runs.
    return EXAMPLE.read_text()


def _limits():
    return {
        "timeouts": settings.TIMEOUTS_BEFORE_BOT,
        "rate_limit": settings.API_RATE_LIMIT,
        "rate_window": settings.API_RATE_WINDOW,
        "streams_limit": settings.API_STREAMS_PER_BOT,
        "tokens_per_day": settings.API_TOKENS_PER_DAY,
    }


def _origin(request):
    return f"{request.scheme}://{request.get_host()}"


# ------------------------------------------------------------------ a JSON schema in words


def prose(text):
    """A schema's description as HTML: escaped, its `code` spans set as code."""
    return mark_safe(re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text or "")))


def _ref_name(node):
    return node["$ref"].rsplit("/", 1)[-1]


def type_text(node):
    """A JSON schema's type as a reader says it: `integer`, `array of Card`, `Card or null`,
    `"setup" | "swap"`."""
    if not isinstance(node, dict) or not node:
        return "any"
    if "$ref" in node:
        return _ref_name(node)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(type_text(n) for n in node[key])
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type", "any")
    if kind == "array":
        return "array of " + type_text(node.get("items", {}))
    if kind == "string" and node.get("format") == "date-time":
        return "date-time"
    if kind == "object" and "additionalProperties" in node:
        extra = node["additionalProperties"]
        if isinstance(extra, dict):
            return "object of " + type_text(extra)
    return kind


def fields(component):
    """The rows of a component's table: name, type, whether it is always there, and what
    it means."""
    required = set(component.get("required", ()))
    return [
        {
            "name": name,
            "type": type_text(prop),
            "required": name in required,
            "description": prose(prop.get("description", "")),
        }
        for name, prop in component.get("properties", {}).items()
    ]


def _used_component(node):
    """The component a request or an answer is, if it names one (a list of them too)."""
    if not isinstance(node, dict):
        return None
    if "$ref" in node:
        return _ref_name(node)
    if node.get("type") == "array" and isinstance(node.get("items"), dict):
        return _used_component(node["items"])
    for key in ("anyOf", "oneOf"):
        for option in node.get(key, ()):
            found = _used_component(option)
            if found:
                return found
    return None


def operations(schema):
    """Every operation of the OpenAPI schema, in its order, as the reference page lists
    them."""
    components = schema.get("components", {}).get("schemas", {})
    found = []
    for path, methods in schema["paths"].items():
        for method in METHODS:
            op = methods.get(method)
            if op is None:
                continue
            body = (op.get("requestBody", {}).get("content", {}).get("application/json", {})).get(
                "schema"
            )
            body_name = _used_component(body)
            answers = []
            for status, answer in op.get("responses", {}).items():
                content = answer.get("content", {})
                media = next(iter(content), None)
                shape = content.get(media, {}).get("schema") if media else None
                answers.append(
                    {
                        "shape": _used_component(shape),
                        "status": str(status),
                        "type": type_text(shape) if shape else "",
                        "media": media or "",
                        "description": answer.get("description", ""),
                    }
                )
            answers.sort(key=lambda a: a["status"])
            ok_name = next((a["shape"] for a in answers if a["status"] < "300"), None)
            found.append(
                {
                    "id": op.get("operationId", ""),
                    "method": method.upper(),
                    "path": path,
                    # Where a long path may wrap on a phone: after a slash, not mid-word.
                    "path_wrapped": mark_safe(escape(path).replace("/", "/<wbr>")),
                    "summary": op.get("summary", ""),
                    "description": prose(op.get("description", "")),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p.get("in", ""),
                            "required": p.get("required", False),
                            "type": type_text(p.get("schema", {})),
                            "description": p.get("description")
                            or p.get("schema", {}).get("description", ""),
                        }
                        for p in op.get("parameters", ())
                    ],
                    "body": body_name,
                    "body_fields": fields(components.get(body_name, {})) if body_name else [],
                    "answers": [a for a in answers if a["status"] < "400"],
                    "refused": [a["status"] for a in answers if a["status"] >= "400"],
                    "ok": ok_name,
                    "ok_fields": fields(components.get(ok_name, {})) if ok_name else [],
                }
            )
    return found


# ------------------------------------------------------------------ the pages


def quick_start(request):
    return render(
        request,
        "api/docs.html",
        {"example": example_code(), "origin": _origin(request), **_limits()},
    )


def reference(request):
    schema = api.get_openapi_schema()
    return render(
        request,
        "api/reference.html",
        {"operations": operations(schema), "origin": _origin(request), **_limits()},
    )


def _message_rows(document):
    components = document["components"]["schemas"]
    rows = []
    for name, message in document["components"]["messages"].items():
        component = _ref_name(message["payload"])
        rows.append(
            {
                "name": name,
                "title": message["title"],
                "summary": message["summary"],
                "fields": fields(components[component]),
                "description": prose(components[component].get("description", "")),
            }
        )
    return rows


def stream(request):
    document = asyncapi.document(request.get_host(), request.is_secure())
    messages = {row["name"]: row for row in _message_rows(document)}
    return render(
        request,
        "api/stream.html",
        {
            "game_messages": [messages[n] for n in ("state", "act", "ok", "error", "closing")],
            "event": messages["accountEvent"],
            "event_types": list(asyncapi.account_events.KINDS),
            "close_codes": sorted(asyncapi.CLOSE_CODES.items()),
            "origin": _origin(request),
            **_limits(),
        },
    )


def _card_rows():
    rows = []
    for code in cards.CODES:
        rows.append(
            {
                "code": code,
                "name": cards.card_name(code),
                "points": cards.card_points(code),
                "copies": cards.DECK.count(code),
                "color": cards.COLOR[code] or "",
            }
        )
    return rows


def example_state():
    """A seat's state at the start of a seeded game, as GET /api/bot/games/{id} answers it
    (but the seat's condition fields): its view and legal actions made by the engine, so
    that the example is always a true one."""
    game = Game.new(Options(players=4), 7)
    return {
        "game": 34,
        "seat": 0,
        "seq": 1,
        "status": "active",
        "view": game.view(0),
        "legal": game.legal_actions(0)[:3],
        "deadline_at": "2026-01-01T12:00:30+00:00",
        "your_turn": True,
        "site_bot": False,
    }


def _json_lines(value, nested=("view",), indent="  "):
    """`value` as JSON with one key a line (and the keys of those in `nested` too), lists
    kept on one line: an example a reader can scan."""
    lines = []
    for key, item in value.items():
        if key in nested and isinstance(item, dict):
            inner = _json_lines(item, (), indent + "  ").splitlines()
            text = inner[0] + "\n" + "\n".join(inner[1:-1]) + "\n" + indent + "}"
        else:
            text = json.dumps(item)
        lines.append(f"{indent}{json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n" + indent[:-2] + "}"


def model(request):
    schema = api.get_openapi_schema()
    components = schema["components"]["schemas"]
    actions = []
    for name in (
        "PlayAction",
        "DrawAction",
        "PassTurnAction",
        "TakePenaltyAction",
        "PassAction",
        "GiveAction",
        "ConcedeAction",
    ):
        component = components[name]
        kind = component["properties"]["type"]["const"]
        actions.append(
            {
                "name": name,
                "type": kind,
                "description": prose(component.get("description", "")),
                "fields": fields(component),
            }
        )
    view = components["View"]
    return render(
        request,
        "api/model.html",
        {
            "cards": _card_rows(),
            "card_pattern": schemas.CARD_PATTERN,
            "view_fields": fields(view),
            "decisions": view["properties"]["decision"],
            "round_result": fields(components["RoundResult"]),
            "game_over": fields(components["GameOver"]),
            "rule_options": fields(components["RuleOptions"]),
            "game_fields": fields(components["GameOut"]),
            "actions": actions,
            "example": _json_lines(example_state()),
            "origin": _origin(request),
            **_limits(),
        },
    )


@csrf_exempt
def asyncapi_json(request):
    """The AsyncAPI document of the streams, for anyone (as the OpenAPI schema is). Any
    method but GET and HEAD is a JSON 405, as on the API's routes; exempt from the CSRF
    check (it reads no session and changes nothing) so that a program's POST reads that,
    not the CSRF page."""
    if request.method not in ("GET", "HEAD"):
        return not_allowed(request, "GET")
    document = asyncapi.document(request.get_host(), request.is_secure())
    return JsonResponse(document, json_dumps_params={"indent": 1})
