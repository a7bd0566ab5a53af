import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Initialise Django (apps, models) before importing anything that uses models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config.sockets import (  # noqa: E402
    HandshakeLimit,
    LoggedOriginValidator,
    RefuseUnroutablePaths,
    no_such_socket,
)
from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # At most SOCKET_HANDSHAKES_WAITING handshakes waiting at once; Channels'
        # AllowedHostsOriginValidator, each refusal logged; a path no route answers is
        # refused with a close code, not a server error (config/sockets.py,
        # docs/security.md).
        "websocket": HandshakeLimit(
            LoggedOriginValidator(
                RefuseUnroutablePaths(
                    AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, no_such_socket]))
                )
            ),
            settings.SOCKET_HANDSHAKES_WAITING,
        ),
    }
)

# What was loaded by now (Django, the apps, Channels, Twisted) lives as long as the process:
# frozen, it is out of the collector's sight, and each full collection, which stops every
# socket of the process while it runs, walks only what came later (at 200 tables, 55-80 ms
# of CPU each instead of 105-140: docs/load.md).
gc.freeze()
