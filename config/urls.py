from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path

from config import webapp
from games.api import api as bot_api
from games.api import not_found as bot_api_not_found
from games.api import pages as bot_docs
from games.views.rules import rules


def favicon(request):
    """Pages name their icon; this answers the clients that ask /favicon.ico anyway."""
    return redirect(static("img/favicon.svg"))


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("games/", include("games.urls")),
    path("", include("games.history_urls")),  # history, replays, reports
    path("", include("lobby.urls")),
    path("rules/", rules, name="rules"),
    # The pages for bot authors, at stable URLs that the API's messages point to.
    path("bots/docs/", bot_docs.quick_start, name="api_docs"),
    path("bots/docs/api/", bot_docs.reference, name="api_docs_reference"),
    path("bots/docs/stream/", bot_docs.stream, name="api_docs_stream"),
    path("bots/docs/model/", bot_docs.model, name="api_docs_model"),
    path("favicon.ico", favicon, name="favicon"),
    # The installable web app (config/webapp.py, docs/web-app.md): the worker at the root,
    # so that its scope is the whole site.
    path("manifest.webmanifest", webapp.manifest, name="webmanifest"),
    path("sw.js", webapp.service_worker, name="service_worker"),
    path("offline/", webapp.offline, name="offline"),
    # The Bot API and its OpenAPI schema (/api/bot/openapi.json), docs/bot-api.md; its
    # streams' AsyncAPI document; any other path under it is a JSON 404, not a page.
    path("api/bot/asyncapi.json", bot_docs.asyncapi_json, name="bot_api_asyncapi"),
    path("api/bot/", bot_api.urls),
    re_path(r"^api/bot/", bot_api_not_found, name="bot_api_not_found"),
]
