"""Paths no route of ours can hold, and query parameters with a NUL, refused before any view
sees them (docs/security.md).

A NUL in a path part reached the views as text, and PostgreSQL refuses NUL in a text
query: /invite/%00/ and /players/%00/ were a 500. Each view could check its own words, but
the next view would forget; no route's word (a username, a token, a number) can hold a
control character or bytes that are not UTF-8, nor be hundreds of characters long, so one
check here answers all of them, for the pages and (config.sockets) the socket. The same
holds for a query parameter: an admin list filtered by `?status=%00` was a 500, and no
parameter of ours (a search, a filter, a page number) can hold a NUL.
"""

import re
import unicodedata

from django.http import JsonResponse
from django.shortcuts import render

UNREADABLE = "That address has characters no page of this site can have."
TOO_LONG = "That address is too long for any page of this site."
# The longest address of ours (a password-reset link) is under a hundred characters.
MAX_PATH = 1000
# What Django's WSGI handler (and so its test client) leaves of bytes that are not UTF-8:
# it escapes them again, "%FF". Sent as "%25FF", it is a doubly escaped byte, which no
# word of ours holds either.
ESCAPED_BYTE = re.compile(r"%[0-9A-Fa-f]{2}")


def holds_nul(query):
    """Whether a key or a value of `query` (a QueryDict) holds a NUL."""
    return any(
        "\x00" in key or any("\x00" in value for value in values) for key, values in query.lists()
    )


def unroutable(path):
    """(status, reason) if no route can answer `path` (as decoded by the server), else None."""
    if len(path) > MAX_PATH:
        return 414, TOO_LONG
    for char in path:
        # Cc: NUL and the other control characters. Cs: a lone surrogate, what a server
        # decoding with errors="surrogateescape" makes of bytes that are not UTF-8; U+FFFD
        # is what Daphne makes of them (errors="replace").
        if char == "\ufffd" or unicodedata.category(char) in ("Cc", "Cs"):
            return 400, UNREADABLE
    if "%" in path and ESCAPED_BYTE.search(path):
        return 400, UNREADABLE
    return None


class RefuseUnroutablePathMiddleware:
    """Last in MIDDLEWARE, so that the refusal gets every header the others add (CSP,
    X-Frame-Options) and its page the visitor's header; nothing before it reads the path."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refused = unroutable(request.path) or (
            (400, UNREADABLE) if holds_nul(request.GET) else None
        )
        if refused:
            status, reason = refused
            if request.path.startswith("/api/"):  # a program reads JSON (docs/bot-api.md)
                return JsonResponse({"detail": reason}, status=status)
            return render(request, "400.html", {"exception": reason}, status=status)
        return self.get_response(request)
