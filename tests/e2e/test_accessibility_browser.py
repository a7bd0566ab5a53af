"""Every page a player, a spectator and staff reach, and the live table at each kind of
decision, checked by axe-core in Chromium at a desktop's and a phone's size: no violation.

The game is played by the server's own plain moves (tests.conftest.play_one) rather than by
clicking, so one seed reaches every kind of decision in seconds; a page is opened on the
seat that holds each new kind as it comes, and checked as that person sees it.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe

from games import store
from games.engine.visibility import view as seat_view
from games.models import Game
from tests.conftest import make_started_game, make_table, make_user, play_one
from tests.e2e.conftest import logged_in_page, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [{"width": 1280, "height": 800}, {"width": 390, "height": 844}]
# Seed 38 at a 50-point game with stacking, every seat played by the plain move: a setup
# pass, a playable Wild, a symbol swap, a penalty, a give and a round's result, then the
# game's end, in about 160 moves (checked below: a seed that stops reaching one fails).
SEED = 38
KINDS = {"setup", "turn", "colour", "swap", "penalty", "give", "round", "over"}

AXE = Axe()
# axe's defaults (WCAG 2.x A and AA and its best practices), plus a rule it still calls
# experimental: a control's accessible name holds its visible text (WCAG 2.5.3), which a
# card button's name must, for a person who speaks the label they see.
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


class Audit:
    """Runs axe on pages at both sizes and keeps every violation under the page's label."""

    def __init__(self):
        self.found = {}

    def check(self, page, label):
        for size in SIZES:
            page.set_viewport_size(size)
            results = AXE.run(page, options=AXE_OPTIONS).response
            self.found[f"{label} at {size['width']}x{size['height']}"] = [
                (v["id"], v["impact"], [", ".join(map(str, n["target"])) for n in v["nodes"]])
                for v in results["violations"]
            ]
        page.set_viewport_size(SIZES[0])

    def visit(self, page, url, label, *, status=200):
        response = page.goto(url)
        assert response.status == status, (label, url, response.status)
        self.check(page, label)

    def report(self):
        lines = []
        for label, violations in self.found.items():
            for rule, impact, targets in violations:
                lines.append(f"{label}: {rule} ({impact}) on {len(targets)}:")
                lines.extend(f"    {target}" for target in targets)
        return "\n".join(lines)


def decision_kinds(state, seat):
    """The kinds of decision `seat` holds in the engine's `state` (names as in KINDS)."""
    view = seat_view(state, seat)
    legal = state.legal_actions(seat)
    types = {a["type"] for a in legal}
    kinds = set()
    if view.get("must_give"):
        kinds.add("give")
    if "pass" in types:
        kinds.add("swap" if view.get("decision") == "swap" else "setup")
    if "take_penalty" in types:
        kinds.add("penalty")
    if "play" in types:
        kinds.add("turn")
    if any(a["type"] == "play" and a.get("color") for a in legal):
        kinds.add("colour")
    return kinds


def open_table(page, base_url, game):
    response = page.goto(f"{base_url}/games/{game.pk}/")
    assert response.status == 200, page.locator("main").inner_text()
    page.locator("#connection[data-state=live]").wait_for(state="attached")


def check_the_live_table(audit, browser, base_url, players, watchers):
    """Plays the game to its end, checking the table at each kind of decision as its seat
    sees it, a spectator's and staff's table once, and the round's and game's result."""
    game = make_started_game(
        players, players=4, seed=SEED, target_score=50, stacking=True, spectators=True
    )
    pages = {}

    def page_of(user):
        if user.pk not in pages:
            pages[user.pk] = logged_in_page(browser, base_url, user)
        return pages[user.pk]

    for name, user in watchers.items():
        page = page_of(user)
        open_table(page, base_url, game)
        audit.check(page, f"the table, {name}")
    seen = set()
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        if state.round_over is not None and "round" not in seen:
            seen.add("round")
            page = page_of(players[0])
            open_table(page, base_url, game)
            page.locator("#table-result.current").wait_for()
            audit.check(page, "the table, a round's result")
        for seat in game.waiting_on:
            new = decision_kinds(state, seat) - seen
            if not new:
                continue
            page = page_of(players[seat])
            open_table(page, base_url, game)
            page.locator("#hand-form:not([data-mode=''])").wait_for()
            for kind in sorted(new - {"colour"}):
                audit.check(page, f"the table, {kind}")
            if "colour" in new:
                page.locator("#hand-form .hand-card[data-wild]").first.click()
                page.locator(".colour-choice:not([hidden])").wait_for()
                audit.check(page, "the table, a Wild's colours open")
            seen |= new
        play_one(game)
    assert game.status == Game.Status.FINISHED
    page = page_of(players[0])
    open_table(page, base_url, game)
    page.get_by_role("heading", name="Final result").wait_for()
    audit.check(page, "the table, game over")
    # The table fills the screen: no footer under it.
    assert not page.locator(".site-footer").count()
    seen.add("over")
    assert seen == KINDS, f"seed {SEED} no longer reaches {KINDS - seen}"
    for page in pages.values():
        page.context.close()
    return game


def test_every_page_and_every_decision_has_no_axe_violation(daphne_url, chromium_browser):
    audit = Audit()
    players = [make_user(name, display_name=name.title()) for name in ("ana", "bo", "cy", "di")]
    outsider = make_user("ed", display_name="Ed")
    staff = make_user("sam", display_name="Sam", is_staff=True)
    base = daphne_url

    game = check_the_live_table(
        audit, chromium_browser, base, players, {"a spectator": outsider, "staff": staff}
    )
    open_table_game = make_table(players[0])
    private = make_started_game([players[1]], players=4, private=True, bots=["easy"])
    # A game waiting on Ana's setup pass: My games and the lobby show her "Your move".
    make_started_game([players[0]], players=4, bots=["easy"])

    visitor = new_page(chromium_browser)
    for url, label in [
        ("/", "home (visitor)"),
        ("/accounts/signup/", "sign up"),
        ("/accounts/login/", "log in"),
        ("/accounts/password/reset/", "password reset"),
        ("/rules/", "rules (visitor)"),
        ("/bots/docs/", "Bot API (visitor)"),
        ("/bots/docs/api/", "Bot API routes (visitor)"),
        ("/bots/docs/stream/", "Bot API streams (visitor)"),
        ("/bots/docs/model/", "Bot API data model (visitor)"),
        ("/ratings/", "ratings (visitor)"),
        ("/ratings/bots/", "the bots' ratings (visitor)"),
        ("/watch/", "watch (visitor)"),
    ]:
        audit.visit(visitor, base + url, label)
    # The footer leads a programmer to the Bot API's page and its schema.
    footer = visitor.get_by_role("contentinfo")
    assert footer.get_by_role("link", name="Bot API", exact=True).get_attribute("href") == (
        "/bots/docs/"
    )
    assert footer.get_by_role("link", name="Bot API schema (OpenAPI JSON)").get_attribute(
        "href"
    ) == ("/api/bot/openapi.json")
    visitor.context.close()

    ana = logged_in_page(chromium_browser, base, players[0])
    for url, label in [
        ("/", "lobby"),
        ("/tables/new/", "create a table"),
        (f"/tables/{open_table_game.pk}/", "an open table's page"),
        ("/games/mine/", "My games"),
        ("/history/", "History"),
        (f"/games/{game.pk}/replay/", "a replay"),
        # The last step, every hand shown: the moves box is long enough to scroll there.
        (f"/games/{game.pk}/replay/?all=1&step=100000", "a replay's last step, all hands"),
        (f"/games/{game.pk}/verify/", "a game's check"),
        ("/ratings/", "ratings"),
        ("/rules/", "rules"),
        ("/accounts/profile/", "profile (own)"),
        ("/accounts/password/change/", "password change"),
        ("/players/bo/", "another player's profile"),
        ("/players/bo/history/", "another player's history"),
        ("/bots/docs/", "Bot API"),
        (f"/games/{game.pk}/report/", "the report page"),
    ]:
        audit.visit(ana, base + url, label)
    ana.context.close()

    ed = logged_in_page(chromium_browser, base, outsider)
    audit.visit(ed, f"{base}/games/{private.pk}/", "403", status=403)
    audit.visit(ed, f"{base}/games/999999/chat/", "404", status=404)
    audit.visit(ed, f"{base}/watch/", "watch")
    ed.context.close()

    sam = logged_in_page(chromium_browser, base, staff)
    audit.visit(sam, f"{base}/history/", "History (staff)")
    sam.context.close()

    counts = {label: len(v) for label, v in audit.found.items()}
    print("\n".join(f"{label}: {n} rule(s)" for label, n in counts.items()))
    assert not any(counts.values()), "axe-core found violations:\n" + audit.report()
