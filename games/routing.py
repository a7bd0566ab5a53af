from django.urls import path

from games.consumers import GameConsumer, SiteConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/me/", SiteConsumer.as_asgi()),
]
