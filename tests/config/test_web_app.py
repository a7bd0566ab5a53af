"""The installable web app's server side (config/webapp.py, docs/web-app.md): the manifest a
phone installs from, the service worker at the root, the offline page it keeps, and the
profile's notifications section. What the worker does in a browser is
tests/e2e/test_web_app_browser.py.
"""

import json
import re
import struct
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client

from accounts.models import PushSubscription
from config import webapp
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

MANIFEST_KEYS = ("id", "name", "short_name", "start_url", "scope", "display", "icons")


def static_file(url):
    """The file a /static/ URL names, through the finders (as WhiteNoise serves it)."""
    path = urlsplit(url).path
    prefix = "/" + settings.STATIC_URL.lstrip("/")
    assert path.startswith(prefix), url
    found = finders.find(path[len(prefix) :])
    assert found, f"{url} is not a static file"
    return found


def png_size(path):
    """(width, height) from a PNG's IHDR chunk: the bytes, not the file's name."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def css_colour(name):
    text = open(finders.find("css/site.css")).read()
    return re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", text).group(1).lower()


def manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    return response, json.loads(response.content)


def worker_config(source):
    """The CONFIG object templates/sw.js is given."""
    return json.loads(re.search(r"const CONFIG = (\{.*?\n\});", source, re.S).group(1))


def test_the_manifest_is_served_as_one_with_what_an_install_needs(client):
    response, data = manifest(client)
    # A browser refuses to read a manifest given as application/octet-stream (WhiteNoise's
    # answer for a .webmanifest file), hence a view.
    assert response["Content-Type"] == "application/manifest+json"
    for key in MANIFEST_KEYS:
        assert data[key], key
    assert data["name"] == "Wild Cards Teams"
    assert len(data["short_name"]) <= 12  # what a home screen shows under the icon
    assert (data["id"], data["start_url"], data["scope"]) == ("/", "/", "/")
    assert data["display"] == "standalone"
    assert data["theme_color"] == css_colour("navy")
    assert data["background_color"] == css_colour("paper")


def test_each_icon_of_the_manifest_exists_at_the_size_it_claims(client):
    _, data = manifest(client)
    seen = set()
    for icon in data["icons"]:
        assert icon["type"] == "image/png"
        width, height = png_size(static_file(icon["src"]))
        assert icon["sizes"] == f"{width}x{height}", icon["src"]
        seen.add((icon.get("purpose", "any"), width))
    # Chrome's install needs a 192 and a 512; Android's adaptive icons want a maskable one.
    assert {("any", 192), ("any", 512), ("maskable", 512)} <= seen


def test_every_page_links_the_manifest_the_theme_colour_and_the_touch_icon(client):
    page = client.get("/accounts/login/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    _, data = manifest(client)
    assert f'<meta name="theme-color" content="{data["theme_color"]}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page).group(1)
    width, height = png_size(static_file(touch))
    assert width == height >= 180  # what iOS asks of a home screen icon
    # The worker is registered from every page (static/js/push.js), logged in or not.
    assert "/static/js/push.js" in page


def test_the_pages_policy_allows_the_worker_and_the_manifest_from_the_site_only(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
    assert directives["worker-src"] == "'self'"
    assert directives["manifest-src"] == "'self'"
    assert "'unsafe-inline'" not in directives["script-src"]  # the registration is a file


def test_the_worker_is_served_at_the_root_with_its_headers(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == "text/javascript"
    # Asked again at every navigation, so a deploy's new worker is found at once.
    assert response["Cache-Control"] == "no-cache"
    assert response["Service-Worker-Allowed"] == "/"
    again = client.get("/sw.js", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again["Cache-Control"] == "no-cache"
    source = response.content.decode()
    assert 'addEventListener("push"' in source and "notificationclick" in source
    assert "pushsubscriptionchange" in source


def test_the_worker_keeps_the_offline_page_and_its_files_and_nothing_else(client):
    """The rule the worker's comments state: no page of a game, no API, no account page
    in its precache; and the offline page needs nothing that is not kept with it."""
    config = worker_config(client.get("/sw.js").content.decode())
    kept = config["precache"]
    assert kept[0] == "/offline/"
    for url in kept:
        assert not re.match(r"^/(games|api|ws|accounts|admin)/", url), url
        assert "?" not in url
    for url in kept[1:]:
        static_file(url)
    offline = client.get("/offline/").content.decode()
    needed = set(re.findall(r'<link rel="stylesheet" href="([^"]+)"', offline))
    needed |= set(re.findall(r'<img[^>]* src="([^"]+)"', offline))
    assert needed and needed <= set(kept), needed - set(kept)
    assert "<script" not in offline  # it would not load offline, and it needs none
    assert config["subscribe"] == "/accounts/push/subscribe/"


def test_a_changed_offline_page_makes_a_new_worker(client, monkeypatch):
    """A browser installs a worker again only when its bytes change: a new offline page
    or stylesheet must change them, or phones keep the old page for ever."""
    monkeypatch.setattr(webapp, "_worker", None)
    first = client.get("/sw.js")
    monkeypatch.setattr(webapp, "_worker", None)
    monkeypatch.setattr(webapp, "offline_html", lambda: "<p>another offline page</p>")
    second = client.get("/sw.js")
    versions = [worker_config(r.content.decode())["version"] for r in (first, second)]
    assert versions[0] != versions[1]
    assert first["ETag"] != second["ETag"]


def test_the_offline_page_is_the_same_for_everyone_and_holds_nobodys_data():
    """The worker keeps it on the device: no name, no game, no token, no cookie, whoever
    asked for it (a session it was given is ignored)."""
    ana = make_user("off-ana", display_name="Anastasia Offline")
    game = make_started_game([ana])
    anonymous = Client().get("/offline/")
    logged_in = Client()
    logged_in.force_login(ana)
    theirs = logged_in.get("/offline/")
    assert anonymous.status_code == theirs.status_code == 200
    assert anonymous.content == theirs.content
    page = theirs.content.decode()
    for private in ("off-ana", "Anastasia", f"/games/{game.pk}/", "csrfmiddlewaretoken"):
        assert private not in page
    assert '"X-CSRFToken": ""' in page
    assert not theirs.cookies  # no session or CSRF cookie set by it
    assert "You are offline" in page and "Your games are safe" in page


def test_the_browser_fetching_the_worker_does_not_count_the_player_present(client):
    """The away rule of pushes: after showing a push the browser may fetch /sw.js by
    itself, with the player's cookies; that is not the player coming back."""
    ana = make_user("off-away")
    client.force_login(ana)
    assert client.get("/sw.js", HTTP_SERVICE_WORKER="script").status_code == 200
    ana.refresh_from_db()
    assert ana.last_seen_at is None
    client.get("/offline/")
    ana.refresh_from_db()
    assert ana.last_seen_at is not None  # any other request still counts


def test_the_profile_lists_the_accounts_devices_with_a_remove_button_each(client):
    ana, outsider = make_user("dev-ana"), make_user("dev-out")
    mine = PushSubscription.objects.create(
        user=ana,
        endpoint="https://fcm.googleapis.com/fcm/send/ana-phone",
        p256dh="x",
        auth="y",
        label="Chrome on Android",
    )
    PushSubscription.objects.create(
        user=outsider,
        endpoint="https://fcm.googleapis.com/fcm/send/other",
        p256dh="x",
        auth="y",
        label="Firefox on Linux",
    )
    client.force_login(ana)
    page = client.get("/accounts/profile/").content.decode()
    assert "Chrome on Android" in page and "Firefox on Linux" not in page
    assert f'data-device="{mine.pk}"' in page
    form = re.search(
        rf'<form id="push-remove-{mine.pk}" method="post" action="([^"]+)"', page
    ).group(1)
    assert form == f"/accounts/push/{mine.pk}/remove/"
    assert f'form="push-remove-{mine.pk}"' in page
    # The switch, and the words that tell it from My games' switch for open pages.
    assert 'id="push-switch"' in page and 'id="push-toggle"' in page
    assert "While a page of the site is open" in page
    # The endpoint is a capability to write to the device: never shown on the page.
    assert "fcm.googleapis.com" not in page


def test_the_pages_of_a_logged_in_player_carry_the_sites_push_key(client):
    ana = make_user("key-ana")
    client.force_login(ana)
    page = client.get("/accounts/profile/").content.decode()
    key = re.search(r'data-vapid-key="([A-Za-z0-9_-]+)"', page).group(1)
    assert len(key) == 87  # base64url of a 65-byte uncompressed P-256 point
    assert 'data-push-subscribe="/accounts/push/subscribe/"' in page
    assert "data-vapid-key" not in Client().get("/accounts/login/").content.decode()
