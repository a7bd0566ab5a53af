"""The Bot API: an HTTP JSON API for programs that play a bot account's seats, described by
the OpenAPI schema it serves at /api/bot/openapi.json and explained at /bots/docs/.

An entry point like the views and the consumers: it reads through the store and the
presenters and writes only through games.actions (the one door), so a bot's move is
judged and timed exactly like a click.
"""

import re
from functools import wraps
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import Http404, JsonResponse
from django.urls import URLPattern
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI

from games.api import asyncapi, auth, schemas
from games.api.routes import router

DESCRIPTION = """\
Play a bot account's seats at Wild Cards Teams tables: find invitations and open tables, \
read what a seat sees, and send its decisions.

- Quick start (curl): /bots/docs/
- This API explained route by route: /bots/docs/api/
- The data model (cards, the view, decisions, actions, numbering): /bots/docs/model/
- The streams (a seat's websocket, the account's events): /bots/docs/stream/, described \
machine-readably by the AsyncAPI document /api/bot/asyncapi.json

Every request carries `Authorization: Bearer <token>` (a bot account's API token). Every \
refusal is JSON `{"detail": "..."}` in words. Seats and teams are numbered from 0 (the \
table's page shows them from 1).

Versioning: this is version 1, and it changes only by adding (routes, fields, frames, \
close codes); a client should ignore a field it does not know."""

# How an operation id is made from a route (see BotApi.get_openapi_operation_id).
_VERB = {"GET": "get", "POST": "create", "PUT": "replace", "PATCH": "update", "DELETE": "delete"}


def _camel(words):
    parts = [p for w in words for p in re.split(r"[-_]", w) if p]
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:]) if parts else ""


def _singular(word):
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def operation_names(method, path):
    """(short, long) readable ids of `method` on `path` (ninja's `{param}` notation), e.g.
    GET /games/{id} getGame, GET /invitations listInvitations, POST /invitations/{id}/accept
    acceptInvitation, POST /tables createTable, DELETE /tables/{id}/seats/{seat}
    deleteSeat (long: deleteTableSeat). The long one is used where short ones collide."""
    segments = [s for s in path.strip("/").split("/") if s]
    if segments[:2] == ["api", "bot"]:
        segments = segments[2:]
    nouns = []  # (word, names one item)
    for i, seg in enumerate(segments):
        if seg.startswith("{"):
            continue
        one = i + 1 < len(segments) and segments[i + 1].startswith("{")
        nouns.append((seg, one))
    if not nouns:
        return _camel([_VERB.get(method, method.lower()), "root"]), ""
    last, last_is_one = nouns[-1]
    parents = [_singular(w) for w, _ in nouns[:-1]]
    after_item = len(segments) > 1 and segments[-2].startswith("{")
    plural = last.endswith("s") and not last_is_one
    if method == "POST" and after_item and not plural:
        # An action on one item: POST /invitations/{id}/accept is acceptInvitation.
        return _camel([last, *parents[-1:]]), _camel([last, *parents])
    if method == "GET" and plural:
        return _camel(["list", last]), _camel(["list", *parents, last])
    verb = _VERB.get(method, method.lower())
    noun = last if not plural and not last_is_one else _singular(last)
    if after_item and not plural and not last_is_one:
        # A part of one item: GET /games/{id}/export is getGameExport.
        return _camel([verb, *parents[-1:], noun]), _camel([verb, *parents, noun])
    return _camel([verb, noun]), _camel([verb, *parents, noun])


def _json_refusal(view):
    """`view` with Django's and ninja's plain answers for no such route (an HTML 404, a bare
    405) turned into the API's JSON refusals."""

    def answer(request, response):
        if response.status_code == 405 and not response.get("Content-Type", "").startswith(
            "application/json"
        ):
            return not_allowed(request, response.get("Allow", ""))
        return response

    if iscoroutinefunction(view):

        async def wrapped_async(request, *args, **kwargs):
            try:
                return answer(request, await view(request, *args, **kwargs))
            except Http404:
                return not_found(request)

        wrapped = wraps(view)(wrapped_async)
        return markcoroutinefunction(wrapped)

    @wraps(view)
    def wrapped_sync(request, *args, **kwargs):
        try:
            return answer(request, view(request, *args, **kwargs))
        except Http404:
            return not_found(request)

    return wrapped_sync


NOT_FOUND = (
    "There is no such route in the Bot API: see /bots/docs/api/ for its routes "
    "(or /api/bot/openapi.json)."
)


@csrf_exempt
def not_found(request, exception=None):
    """A JSON 404 for a path under /api/bot/ that is no route (config/urls.py sends every
    such path here): a program gets words it can read, not the site's HTML page. Exempt
    from the CSRF check, as the API's routes are (ninja's): it reads no session and changes
    nothing, and a program's POST to a wrong path should read "no such route", not the
    CSRF page."""
    return JsonResponse({"detail": NOT_FOUND}, status=404)


def not_allowed(request, allowed):
    response = JsonResponse(
        {
            "detail": f"{request.method} is not allowed here: this route takes "
            f"{allowed or 'other methods'}. See /bots/docs/api/."
        },
        status=405,
    )
    if allowed:
        response["Allow"] = allowed
    return response


class BotApi(NinjaAPI):
    """The Bot API's NinjaAPI: readable operation ids for every route, the data model's
    shared components and `servers` in the schema, JSON answers for no such route."""

    def get_openapi_operation_id(self, operation):
        names = {}  # id(operation) -> (short, long)
        for bound in self._get_bound_routers():
            for path, path_view in bound.path_operations.items():
                full = "/" + "/".join(p.strip("/") for p in (bound.prefix, path) if p.strip("/"))
                for op in path_view.operations:
                    names[id(op)] = operation_names(op.methods[0], full)
        short, long = names.get(id(operation), (operation.view_func.__name__, ""))
        taken = [s for key, (s, _) in names.items() if key != id(operation)]
        return long if long and short in taken else short

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        # Relative: the site that serves this document; every path below is absolute.
        schema["servers"] = [{"url": "/", "description": "This site (paths start /api/bot/)."}]
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(schemas.COMPONENTS)
        # Each line of GET /api/bot/events (NDJSON) is one, as on the account's stream.
        components["AccountEvent"] = asyncapi.component_schemas()["AccountEvent"]
        for key in ("paths", "components"):
            schema[key] = schemas.with_components(schema[key])
        return schema

    @property
    def urls(self):
        patterns, app_name, namespace = super().urls
        wrapped = [
            URLPattern(p.pattern, _json_refusal(p.callback), p.default_args, p.name)
            if isinstance(p, URLPattern)
            else p
            for p in patterns
        ]
        return wrapped, app_name, namespace


api = BotApi(
    title="Wild Cards Teams Bot API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="bot_api",
    # Ninja's docs page loads Swagger UI from a CDN, which the site's
    # Content-Security-Policy forbids; the site documents the API itself (/bots/docs/).
    docs_url=None,
    auth=auth.BotToken(),
)
auth.install_error_handlers(api)
api.add_router("/", router)


def schema() -> dict[str, Any]:
    """The OpenAPI schema as /api/bot/openapi.json serves it."""
    return api.get_openapi_schema()
