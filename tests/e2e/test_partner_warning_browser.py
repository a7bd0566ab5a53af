"""A seat's time running out, in a real Chromium served by a real Daphne: the partner's page
warns them, the seat's own page too, at the right moment and without a server event; a plate
shows its seat's time-outs (docs/table.md, "Time running out").

The pages count the time left with their own clock. Here that clock is Playwright's: it runs
as the real one while the pages open, then is held a little before the moment under test and
moved on by hand, so that what a page shows at each second does not depend on how busy the
machine is. The clocks in the database are far enough ahead that no real deadline passes
meanwhile.
"""

import re
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games.models import Game
from lobby import services as lobby
from tests.conftest import make_started_game, make_table, make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page
from tests.e2e.test_table_browser import seq_of, wait_past

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Resolves, on the first animation frame the warning `sel` is shown, to the milliseconds
# its clock had left then, as the page itself counts them.
SHOWN_WITH_LEFT = """(sel) => {
  const w = document.querySelector(sel);
  if (!w || w.hidden) return false;
  return Math.max(1, Date.parse(w.dataset.due) - Date.now());
}"""
LEFT = "(sel) => Date.parse(document.querySelector(sel).dataset.due) - Date.now()"


def set_clocks(game, seconds_left):
    """Moves the clocks' due times in the database ({seat: seconds from now}): what a page
    load, a push or a resync then reads, as it reads any clock."""
    game.refresh_from_db()
    now = timezone.now()
    clocks = {k: dict(v) for k, v in game.clocks.items()}
    for seat, seconds in seconds_left.items():
        clocks[str(seat)]["due"] = (now + timedelta(seconds=seconds)).isoformat()
    Game.objects.filter(pk=game.pk).update(
        clocks=clocks, deadline_at=min(datetime.fromisoformat(c["due"]) for c in clocks.values())
    )


def text(locator):
    return " ".join(locator.text_content().split())


def due_of(game, seat):
    game.refresh_from_db()
    return datetime.fromisoformat(game.clocks[str(seat)]["due"])


def open_table(browser, base, user, game, width=1100, height=850):
    page = logged_in_page(browser, base, user)
    page.set_viewport_size({"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.clock.install()  # runs as the real clock until a test holds it
    page.goto(f"{base}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    return page, errors


def run_until_shown(page, sel):
    """Moves the page's held clock on a second at a time until the warning `sel` shows; its
    time left then, as the page counts it."""
    for _ in range(5):
        left = page.evaluate(SHOWN_WITH_LEFT, sel)
        if left:
            return left
        page.clock.run_for(1_000)
    pytest.fail(f"{sel} never showed")


def test_the_partner_is_warned_in_the_last_ten_seconds_and_a_plate_counts_time_outs(
    daphne_url, chromium_browser
):
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    # Ana at seat 0 and Bo at seat 2 are partners; the bots have made their setup passes.
    game = make_table(ana, players=4, pace="realtime", move_seconds=15, seed=77)
    lobby.take_seat(game.pk, bo, 2)
    lobby.add_bot(game.pk, ana, 1, "normal")
    lobby.add_bot(game.pk, ana, 3, "normal")
    lobby.start_table(game.pk, ana)
    game = Game.objects.get(pk=game.pk)
    assert set(game.clocks) == {"0", "2"}
    # Bo's timer runs out in two minutes, Ana's own far later. Once both pages are open their
    # clocks are held 12 s before Bo's time is up.
    set_clocks(game, {2: 120, 0: 240})
    ana_page, ana_errors = open_table(chromium_browser, daphne_url, ana, game)
    bo_page, bo_errors = open_table(chromium_browser, daphne_url, bo, game)
    for page in (ana_page, bo_page):
        page.clock.pause_at(due_of(game, 2) - timedelta(seconds=12))

    partner_warning = ana_page.locator("#clock-warning-partner")
    assert ana_page.evaluate(LEFT, "#clock-warning-partner") > 10_000
    assert partner_warning.is_hidden()
    assert ana_page.locator("#seat-2[data-low]").count() == 0
    assert ana_page.locator("#seat-2 .time-left").is_hidden()
    assert bo_page.locator("#clock-warning-you").is_hidden()

    # Nothing is sent to the pages: each shows it when its own count reaches 10 s, not before.
    left = run_until_shown(ana_page, "#clock-warning-partner")
    assert 8_500 < left <= 10_000, left
    assert re.fullmatch(r"Bo has (10|9) s left", partner_warning.inner_text().strip())
    assert ana_page.locator("#seat-2[data-low]").count() == 1
    chip = ana_page.locator("#seat-2 .time-left")
    first = int(re.fullmatch(r"(10|9|8) s", text(chip)).group(1))
    # Ana's own clock is not running out: no warning of her own.
    assert ana_page.locator("#clock-warning-you").is_hidden()
    # Bo, whose time it is, is warned on his page too, and his tab says it.
    bo_left = run_until_shown(bo_page, "#clock-warning-you")
    assert 8_500 < bo_left <= 10_000, bo_left
    assert re.fullmatch(
        r"(10|9|8) s left to move", bo_page.locator("#clock-warning-you").inner_text().strip()
    )
    assert bo_page.locator("#seat-2.you[data-low]").count() == 1
    assert re.match(r"(10|9|8) s left · ", bo_page.title())
    # Announced once, not every second: the text a screen reader was given stays as it was.
    announce = ana_page.locator("#clock-announce-partner")
    said = text(announce)
    assert re.fullmatch(r"Your partner Bo has (10|9) seconds left\.", said)
    assert text(bo_page.locator("#clock-announce-you")).startswith("Your time is running out")
    ana_page.clock.run_for(2_100)
    assert text(announce) == said
    # ...while the plate counts on, second by second.
    assert int(text(chip).removesuffix(" s")) <= first - 2

    # A time-out of Bo's, then Ana's setup pass: its push brings the plates as they are now.
    assert ana_page.locator(".plate .timeouts").count() == 0
    Game.objects.filter(pk=game.pk).update(timeouts={"2": 1})
    seq = seq_of(ana_page)
    ana_page.locator("#hand-form .choosable").first.click()
    ana_page.locator("#btn-pick").click()
    wait_past(ana_page, seq)
    wait_past(bo_page, seq)
    for page in (ana_page, bo_page):
        chip = page.locator("#seat-2 .timeouts")
        assert text(chip) == "1 of 3 time-outs"
        assert "1 of 3 time-outs" in page.locator("#seat-2").get_attribute("aria-label")
        # A plate without a time-out stays clean.
        assert page.locator("#seat-0 .timeouts, #seat-1 .timeouts, #seat-3 .timeouts").count() == 0
    # The push kept the warning right (Bo's clock runs on), and did not announce it again.
    assert partner_warning.is_visible()
    assert ana_page.locator("#seat-2[data-low]").count() == 1
    assert text(announce) == said
    assert ana_errors == [] and bo_errors == []


@pytest.mark.parametrize("players", [4, 8])
@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_the_warnings_and_time_outs_fit_the_table(
    daphne_url, chromium_browser, players, width, height
):
    """Screenshots (test-artifacts/partner-warning-*.png), and the warnings measured: each in
    view, the partner's inside the felt and clear of every plate, the reader's own clear of
    their hand's heading."""
    half = players // 2
    names = ["Ana", "Bo", "Cy", "Di", "Ed"][: half + 1]
    users = [make_user(name.lower(), display_name=name) for name in names]
    game = make_started_game(users, players=players, pace="realtime", move_seconds=15, seed=78)
    # The reader (seat 0) and their partner both running low (7 s and 8 s left once the page's
    # clock is held); two plates with time-outs.
    set_clocks(game, {0: 120, half: 121})
    Game.objects.filter(pk=game.pk).update(timeouts={"1": 1, str(half): 2})
    page, errors = open_table(chromium_browser, daphne_url, users[0], game, width, height)
    page.clock.pause_at(due_of(game, 0) - timedelta(seconds=7))
    page.locator("#clock-warning-partner:not([hidden])").wait_for()
    page.locator("#clock-warning-you:not([hidden])").wait_for()
    page.screenshot(path=str(ARTIFACTS / f"partner-warning-{players}-{width}.png"))

    boxes = page.evaluate(
        """(half) => {
      const box = (el) => { const r = el.getBoundingClientRect();
        return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
      return {
        partner: box(document.getElementById('clock-warning-partner')),
        mine: box(document.getElementById('clock-warning-you')),
        heading: (() => { const r = document.createRange();
          r.selectNodeContents(document.getElementById('hand-heading'));
          const b = r.getBoundingClientRect();
          return {l: b.left, t: b.top, r: b.right, b: b.bottom}; })(),
        concede: box(document.getElementById('btn-concede')),
        felt: box(document.getElementById('table-seats')),
        plates: Array.from(document.querySelectorAll('.plate'), box),
        view: {w: document.documentElement.clientWidth},
      };
    }""",
        half,
    )

    def overlap(a, b):
        return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]

    w, felt = boxes["partner"], boxes["felt"]
    assert (
        felt["l"] <= w["l"] and w["r"] <= felt["r"] and felt["t"] <= w["t"] and w["b"] <= felt["b"]
    )
    assert not [p for p in boxes["plates"] if overlap(p, w)], (w, boxes["plates"])
    assert not overlap(boxes["mine"], boxes["heading"]), boxes
    assert not overlap(boxes["mine"], boxes["concede"]), boxes
    assert boxes["mine"]["r"] <= boxes["view"]["w"]
    assert text(page.locator(f"#seat-{half} .timeouts")) == "2 of 3 time-outs"
    assert text(page.locator("#seat-1 .timeouts")) == "1 of 3 time-outs"
    assert errors == []
