"""The Bot API (docs/bot-api.md): an HTTP JSON API for programs that play a bot account's
seats, described by the OpenAPI schema it serves at /api/bot/openapi.json.

An entry point like the views and the consumers: it reads through the store and the
presenters and writes only through games.actions (the one door), so a bot's move is
judged and timed exactly like a click.
"""

from ninja import NinjaAPI

from games.api import auth
from games.api.routes import router

api = NinjaAPI(
    title="Wild Cards Teams Bot API",
    version="1",
    description="Play a bot account's seats: see docs/bot-api.md.",
    urls_namespace="bot_api",
    # Ninja's docs page loads Swagger UI from a CDN, which the site's
    # Content-Security-Policy forbids; the site documents the API itself.
    docs_url=None,
    auth=auth.BotToken(),
)
auth.install_error_handlers(api)
api.add_router("/", router)
