"""The installable web app (docs/web-app.md): its manifest, its service worker and the page
the worker shows when the network is gone.

The three answers are the same for every visitor: none reads the session or the user, so
none can carry a table's state, and the offline page the worker keeps is nobody's page.
The worker is answered at the site's root because a worker only controls the pages under
the path it is served from; its source is `templates/sw.js`.
"""

import hashlib
import json

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe

NAME = "Wild Cards Teams"
# The site's navy (static/css/site.css, --navy): the header's colour, so the phone's bar
# and the splash screen match the page under them.
THEME_COLOUR = "#1d3557"
# The page's background (--paper), shown while the app starts.
BACKGROUND_COLOUR = "#f6f8fb"

# What the offline page needs besides itself, and nothing else: the worker keeps these and
# the page, and never a page of a game (templates/sw.js says how that is held).
OFFLINE_ASSETS = ("css/site.css", "css/offline.css", "img/favicon.svg")

MANIFEST_TYPE = "application/manifest+json"
WORKER_TYPE = "text/javascript; charset=utf-8"


def manifest_data() -> dict[str, object]:
    return {
        # A stable identity: the app stays the same installed app if start_url ever moves.
        "id": "/",
        "name": NAME,
        "short_name": "Wild Cards",
        "description": "Team card game for 4, 6 or 8 players: real time or turn by turn.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "lang": "en",
        "categories": ["games"],
        "icons": [
            {"src": static("img/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("img/icon-maskable-192.png"),
                "sizes": "192x192",
                "type": "image/png",
                "purpose": "maskable",
            },
            {
                "src": static("img/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


@require_safe
def manifest(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(json.dumps(manifest_data(), indent=2), content_type=MANIFEST_TYPE)
    patch_cache_control(response, public=True, max_age=3600)
    return response


def offline_html() -> str:
    # Rendered without the request: no context processor runs, so no name, no count of
    # games, no CSRF token; the same bytes for everyone, fit to be kept on a device.
    return render_to_string("offline.html")


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(offline_html())
    patch_cache_control(response, public=True, max_age=3600)
    return response


def _asset_bytes(path: str) -> bytes:
    found = finders.find(path)
    if not found:
        raise LookupError(f"the offline page's asset {path} is not in the static files")
    with open(found, "rb") as f:
        return f.read()


def worker_config() -> dict[str, object]:
    """What templates/sw.js is given: the URLs it keeps, and a version that changes with
    any byte of them, so that a changed page or stylesheet makes a new worker (the
    browser installs a worker again only when its script's bytes change)."""
    offline_url = reverse("offline")
    precache = [offline_url, *(static(path) for path in OFFLINE_ASSETS)]
    digest = hashlib.sha256(offline_html().encode())
    for path in OFFLINE_ASSETS:
        digest.update(_asset_bytes(path))
    return {
        "version": digest.hexdigest()[:16],
        "offline": offline_url,
        "precache": precache,
        "subscribe": reverse("accounts:push_subscribe"),
        "icon": static("img/icon-192.png"),
        "badge": static("img/badge-96.png"),
    }


_worker: tuple[str, str] | None = None


def _worker_script() -> tuple[str, str]:
    """The worker's source and its ETag. Kept for the process's life outside DEBUG: the
    browser asks for it on every navigation, and the files it hashes change only with a
    deploy, which restarts the process."""
    global _worker
    if _worker is not None and not settings.DEBUG:
        return _worker
    config = json.dumps(worker_config(), indent=2)
    source = render_to_string("sw.js", {"config": config})
    _worker = (source, '"' + hashlib.sha256(source.encode()).hexdigest()[:24] + '"')
    return _worker


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    source, etag = _worker_script()
    response: HttpResponse
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(source, content_type=WORKER_TYPE)
    response["ETag"] = etag
    # Asked again at every navigation, so a new deploy's worker is found at once; a 304
    # costs nothing.
    response["Cache-Control"] = "no-cache"
    # Its scope is the whole site (it is served from the root already; said for clarity
    # and for a proxy that would serve it from elsewhere).
    response["Service-Worker-Allowed"] = "/"
    return response
