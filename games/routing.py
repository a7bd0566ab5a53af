from django.urls import path

from games.bot_stream import BotStreamConsumer
from games.consumers import GameConsumer, SiteConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/me/", SiteConsumer.as_asgi()),
    # The Bot API's stream (docs/bot-accounts.md), beside its HTTP routes.
    path("api/bot/games/<int:game_id>/stream", BotStreamConsumer.as_asgi()),
]
