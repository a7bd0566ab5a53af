"""The Content-Security-Policy header, without a browser: sent with the chosen directives on
pages, error pages and the admin; no page carries what a strict policy refuses (an inline
script or handler, a <style>, a javascript: URL, a style attribute other than the seat
plates' places), and our scripts neither eval nor write handlers. tests/e2e/test_csp_browser.py
watches a real Chromium enforce the policy over a whole game."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.models import GameEvent
from tests.security.world import build_world

pytestmark = pytest.mark.django_db

# What the header must say, directive by directive (docs/security.md says why each).
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "connect-src": ["'self'"],
    # The service worker and the web app's manifest (docs/web-app.md).
    "worker-src": ["'self'"],
    "manifest-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
STATIC_JS = Path(settings.BASE_DIR) / "static" / "js"


def parse_policy(header):
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_policy(response):
    header = response.get("Content-Security-Policy")
    assert header, (response.status_code, "no Content-Security-Policy header")
    assert parse_policy(header) == POLICY


class InlineFinder(HTMLParser):
    """What a strict policy refuses in a document."""

    SCRIPT_TYPES = {"", "text/javascript", "module", "application/javascript"}

    def __init__(self):
        super().__init__()
        self.found = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        script_type = attrs.get("type") or ""
        if tag == "script" and not attrs.get("src") and script_type in self.SCRIPT_TYPES:
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style>")
        for name, value in attrs.items():
            if name == "style":
                self.found.append(f"style attribute on <{tag}>")
            elif name.startswith("on") or name.startswith("hx-on"):
                self.found.append(f"{name} handler on <{tag}>")
            elif name in ("href", "src", "action", "formaction") and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.found.append(f"javascript: URL on <{tag}>")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)


def refused_inline(html):
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def test_a_page_is_sent_with_the_policy(client):
    response = client.get(reverse("lobby:index"))
    assert response.status_code == 200
    assert_policy(response)


def test_error_pages_are_sent_with_the_policy_too(client):
    world = build_world()
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert_policy(missing)
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(world.bo)
    refused = forged.post(reverse("games:act", args=[world.game.pk]), {"type": "pass"})
    assert refused.status_code == 403 and "CSRF verification failed" in refused.content.decode()
    assert_policy(refused)
    assert not refused_inline(refused.content.decode())
    other = world.client(world.ed).get(reverse("games:play", args=[world.open_table.pk]))
    assert 400 <= other.status_code < 500
    assert_policy(other)


def test_the_admin_is_sent_with_the_policy(client):
    world = build_world()
    response = world.client(world.mo).get(reverse("admin:games_game_changelist"))
    assert response.status_code == 200
    assert_policy(response)


def site_pages(world):
    over = world.games["finished"]
    replay = reverse("history:replay", args=[over.pk])
    return {
        None: [
            reverse("lobby:index"),
            reverse("accounts:signup"),
            reverse("accounts:login"),
            reverse("accounts:password_reset"),
            reverse("admin:login"),
        ],
        world.ana: [
            reverse("lobby:index"),
            reverse("lobby:create"),
            reverse("accounts:profile"),
            reverse("accounts:password_change"),
            reverse("lobby:table", args=[world.open_table.pk]),
            reverse("games:play", args=[world.game.pk]),
            reverse("history:mine"),
            reverse("history:profile", args=["bo"]),
            reverse("history:player", args=["bo"]),
            reverse("history:report", args=[over.pk]),
            reverse("history:replay", args=[world.game.pk]),
            replay,
            f"{replay}?step=3",
            f"{replay}?all=1",
            f"{replay}?seat=2&step=5",
            reverse("games:play", args=[over.pk]),
            "/no-such-page/",
        ],
        world.mo: [
            reverse("admin:index"),
            reverse("admin:games_game_changelist"),
            reverse("admin:games_game_change", args=[world.game.pk]),
            reverse("admin:games_game_log", args=[world.game.pk]),
            reverse("admin:games_game_log", args=[over.pk]),
            reverse("admin:games_game_moderate", args=[world.game.pk]),
            reverse("admin:games_gameevent_changelist"),
            reverse(
                "admin:games_gameevent_change",
                args=[GameEvent.objects.filter(game=world.game).first().pk],
            ),
            reverse("admin:accounts_user_changelist"),
            reverse("admin:accounts_user_change", args=[world.bo.pk]),
            reverse("admin:lobby_report_changelist"),
            reverse("admin:accounts_accountaudit_changelist"),
        ],
    }


def test_no_page_carries_inline_scripts_handlers_or_styles_but_the_seat_places():
    world = build_world("finished")
    checked = 0
    for user, urls in site_pages(world).items():
        client = world.client(user)
        for url in urls:
            for headers in ({}, {"HX-Request": "true"}):
                response = client.get(url, headers=headers)
                assert response.status_code < 500, url
                assert not refused_inline(response.content.decode()), (user, url, headers)
                checked += 1
    reveal = world.client(world.mo).post(
        reverse("admin:games_game_reveal", args=[world.game.pk]), {"reason": "a CSP check"}
    )
    assert not refused_inline(reveal.content.decode())
    assert checked > 60


def test_the_finder_sees_what_the_policy_refuses():
    assert refused_inline('<p style="color: red">') == ["style attribute on <p>"]
    assert refused_inline('<button onclick="go()">') == ["onclick handler on <button>"]
    assert refused_inline("<script>go()</script>") == ["inline <script>"]
    assert refused_inline('<a href=" JavaScript:go()">') == ["javascript: URL on <a>"]
    assert refused_inline('<div hx-on:click="go()">') == ["hx-on:click handler on <div>"]
    assert refused_inline("<style>p {}</style>") == ["<style>"]
    # Not even the seat plates' old places: the felt places them by CSS now.
    assert refused_inline('<li class="plate" style="--x: 50.0%; --y: 91.0%">') == [
        "style attribute on <li>"
    ]
    assert (
        refused_inline(
            '<script src="/static/js/table.js" defer></script>'
            '<script type="application/json">{}</script>'
        )
        == []
    )


def test_our_scripts_neither_eval_nor_write_styles_or_handlers():
    forbidden = re.compile(
        r"\beval\s*\(|new\s+Function\b|set(?:Timeout|Interval)\(\s*[\"'`]"
        r"|setAttribute\(\s*[\"'](?:style|on\w+)[\"']|\.innerHTML\s*=|insertAdjacentHTML"
    )
    scripts = sorted(STATIC_JS.glob("*.js"))
    assert scripts
    for path in scripts:
        found = forbidden.findall(path.read_text())
        assert not found, (path.name, found)
