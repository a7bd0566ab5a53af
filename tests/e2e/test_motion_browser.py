"""Motion at the table (static/js/motion.js) in a real Chromium against a real Daphne: moves
animate, reduced motion animates nothing, the last player to act is marked on the felt as
each push arrives, and the sound is off until the player turns it on.

The Daphne plays bots inline, so a person's move and the bots' answers arrive as a burst of
pushes, each a few milliseconds after the one before: what a table looks like when several
moves come at once.
"""

import re
from itertools import pairwise

import pytest

from games.models import Game, GameEvent
from lobby import services as lobby
from tests.browser_support import PATIENCE_MS
from tests.conftest import make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page
from tests.e2e.test_table_browser import act_once, seq_of, wait_for_news, wait_past

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Before the page's own scripts: counts every element.animate and every oscillator started,
# and keeps every audio context made, so that a test can see when one runs.
COUNT = """
window.__animateCalls = 0;
window.__oscillators = 0;
window.__audio = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function () {
  window.__animateCalls++;
  return animate.apply(this, arguments);
};
for (const Ctx of [window.AudioContext, window.webkitAudioContext]) {
  if (!Ctx) continue;
  const make = Ctx.prototype.createOscillator;
  Ctx.prototype.createOscillator = function () {
    window.__oscillators++;
    return make.apply(this, arguments);
  };
}
if (window.AudioContext) {
  window.AudioContext = class extends window.AudioContext {
    constructor(...args) { super(...args); window.__audio.push(this); }
  };
}
"""

# After motion.js (so its listener runs first): what each swap left running.
RECORD = """() => {
  window.__swaps = [];
  document.addEventListener("table:swapped", () => {
    const last = document.querySelector("#table-seats .plate.last-acted");
    window.__swaps.push({
      seq: parseInt(document.getElementById("table-page").dataset.seq, 10),
      running: document.getAnimations().filter((a) => a.playState === "running").length,
      clones: document.querySelectorAll(".motion-layer .motion-card").length,
      stale: Array.from(document.querySelectorAll(".motion-layer .motion-card"))
        .filter((c) => c.dataset.seq !== document.getElementById("table-page").dataset.seq).length,
      last: last ? last.id : null,
      lastCount: document.querySelectorAll("#table-seats .plate.last-acted").length,
    });
  });
}"""


def game_against_bots(seed):
    ana = make_user("ana", display_name="Ana")
    game = lobby.create_table(ana, seed=seed, target_score=300)
    for seat in (1, 2, 3):
        lobby.add_bot(game.pk, ana, seat, "easy")
    lobby.start_table(game.pk, ana)
    return ana, Game.objects.get(pk=game.pk)


def open_table(browser, base_url, user, game, **context_options):
    page = logged_in_page(browser, base_url, user)
    if context_options:
        # logged_in_page makes its own context; this one adds the options asked for.
        cookies = page.context.cookies()
        page.context.close()
        context = browser.new_context(viewport={"width": 1100, "height": 850}, **context_options)
        context.add_cookies(cookies)
        page = context.new_page()
        page.set_default_timeout(PATIENCE_MS)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.context.add_init_script(COUNT)
    page.goto(f"{base_url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()
    page.evaluate(RECORD)
    return page, errors


def play_moves(page, game, count):
    """Makes `count` of this seat's decisions by clicking, each time waiting until the page
    shows every move the bots made after it."""
    made = 0
    for _ in range(count * 20):
        if made >= count:
            break
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seq = seq_of(page)
        if act_once(page):
            made += 1
            wait_past(page, seq)
        else:
            wait_for_news(page, seq)
    game.refresh_from_db()
    wait_past(page, game.last_seq - 1)
    return made


def last_to_act_at(game, seq):
    """The seat of the newest event row up to `seq` with a public event naming a seat."""
    for row in GameEvent.objects.filter(game=game, seq__lte=seq).order_by("-seq"):
        seated = [e for e in row.events if e.get("visible_to") is None and "seat" in e]
        if seated:
            return seated[0]["seat"]
    return None


def test_moves_animate_and_the_last_player_to_act_is_marked_as_each_push_arrives(
    daphne_url, chromium_browser
):
    ana, game = game_against_bots(seed=3)
    page, errors = open_table(chromium_browser, daphne_url, ana, game)
    wait_past(page, game.last_seq - 1)  # the page shows the game as it is stored

    made = play_moves(page, game, 8)

    assert made >= 4
    swaps = page.evaluate("() => window.__swaps")
    assert len(swaps) >= made
    # Moves set cards flying (clones on the motion layer) and the hand's cards sliding.
    assert page.evaluate("() => window.__animateCalls") > 0
    assert any(s["running"] > 0 for s in swaps), swaps
    assert any(s["clones"] > 0 for s in swaps), swaps
    # A burst of pushes does not pile flights up: each new move ends the one before.
    assert all(s["stale"] == 0 for s in swaps), swaps
    assert len(swaps) > len({s["seq"] for s in swaps}) or any(
        b["seq"] - a["seq"] == 1 for a, b in pairwise(swaps)
    )
    # After every push exactly the plate of whoever acted last is marked.
    for s in swaps:
        seat = last_to_act_at(game, s["seq"])
        assert s["last"] == (None if seat is None else f"seat-{seat}"), (s, seat)
        assert s["lastCount"] == (0 if seat is None else 1)
    assert len({s["last"] for s in swaps}) >= 2, swaps
    plate = page.locator("#table-seats .plate.last-acted")
    assert plate.get_attribute("aria-label").endswith(", last to act")
    # Nothing stays on the layer once the motion is over.
    page.wait_for_function("() => !document.querySelector('.motion-layer .motion-card')")
    page.screenshot(path=str(ARTIFACTS / "motion-table.png"))
    assert errors == []


def test_with_reduced_motion_a_whole_sequence_of_moves_animates_nothing(
    daphne_url, chromium_browser
):
    ana, game = game_against_bots(seed=3)
    page, errors = open_table(chromium_browser, daphne_url, ana, game, reduced_motion="reduce")
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")

    made = play_moves(page, game, 8)

    assert made >= 4
    swaps = page.evaluate("() => window.__swaps")
    assert len(swaps) >= made
    assert page.evaluate("() => window.__animateCalls") == 0
    assert all(s["running"] == 0 and s["clones"] == 0 for s in swaps), swaps
    assert page.evaluate("() => document.getAnimations().length") == 0
    # The table's own CSS transitions are off too.
    duration = page.evaluate("""() => [".hand-card", "#table-seats .direction"].map((s) =>
        getComputedStyle(document.querySelector(s)).transitionDuration).join(", ")""")
    assert re.fullmatch(r"0s(, 0s)*", duration), duration
    # The last player to act is still marked: it is no motion.
    # (read at once: a bot's move may still be arriving)
    seq, marked = (
        page.evaluate("""() => [parseInt(document.getElementById("table-page").dataset.seq, 10),
        document.querySelector("#table-seats .plate.last-acted").id]""")
    )
    assert marked == f"seat-{last_to_act_at(game, seq)}"
    assert errors == []


def test_the_sound_is_off_until_turned_on_and_is_remembered(daphne_url, chromium_browser):
    ana, game = game_against_bots(seed=3)
    page, errors = open_table(chromium_browser, daphne_url, ana, game)
    toggle = page.get_by_role("button", name="Sound: off")
    assert toggle.get_attribute("aria-pressed") == "false"
    # Off: moves make no sound.
    play_moves(page, game, 2)
    assert page.evaluate("() => window.__oscillators") == 0

    toggle.click()
    toggle = page.get_by_role("button", name="Sound: on")
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.evaluate("() => localStorage.getItem('wct-sound')") == "on"
    heard = page.evaluate("() => window.__oscillators")
    assert heard > 0  # the toggle lets the player hear what it sounds like

    # Remembered across a reload; sound comes back with the first gesture on the page.
    page.reload()
    page.locator("#connection[data-state=live]").wait_for()
    toggle = page.get_by_role("button", name="Sound: on")
    assert toggle.get_attribute("aria-pressed") == "true"
    page.locator("#table-status").click()
    page.wait_for_function("() => window.__audio.some((audio) => audio.state === 'running')")
    play_moves(page, game, 3)
    assert page.evaluate("() => window.__oscillators") > 0

    toggle.click()
    assert page.get_by_role("button", name="Sound: off").get_attribute("aria-pressed") == "false"
    page.reload()
    page.locator("#connection[data-state=live]").wait_for()
    assert page.get_by_role("button", name="Sound: off").is_visible()
    assert errors == []
