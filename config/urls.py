from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from games.api import api as bot_api
from games.views.bot_docs import bot_docs
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
    path("bots/docs/", bot_docs, name="api_docs"),
    path("favicon.ico", favicon, name="favicon"),
    # The Bot API and its OpenAPI schema (/api/bot/openapi.json), docs/bot-api.md.
    path("api/bot/", bot_api.urls),
]
