"""The Content-Security-Policy in a real Chromium, against a real Daphne: a newcomer's whole
visit (lobby, sign-up, log-in, a table created, a whole game against bots played through
the page's own controls, profile, history, replay) and a moderator's admin round, with no
violation on any page and the header on every document.

Violations are caught twice: a `securitypolicyviolation` listener put in every document
before its own scripts (page.add_init_script) reports to the test, and Chromium's console
line ("... violates the following Content Security Policy directive ...") is caught too.
"""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from games.models import Game
from lobby import services as lobby
from tests.browser_support import PATIENCE_MS
from tests.conftest import make_user
from tests.e2e.test_table_browser import play_to_the_end
from tests.security.test_csp import POLICY, parse_policy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LISTEN = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolation({directive: e.effectiveDirective, blocked: e.blockedURI,
                         sample: e.sample, source: e.sourceFile, line: e.lineNumber,
                         page: document.location.href});
});
"""
# Sent by the test itself through the same binding, from a task of the page's own queued
# after everything it has done so far; resolves once the test has received it.
LAST_WORD = """() => new Promise((resolve) => setTimeout(
  () => window.__cspViolation({marker: true}).then(resolve)))"""


@pytest.fixture
def site_url(monkeypatch, request):
    """The live Daphne, with sign-ups unlimited: its rate limit counts in the shared cache,
    and a few runs within the hour would otherwise be refused at the sign-up."""
    monkeypatch.setenv("SIGNUP_RATE_LIMIT", "1000000")
    return request.getfixturevalue("daphne_url")


class PolicyWatch:
    """Everything the policy refused in one browser context, and the header of every
    document it loaded."""

    def __init__(self, browser):
        self.violations = []
        self.documents = []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.expose_binding("__cspViolation", self._report)
        self.context.add_init_script(LISTEN)
        self.page = self.context.new_page()
        self.page.set_default_timeout(PATIENCE_MS)
        self.page.on("console", self._console)
        self.page.on("response", self._response)

    def _report(self, source, report):
        if not report.get("marker"):
            self.violations.append(report)

    def _console(self, message):
        if "Content Security Policy" in message.text:
            self.violations.append({"console": message.text, "page": self.page.url})

    def _response(self, response):
        if response.request.resource_type == "document":
            self.documents.append(
                (response.url, response.status, response.headers.get("content-security-policy"))
            )

    def goto(self, url):
        response = self.page.goto(url)
        assert response.ok, (url, response.status)
        self.page.wait_for_load_state("load")

    def check(self, least_documents):
        """No violation anywhere, and every document (redirects too) sent the policy."""
        # Reports reach the test asynchronously: this one, sent last, arrives after every
        # report the page made before it. (Chromium also logs each violation to the console,
        # caught in _console, at the moment it happens.)
        self.page.evaluate(LAST_WORD)
        assert self.violations == [], self.violations
        assert len(self.documents) >= least_documents, self.documents
        for url, status, header in self.documents:
            assert header and parse_policy(header) == POLICY, (url, status, header)


def test_a_newcomers_whole_visit_and_game_raise_no_policy_violation(site_url, chromium_browser):
    watch = PolicyWatch(chromium_browser)
    page = watch.page
    for path in ("/", "/accounts/login/", "/accounts/signup/"):
        watch.goto(site_url + path)

    page.locator("#id_username").fill("newcomer")
    page.locator("#id_email").fill("newcomer@example.com")
    page.locator("#id_password1").fill("wild-cards-correct-horse-9")
    page.locator("#id_password2").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("link", name="Create a table").click()
    page.get_by_role("button", name="Create the table").click()
    page.wait_for_url(re.compile(r"/tables/\d+/$"))
    for left in (2, 1, 0):
        page.get_by_label("Bot level").first.select_option("easy")
        page.get_by_role("button", name="Add bot").first.click()
        expect(page.get_by_role("button", name="Add bot")).to_have_count(left)  # the page after it
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    # The socket opens under connect-src 'self' (a same-origin ws: URL).
    page.locator("#connection[data-state=live]").wait_for()
    moves = play_to_the_end(page)
    assert moves >= 2
    game = Game.objects.get()
    assert game.status == Game.Status.FINISHED

    for path in (
        "/accounts/profile/",
        "/history/",
        "/players/newcomer/",
        "/players/newcomer/history/",
        f"/games/{game.pk}/replay/",
    ):
        watch.goto(site_url + path)
    # The replay's steps are htmx swaps, by button and by key (static/js/replay.js).
    page.locator("#replay-next").click()
    page.locator("#replay-position", has_text="Step 2 of").wait_for()
    page.keyboard.press("End")
    page.locator("#replay-game-over").wait_for()
    page.locator("#replay-all").check()
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"all=1"))
    page.locator(".replay-hand").first.wait_for()

    # Out and back in through the log-in form.
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    watch.goto(site_url + "/accounts/login/")
    page.locator("#id_username").fill("newcomer")
    page.locator("#id_password").fill("wild-cards-correct-horse-9")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("navigation", name="Account").get_by_role("link", name="newcomer").wait_for()

    watch.check(least_documents=15)


def test_a_moderators_admin_round_raises_no_policy_violation(daphne_url, chromium_browser):
    mod = make_user("mod", is_staff=True, is_superuser=True)
    players = [make_user(name) for name in ("ana", "bo")]
    game = lobby.create_table(players[0], seed=5)
    lobby.take_seat(game.pk, players[1], 1)
    lobby.add_bot(game.pk, players[0], 2, "easy")
    lobby.add_bot(game.pk, players[0], 3, "easy")
    lobby.start_table(game.pk, players[0])
    watch = PolicyWatch(chromium_browser)
    page = watch.page
    admin = daphne_url + "/admin/"

    watch.goto(admin)  # the log-in page
    page.locator("#id_username").wait_for()
    # The server checks passwords with its own hashers, not the tests' fast one: a session.
    client = Client()
    client.force_login(mod)
    watch.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": daphne_url}]
    )
    watch.goto(admin)
    page.locator("#site-name").wait_for()

    watch.goto(f"{admin}games/game/?q=ana")
    watch.goto(f"{admin}games/game/{game.pk}/change/")
    page.get_by_role("link", name="Event log").first.click()
    page.locator("#public-log").wait_for()
    page.locator("#reveal-form textarea").fill("checking a report of shared hands")
    page.get_by_role("button", name="Reveal the private log").click()
    page.locator("#revealed").wait_for()
    watch.goto(f"{admin}games/game/{game.pk}/history/")
    watch.goto(f"{admin}games/game/{game.pk}/moderate/")
    watch.goto(f"{admin}games/gameevent/")
    watch.goto(f"{admin}accounts/user/{players[1].pk}/change/")  # date and time widgets
    watch.goto(f"{admin}lobby/report/")

    # An action through the list's own script (actions.js): select, choose, go, say why.
    watch.goto(f"{admin}games/game/")
    page.locator(f"input.action-select[value='{game.pk}']").check()
    page.locator("select[name=action]").select_option("abort_tables")
    page.locator("button[name=index]").click()
    page.locator("textarea[name=reason]").fill("a policy check")
    page.locator("input[name=apply]").click()
    page.locator(".messagelist").wait_for()
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED

    watch.check(least_documents=12)
