"""How the table is laid out, in a real Chromium: the move log shows many moves on a laptop
screen, a phone holds the plates, the piles and the hand on one screen at every decision,
an unplayable card keeps its colour, and the discard list reads as separate cards.

The games are advanced on the server (plain moves for every seat) and the page is then
opened at the state under test: what is measured is the layout, not how a game is played
through the page (tests/e2e/test_table_fit_browser.py does that).
"""

import colorsys
import os
import re
import uuid
from pathlib import Path

import pytest

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONES = [(390, 844), (360, 740)]

# What a phone must hold on one screen at a decision, by selector; each one shown is measured.
ON_SCREEN = [
    ".plate",
    ".centre .draw-pile",
    ".centre .discard .card",
    ".centre .in-play",
    "#discard-summary",
    "#hand-form .hand-card",
    "#table-hand .controls button",
    "#btn-concede",
    ".colour-choice:not([hidden]) fieldset",
]

BOXES = """(selectors) => {
  const boxes = [];
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (el.closest("[hidden]")) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      boxes.push({sel, id: el.id, l: r.left, t: r.top, r: r.right, b: r.bottom});
    }
  }
  return boxes;
}"""


def _advance(game, stop):
    """Plays plain moves for every seat until `stop(state)` holds or the game ends; returns
    the state it stopped at."""
    while True:
        game.refresh_from_db()
        state = store.load_state(Game.objects.get(pk=game.pk))
        if game.status != Game.Status.ACTIVE or stop(state):
            return state
        seat = game.waiting_on[0]
        decisions.apply_decision(
            game.pk,
            seat,
            state.auto_action(seat),
            GameEvent.Actor.PERSON,
            idempotency_key=uuid.uuid4().hex,
        )


def _kind(state):
    """The kind of decision seat 0 has now, or None."""
    if 0 not in state.waiting_on():
        return None
    return state.view(0)["decision"]


def _open(page, url):
    page.goto(url)
    page.locator("#connection[data-state=live]").wait_for(state="attached")


def shoot(page, name):
    """A screenshot of the viewport, into test-artifacts (or SCREENS_DIR when set)."""
    folder = Path(os.environ.get("SCREENS_DIR") or ARTIFACTS / "screens")
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


FULLY_IN_VIEW = """(sel) => {
  const el = document.querySelector(sel);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5
    && r.bottom <= innerHeight + 0.5;
}"""

# What must be seen whole as the page opens, mid-round and once the game is over.
IN_VIEW = {
    "mid": ["#table-status", "#table-seats", "#table-hand", "#table-log"],
    # The result's box scrolls within itself when its table of hands is long (8 seats on a
    # phone): the box and its headline are what must be seen.
    "end": ["#table-status", "#table-result.current", "#result-headline", ".play-again button"],
}


@pytest.mark.parametrize("players", [4, 8])
def test_mid_game_and_at_the_end_the_table_and_its_result_are_in_view(
    daphne_url, chromium_browser, players
):
    """At 1280x800 and on both phones, mid-round and at the end (a screenshot of each is
    kept: docs/screens comes from here, with SCREENS_DIR)."""
    ana = make_user("ana")
    game = make_started_game([ana], players=players, pace="realtime", move_seconds=45, seed=57)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    url = f"{daphne_url}/games/{game.pk}/"
    _advance(game, lambda s: len(s.view(0)["discard"]) >= 14 and _kind(s) == "turn")
    for phase in ("mid", "end"):
        if phase == "end":
            _advance(game, lambda s: False)
        for width, height in [(1280, 800), *PHONES]:
            page.set_viewport_size({"width": width, "height": height})
            _open(page, url)
            shoot(page, f"table-{players}p-{phase}-{width}x{height}")
            where = f"{players} seats, {phase}, {width}x{height}"
            assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), where
            for sel in IN_VIEW[phase]:
                if sel == "#table-log" and width < 1000:
                    continue  # a phone folds the log under the hand
                assert page.evaluate(FULLY_IN_VIEW, sel), f"{sel} not in view: {where}"


FULLY_SHOWN_MOVES = """() => {
  const box = document.querySelector('#table-log .log').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#table-log li.move')).filter((li) => {
    const r = li.getBoundingClientRect();
    return r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  }).length;
}"""


def test_the_move_log_shows_ten_moves_at_once_on_a_laptop(daphne_url, chromium_browser):
    ana = make_user("ana")
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=57)
    _advance(game, lambda s: len(s.view(0)["discard"]) >= 14 and _kind(s) == "turn")
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, f"{daphne_url}/games/{game.pk}/")

    assert page.locator("#table-log li.move").count() >= 12
    # Every other seat is a bot: the chat is folded, and the log has the column.
    assert page.locator("#chat").get_attribute("open") is None
    shown = page.evaluate(FULLY_SHOWN_MOVES)
    assert shown >= 10, f"{shown} moves fully shown"
    assert page.evaluate("() => document.documentElement.scrollHeight <= innerHeight")


def test_an_empty_chat_starts_folded_and_opens_for_a_line(daphne_url, chromium_browser):
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    game = make_started_game([ana, bo], players=4, pace="turn")
    pages = {}
    for user in (ana, bo):
        page = logged_in_page(chromium_browser, daphne_url, user)
        page.set_viewport_size({"width": 1280, "height": 800})
        _open(page, f"{daphne_url}/games/{game.pk}/")
        page.locator("#chat-form").wait_for(state="attached")
        pages[user.username] = page
    desk, other = pages["ana"], pages["bo"]
    # Bo is there to talk to, but no one has written: folded, its summary all that shows,
    # and the log keeps the column.
    for page in (desk, other):
        assert page.locator("#chat").get_attribute("open") is None
        chat = page.locator("#chat").bounding_box()
        log = page.locator("#table-log").bounding_box()
        assert chat["height"] < 0.15 * log["height"], (chat, log)
    # Ana opens hers to write; her line opens Bo's.
    desk.locator("#chat > summary").click()
    desk.get_by_role("button", name="Good luck").click()
    other.locator("#chat .chat-line", has_text="Good luck").wait_for()
    assert other.locator("#chat").get_attribute("open") is not None
    # With a line in it, the box starts open on the next visit.
    _open(other, f"{daphne_url}/games/{game.pk}/")
    assert other.locator("#chat").get_attribute("open") is not None


def _overlaps(boxes):
    """Pairs of boxes that overlap by more than a pixel, but for parts of one thing: the
    hand's cards fan over each other, and the piles lie together in the middle."""

    def group(b):
        if b["sel"] == "#hand-form .hand-card":
            return "hand"
        if b["sel"].startswith(".centre"):
            return "centre"
        return b["sel"] + b["id"]

    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if group(a) == group(b):
                continue
            w = min(a["r"], b["r"]) - max(a["l"], b["l"])
            h = min(a["b"], b["b"]) - max(a["t"], b["t"])
            if w > 1 and h > 1:
                found.append((a["sel"] + "#" + a["id"], b["sel"] + "#" + b["id"]))
    return found


def check_phone(page, when, *, result=False):
    """With `result`, a round's result lies over the felt: it is measured with the hand, in
    place of the plates and piles it covers."""
    selectors = ON_SCREEN
    if result:
        selectors = ["#table-result.current"] + [s for s in ON_SCREEN if "hand" in s or "btn" in s]
    boxes = page.evaluate(BOXES, selectors)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    out = [
        (b["sel"], b["id"], [round(b[k]) for k in "ltrb"])
        for b in boxes
        if b["l"] < -0.5 or b["t"] < -0.5 or b["r"] > width + 0.5 or b["b"] > height + 0.5
    ]
    if out or _overlaps(boxes):
        shoot(page, "phone-failed-" + re.sub(r"\W+", "-", f"{width}x{height}-{when}"))
    assert not out, f"out of the screen ({when}): {out}"
    assert not _overlaps(boxes), f"overlapping ({when}): {_overlaps(boxes)}"
    assert page.evaluate("() => scrollY") == 0
    for sel in ["#table-hand"] + ([] if result else [".plate", ".centre .discard .card"]):
        assert page.locator(sel).first.is_visible(), (sel, when)


@pytest.mark.parametrize("width,height", PHONES)
@pytest.mark.parametrize("players", [4, 8])
def test_a_phone_holds_plates_piles_and_hand_at_every_decision(
    daphne_url, chromium_browser, players, width, height
):
    ana = make_user("ana")
    game = make_started_game(
        [ana],
        players=players,
        pace="realtime",
        move_seconds=45,
        seed=57,
        target_score=500,
        stacking=True,
    )
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": width, "height": height})
    url = f"{daphne_url}/games/{game.pk}/"
    seen, turns, round_results = set(), 0, 0
    while True:
        state = _advance(
            game, lambda s: _kind(s) is not None or s.view(0)["round_over"] is not None
        )
        view = state.view(0)
        kind = _kind(state)
        if view["game_over"] or game.status != Game.Status.ACTIVE:
            break
        if kind is None:  # a round's result, until the next deal
            if not round_results:
                _open(page, url)
                page.get_by_role("heading", name="Round result").wait_for()
                check_phone(page, "a round's result", result=True)
                result = page.locator("#table-result.current").bounding_box()
                assert result["y"] >= 0 and result["y"] + result["height"] <= height
            round_results += 1
            _advance(game, lambda s: s.view(0)["round_over"] is None)
            continue
        first = kind not in seen
        if kind == "turn":
            turns += 1
        if first or (kind == "turn" and turns % 7 == 0):
            seen.add(kind)
            _open(page, url)
            check_phone(page, f"{kind} at {game.last_seq}")
            wild = page.locator("#hand-form .hand-card.playable[data-wild]")
            if kind == "turn" and "colour" not in seen and wild.count():
                seen.add("colour")
                wild.first.click()
                page.locator(".colour-choice:not([hidden]) fieldset").wait_for()
                check_phone(page, "the colour choice of a Wild")
        decisions.apply_decision(
            game.pk,
            0,
            state.auto_action(0),
            GameEvent.Actor.PERSON,
            idempotency_key=uuid.uuid4().hex,
        )

    _open(page, url)
    page.get_by_role("heading", name="Final result").wait_for()
    result = page.locator("#table-result.current").bounding_box()
    assert result["y"] >= 0 and result["y"] + result["height"] <= height + 0.5
    shoot(page, f"layout-{players}p-end-{width}x{height}")
    # Every kind of decision the deal brings (a colour choice, a give, a penalty) was measured.
    assert {"setup", "swap", "turn", "forced", "colour", "give", "penalty"} <= seen, seen
    assert round_results, "no round's result was measured"


# A card's colour as the eye gets it: its background through the filters and opacities of
# the face and the button (none is allowed to grey it), as [r, g, b, alpha].
SEEN_COLOUR = """(el) => {
  const face = el.querySelector('.face');
  let alpha = 1;
  for (let n = face; n && n !== el.parentElement; n = n.parentElement) {
    const cs = getComputedStyle(n);
    if (cs.filter !== 'none') return {filter: cs.filter};
    alpha *= parseFloat(cs.opacity);
  }
  const m = getComputedStyle(face).backgroundColor.match(/[\\d.]+/g).map(Number);
  return {rgb: m.slice(0, 3), alpha};
}"""


def _hsl(rgb):
    h, lightness, s = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    return h * 360, s, lightness


def test_an_unplayable_card_keeps_its_colour(daphne_url, chromium_browser):
    ana = make_user("ana")
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=57)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": 1280, "height": 800})
    url = f"{daphne_url}/games/{game.pk}/"
    compared = set()
    for _ in range(30):
        _advance(game, lambda s: _kind(s) == "turn")
        state = store.load_state(Game.objects.get(pk=game.pk))
        if _kind(state) != "turn":
            break
        _open(page, url)
        for colour in ("R", "Y", "G", "B"):
            cards = page.locator(f"#hand-form[data-mode=play] .hand-card:has(.face.c-{colour})")
            seen = {
                "playable": [c.evaluate(SEEN_COLOUR) for c in cards.all() if c.is_enabled()],
                "not": [c.evaluate(SEEN_COLOUR) for c in cards.all() if not c.is_enabled()],
            }
            if not seen["not"]:
                continue
            # The playable card of that colour, or else the colour itself as the page sets it.
            if seen["playable"]:
                reference = _hsl(seen["playable"][0]["rgb"])
            else:
                value = page.evaluate(
                    "v => getComputedStyle(document.documentElement).getPropertyValue(v)",
                    "--" + {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}[colour],
                ).strip()
                reference = _hsl([int(value[k : k + 2], 16) for k in (1, 3, 5)])
            for dim in seen["not"]:
                assert "filter" not in dim, f"an unplayable card is filtered: {dim}"
                assert dim["alpha"] == 1, f"an unplayable card is faded: {dim}"
                hue, sat, light = _hsl(dim["rgb"])
                assert abs(hue - reference[0]) < 3 and abs(sat - reference[1]) < 0.05, (
                    colour,
                    dim,
                    reference,
                )
                assert abs(light - reference[2]) < 0.1
                assert sat > 0.5, f"{colour} reads greyed: {dim}"
            compared.add(colour)
        if "R" in compared and len(compared) >= 2:
            break
        decisions.apply_decision(
            game.pk,
            0,
            state.auto_action(0),
            GameEvent.Actor.PERSON,
            idempotency_key=uuid.uuid4().hex,
        )
    assert compared, "no unplayable card was seen"


def test_the_discard_list_reads_one_card_an_entry(daphne_url, chromium_browser):
    ana = make_user("ana")
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=57)
    _advance(game, lambda s: len(s.view(0)["discard"]) >= 8)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, f"{daphne_url}/games/{game.pk}/")
    page.locator("#discard-summary").click()
    names = page.locator("#discard-list li").all_inner_texts()
    assert len(names) >= 8
    text = page.locator("#discard-list ol").inner_text()
    assert [line.strip() for line in text.splitlines() if line.strip()] == names
    # Each entry on a row of its own, apart from the next.
    boxes = page.locator("#discard-list li").evaluate_all(
        "els => els.map((el) => el.getBoundingClientRect().toJSON())"
    )
    for a, b in zip(boxes, boxes[1:], strict=False):
        apart = b["top"] >= a["bottom"] - 0.5 or b["left"] >= a["right"] + 8
        assert apart, (a, b)
    shoot(page, "discard-list-1280x800")
