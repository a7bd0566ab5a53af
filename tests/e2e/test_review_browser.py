"""In a real Chromium against a real Daphne: a finished game's review on its replay. A real
game (one seat playing carelessly, so that the review has marks) is reviewed by the real
core (games.bots.review) with a small budget and stored as a done GameReview; the page
shows the marks beside the moves, the better choice at its step with the replay's card
faces, the chart whose markers step the replay, the summary, and nothing of a review
another account may not read. Set REVIEW_SHOTS to a folder to keep screenshots."""

import os
import re
import uuid
from pathlib import Path
from random import Random
from types import SimpleNamespace

import pytest
from django.test import Client
from playwright.sync_api import expect

from games import store
from games.actions import decisions
from games.bots import review as core
from games.bots.search import Budget
from games.engine.random_moves import random_action
from games.models import Game, GameEvent, GameReview
from games.presenters.review import action_advice
from tests.browser_support import PATIENCE_MS
from tests.conftest import make_started_game, make_user, play_one
from tests.games.history.helpers import rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("REVIEW_SHOTS")
# Enough samples for the review's paired test to tell a careless move from the best one; few
# enough for a test (a few seconds).
BUDGET = Budget(rollouts=24, horizon=40)


@pytest.fixture
def site_server(daphne_url):
    return SimpleNamespace(url=daphne_url)


@pytest.fixture
def browser(chromium_browser):
    """The suite's own Chromium (tests/browser_support.py), by a shorter name."""
    return chromium_browser


def finish_with_a_careless_seat(game, seat=0):
    """Plays the game to its end: `seat` picks a random legal move, the others the table's
    plain move."""
    rng = Random(28)  # a careless seat whose review has a mistake and two blunders
    for _ in range(5000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        if seat not in game.waiting_on:
            play_one(game)
            continue
        action = random_action(store.load_state(game), seat, rng)
        decisions.apply_decision(
            game.pk, seat, action, GameEvent.Actor.PERSON, idempotency_key=uuid.uuid4().hex
        )
    raise AssertionError("the game did not end")


def reviewed_game(**options):
    """Ana (seat 0) played carelessly; her review is done. (game, users, its data)."""
    users = [make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di")]
    game = finish_with_a_careless_seat(make_started_game(users, seed=4242, **options))
    stored = [core.Row(r.seq, r.seat, r.action, r.events) for r in rows(game)]
    data = core.review_seat(game.engine_options(), game.seed, stored, 0, budget=BUDGET)
    GameReview.objects.create(
        game=game,
        seat=0,
        status=GameReview.Status.DONE,
        data=data,
        done=len(data["decisions"]),
        total=len(data["decisions"]),
        version=data["version"],
    )
    marked = [d for d in data["decisions"] if d["mark"] != "good"]
    # The tests below are about marks: a review with fewer than two would prove little.
    assert len(marked) >= 2 and data["summary"]["costliest"], data["summary"]
    return game, users, data


def open_as(browser, site_server, user, path, width=1280, height=800):
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": site_server.url}]
    )
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    errors = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_server.url + path)
    return page, errors


def shoot(page, name, **options):
    """A screenshot of the page (or of one element of it: `locator`), kept with REVIEW_SHOTS."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        target = options.pop("locator", None) or page
        target.screenshot(path=str(Path(SHOTS) / f"{name}.png"), **options)


def test_the_player_reads_the_review_and_its_links_step_the_replay_in_place(browser, site_server):
    game, users, data = reviewed_game()
    by_seq = {d["seq"]: d for d in data["decisions"]}
    page, errors = open_as(browser, site_server, users[0], f"/games/{game.pk}/replay/")
    position = page.locator("#replay-position")
    total = len(rows(game))
    expect(position).to_have_text(f"Step 1 of {total}")
    page.evaluate("window.reviewMarker = 'still here'")

    # The summary: the counts of the stored review, each a symbol and a word.
    summary = page.locator("#review-summary")
    counts = data["summary"]["counts"]
    expect(summary.locator(".review-counts")).to_contain_text(f"{counts['blunder']} blunder")
    expect(summary.locator(".review-counts")).to_contain_text(f"{counts['good']} good")
    expect(summary.locator(".review-counts .mark-blunder .mark-symbol")).to_have_text("??")
    # The chart: one marker per marked decision, each a link to its step.
    marked = sorted(d["seq"] for d in data["decisions"] if d["mark"] != "good")
    markers = page.locator("#review-chart a.marker")
    expect(markers).to_have_count(len(marked))
    assert [int(m.get_attribute("data-step")) for m in markers.all()] == marked
    expect(page.locator("#review-chart polyline.line-knew").first).to_be_visible()
    expect(page.locator("#review-chart polyline.line-all").first).to_be_visible()

    # The costliest decision: its link steps the replay there without a page load.
    costliest = data["summary"]["costliest"][0]
    worst = by_seq[costliest]
    summary.locator(f'a[data-step="{costliest}"]').first.click()
    expect(position).to_have_text(f"Step {costliest} of {total}")
    expect(page).to_have_url(re.compile(rf"\?step={costliest}$"))
    assert page.evaluate("window.reviewMarker") == "still here"
    note = page.locator("#review-note")
    expect(note).to_be_visible()
    word = {"inaccurate": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}[worst["mark"]]
    expect(note.locator(".review-note-title")).to_contain_text(word)
    expect(page.locator("#replay-move .review-mark")).to_contain_text(word)
    # The better choice in words and in the replay's own card faces, beside the chances.
    advice = action_advice(worst["best"], worst["kind"])
    expect(note.locator(".review-best .review-words")).to_contain_text(advice)
    best_cards = worst["best"].get("cards") or (
        [worst["best"]["card"]] if worst["best"].get("card") else []
    )
    expect(note.locator(".review-best .card")).to_have_count(len(best_cards))
    expect(note.locator(".review-chances")).to_contain_text(
        f"With what you knew: {round(worst['knew'] * 100)}%"
    )
    expect(note.locator(".review-chances")).to_contain_text("With every hand:")
    # ... and drawn on the felt.
    assert best_cards, worst  # this game's costliest decision names a card to play
    expect(page.locator("#replay-felt .review-ghost .face")).to_have_count(len(best_cards))
    # Stepping there is announced as a screen reader reads the line: the mark's word, not
    # its symbol.
    expect(page.locator("#replay-announce")).to_contain_text(word)
    assert "?" not in page.locator("#replay-announce").text_content()
    # The log marks the move at its line.
    expect(page.locator("#replay-log li.current .review-mark").first).to_contain_text(word)
    shoot(page, "desktop-costliest")

    # A chart marker steps the replay too, and the chart's line follows the step shown.
    cursor = page.locator("#review-chart line.cursor").get_attribute("x1")
    other = next(seq for seq in marked if seq != costliest)
    page.locator(f'#review-chart a.marker[data-step="{other}"]').click()
    expect(position).to_have_text(f"Step {other} of {total}")
    assert page.locator("#review-chart line.cursor").get_attribute("x1") != cursor
    assert page.evaluate("window.reviewMarker") == "still here"
    # A step that is no decision of the reviewed seat has no note and no ghost.
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Step 1 of {total}")
    expect(page.locator("#review-note")).to_have_count(0)
    expect(page.locator(".review-ghost")).to_have_count(0)
    assert errors == []
    page.context.close()


def test_the_review_fits_a_laptop_and_a_phone(browser, site_server):
    game, users, data = reviewed_game()
    costliest = data["summary"]["costliest"][0]
    path = f"/games/{game.pk}/replay/?step={costliest}"
    page, errors = open_as(browser, site_server, users[0], path, 1280, 800)
    expect(page.locator("#review-note")).to_be_visible()
    # On a laptop's screen the table, the note, the summary and the chart are all in sight.
    for selector in ("#replay-felt", "#review-note", "#review-summary", "#review-chart"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] + box["height"] <= 800 + 1, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    shoot(page, "desktop-1280x800")
    page.context.close()

    # Every hand shown takes the felt's room: the review starts closed to its heading line,
    # which still says the counts, and opens on a click.
    page, errors = open_as(browser, site_server, users[0], path + "&all=1", 1280, 800)
    expect(page.locator(".replay-hand")).to_have_count(4)
    review = page.locator("#review-summary")
    expect(review).not_to_have_attribute("open", "")
    expect(review.locator(".review-counts")).to_be_visible()
    expect(page.locator("#review-chart")).not_to_be_visible()
    for selector in ("#replay-felt", ".replay-hands", "#review-summary"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] + box["height"] <= 800 + 1, selector
    shoot(page, "desktop-all-hands")
    review.locator("summary").click()
    expect(page.locator("#review-chart")).to_be_visible()
    # A step keeps it as the reader left it.
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_contain_text(f"Step {costliest + 1} of")
    expect(page.locator("#review-chart")).to_be_visible()
    assert errors == []
    page.context.close()

    page, more = open_as(browser, site_server, users[0], path, 390, 844)
    expect(page.locator("#review-note")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    wide = page.evaluate(
        """() => [...document.querySelectorAll(
                 '.review-note, .review-note *, .replay-review, .replay-review *, .review-ghost')]
             .filter((e) => { const r = e.getBoundingClientRect();
                              return r.right > window.innerWidth + 1 || r.left < -1; })
             .map((e) => e.className.baseVal ?? e.className)"""
    )
    assert wide == []
    shoot(page, "phone-390x844")
    shoot(page, "phone-390x844-full", full_page=True)
    shoot(page, "phone-felt", locator=page.locator("#replay-felt"))
    assert errors == [] and more == []
    page.context.close()


def test_another_account_sees_nothing_of_a_private_games_unshared_review(browser, site_server):
    game, users, data = reviewed_game(private=True)
    costliest = data["summary"]["costliest"][0]
    page, errors = open_as(
        browser, site_server, users[1], f"/games/{game.pk}/replay/?step={costliest}"
    )
    expect(page.locator("#replay-position")).to_contain_text(f"Step {costliest} of")
    for selector in ("#review-note", "#review-summary", "#review-chart", ".review-mark"):
        expect(page.locator(selector)).to_have_count(0)
    # Bo's own box offers to review his own seat.
    expect(page.locator("#review-box")).to_contain_text("Review of your seat")
    assert errors == []
    page.context.close()

    # Once Ana shares it, Bo reads it, in Ana's name rather than his own.
    GameReview.objects.filter(game=game, seat=0).update(shared=True)
    page, errors = open_as(
        browser, site_server, users[1], f"/games/{game.pk}/replay/?step={costliest}"
    )
    expect(page.locator("#review-note .review-chances")).to_contain_text("With what Ana knew")
    expect(page.locator("#review-summary")).to_contain_text("Review of Ana's")
    assert errors == []
    page.context.close()


def test_a_player_without_a_review_sees_the_box_where_it_will_be_and_it_survives_a_step(
    browser, site_server
):
    users = [make_user(n, display_name=n.title()) for n in ("ana", "bo", "cy", "di")]
    game = finish_with_a_careless_seat(make_started_game(users, seed=4243))
    page, errors = open_as(browser, site_server, users[0], f"/games/{game.pk}/replay/")
    box = page.locator(".replay-main #review-box")
    expect(box.get_by_role("button", name="Review this game")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-position")).to_contain_text("Step 2 of")
    expect(box.get_by_role("button", name="Review this game")).to_be_visible()
    # The box came in with the step's frame: htmx has read its attributes, so that its
    # button posts with htmx rather than loading the page.
    assert box.locator("form").evaluate("(form) => Boolean(form['htmx-internal-data'])")
    expect(page.locator(".review-mark")).to_have_count(0)
    shoot(page, "desktop-no-review")
    assert errors == []
    page.context.close()
