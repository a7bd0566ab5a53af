from django.urls import path

from games.account_stream import AccountStreamConsumer
from games.bot_stream import BotStreamConsumer
from games.consumers import GameConsumer, SiteConsumer
from games.metrics import counted_sockets

# Each kind of socket counted in wct_sockets_open while it is open (docs/deploy.md).
websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", counted_sockets("table", GameConsumer.as_asgi())),
    path("ws/me/", counted_sockets("site", SiteConsumer.as_asgi())),
    # The Bot API's stream (docs/bot-accounts.md), beside its HTTP routes.
    path(
        "api/bot/games/<int:game_id>/stream",
        counted_sockets("bot_stream", BotStreamConsumer.as_asgi()),
    ),
    # The account's events (docs/bot-accounts.md), beside GET /api/bot/events.
    path(
        "api/bot/events/stream", counted_sockets("account_stream", AccountStreamConsumer.as_asgi())
    ),
]
