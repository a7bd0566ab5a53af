"""The site's ASGI application plus the echo room (bench/echo.py), for bench/load.py only.

Everything else is config.asgi's: the same HTTP handler, origin check, session
middleware and game socket, so the echo's figures are the floor of that stack.
"""

from config.asgi import django_asgi_app  # noqa: I001 -- sets Django up first

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.conf import settings
from django.urls import path

from bench.echo import EchoConsumer
from config.sockets import HandshakeLimit
from games.routing import websocket_urlpatterns

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": HandshakeLimit(
            AllowedHostsOriginValidator(
                AuthMiddlewareStack(
                    URLRouter(
                        [
                            *websocket_urlpatterns,
                            path("ws/echo/<int:room>/", EchoConsumer.as_asgi()),
                        ]
                    )
                )
            ),
            settings.SOCKET_HANDSHAKES_WAITING,
        ),
    }
)
