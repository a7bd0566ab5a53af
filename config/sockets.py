"""Socket handshakes no route answers, refused with a close code instead of a server error.

Channels' URLRouter raises ValueError("No route found") for a path none of its routes
matches (a made-up /ws/ path, /ws/games/%00/, a game id of thousands of digits): Daphne
answered the handshake with a 500 and logged a traceback. Here such a handshake is closed
before it is accepted, like the game socket's own refusals (4401, 4403 in
games/consumers.py); Daphne then answers the handshake with a 403 and logs no error.
A path with a NUL, another control character or bytes that are not UTF-8, or too long for
any route, is refused before any route or the session sees it, by the same rule as the
pages (config.middleware).
"""

import json
import logging
import time
from urllib.parse import urlparse

from channels.security.websocket import OriginValidator
from django.conf import settings
from django.urls import re_path

from config.middleware import unroutable

log = logging.getLogger(__name__)

CLOSE_UNROUTABLE_PATH = 4400  # like HTTP's 400: a path no route can hold
CLOSE_NO_ROUTE = 4404  # like HTTP's 404: no socket lives at this path
CLOSE_BUSY = 4503  # the server cannot take the socket now: try again (games.actions.seat_door)


class Refusal:
    """An ASGI app that closes the handshake it is given, unaccepted, with `code`."""

    def __init__(self, code):
        self.code = code

    async def __call__(self, scope, receive, send):
        message = await receive()
        if message["type"] == "websocket.connect":
            # %r: the path is the client's, and may hold a line break.
            log.info("socket %r refused (%s): no such socket", scope["path"], self.code)
            await send({"type": "websocket.close", "code": self.code})


class RefuseUnroutablePaths:
    """Wraps the socket routes: a path no route can hold is refused before them."""

    def __init__(self, inner):
        self.inner = inner
        self.refusal = Refusal(CLOSE_UNROUTABLE_PATH)

    async def __call__(self, scope, receive, send):
        if unroutable(scope["path"]):
            return await self.refusal(scope, receive, send)
        return await self.inner(scope, receive, send)


# Last in the socket routes: whatever the routes before it do not match.
no_such_socket = re_path(r"", Refusal(CLOSE_NO_ROUTE))


# The Bot API's sockets: a program, not a page, is at the other end, and it reads a close
# code and a reason where a page's refusal is a bare HTTP 403.
PROGRAM_SOCKETS = "/api/bot/"
CLOSE_BAD_ORIGIN = 4403
BAD_ORIGIN = (
    "Send an Origin header naming this site, e.g. Origin: https://<its host>: "
    "sockets from other origins are refused."
)


def origin_of(scope):
    """The handshake's Origin header, parsed as Channels' OriginValidator parses it."""
    for name, value in scope.get("headers", []):
        if name == b"origin":
            try:
                return urlparse(value.decode("latin1"))
            except UnicodeDecodeError:
                return None
    return None


class LoggedOriginValidator(OriginValidator):
    """Channels' AllowedHostsOriginValidator (a page of another site may not open a socket
    with its visitor's cookies), with a line in the logs for each handshake it refuses: a
    proxy that rewrites the host, or ALLOWED_HOSTS missing a name, shows there.

    A Bot API socket it refuses is accepted and closed at once with 4403, after a
    `closing` frame that says why, as the streams' own refusals are (games.bot_stream):
    nothing of the site is read or sent before the close, so accepting it gives another
    origin nothing, and the program learns what to fix instead of reading a bare 403."""

    def __init__(self, application):
        allowed = settings.ALLOWED_HOSTS
        if settings.DEBUG and not allowed:
            allowed = ["localhost", "127.0.0.1", "[::1]"]
        super().__init__(application, allowed)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket" or not scope["path"].startswith(PROGRAM_SOCKETS):
            return await super().__call__(scope, receive, send)
        if self.valid_origin(origin_of(scope)):
            return await self.application(scope, receive, send)
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        frame = {"type": "closing", "code": CLOSE_BAD_ORIGIN, "reason": BAD_ORIGIN}
        await send({"type": "websocket.send", "text": json.dumps(frame)})
        await send({"type": "websocket.close", "code": CLOSE_BAD_ORIGIN, "reason": BAD_ORIGIN})

    def valid_origin(self, parsed_origin):
        if super().valid_origin(parsed_origin):
            return True
        origin = parsed_origin.geturl() if parsed_origin is not None else None
        log.info("socket refused: its Origin %r is not in ALLOWED_HOSTS", origin)
        return False


class HandshakeLimit:
    """Wraps the socket routes: at most `limit` handshakes of this process waiting for their
    application's answer (accept or refusal) at once; one more is accepted and closed at once
    with 4503, which its page answers by trying again after its back-off.

    A handshake's database work, and every page's request, take turns on the process's one
    thread for synchronous code. When every socket reconnects at once (Redis restarted, a
    Daphne gone) their handshakes queued there beyond Daphne's 5 s handshake time-out, were
    dropped, tried again and queued again: the process served no socket again (bench/soak.py
    found it, 20 minutes into a soak). Turned away at once, the extra handshakes cost nothing
    and come back spread out by their back-offs."""

    def __init__(self, inner, limit):
        self.inner, self.limit = inner, limit
        self.waiting = 0
        self.turned_away = 0
        self.said_at = 0.0  # when the last warning was written: one every 10 s at most

    async def __call__(self, scope, receive, send):
        if self.waiting >= self.limit:
            return await self.busy(receive, send)
        self.waiting += 1
        answered = False

        async def answering(message):
            nonlocal answered
            if not answered and message["type"] in ("websocket.accept", "websocket.close"):
                answered = True
                self.waiting -= 1
            await send(message)

        try:
            return await self.inner(scope, receive, answering)
        finally:
            if not answered:
                self.waiting -= 1

    async def busy(self, receive, send):
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": CLOSE_BUSY})
        self.turned_away += 1
        now = time.monotonic()
        if now - self.said_at >= 10:
            log.warning(
                "%s socket handshakes turned away (4503): %s were waiting already",
                self.turned_away,
                self.waiting,
            )
            self.said_at, self.turned_away = now, 0
