"""The table fits the screen, keeps the focus and logs no error, in a real Chromium.

At the desktop sizes people play on, the felt, every plate, the hand and every control the
hand offers (draw, pass, take, give, the colour choice of a Wild) and the end-of-game
result are inside the viewport without a scroll; on a phone nothing sticks out sideways.
Each is checked by bounding boxes at every decision of real games played through the page.
"""

import json
import re
import time
import uuid

import pytest
from playwright.sync_api import Error as PlaywrightError

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.browser_support import PATIENCE_MS
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import logged_in_page
from tests.e2e.test_keyboard import KEYS_OF_CARDS
from tests.e2e.test_table_browser import ATTEMPT_MS, finished, seq_of, wait_for_news, wait_past

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The focus test's deals, fixed so that each plays the same game whatever ran before it. After
# Ana's setup pass the bots play, in her own request, until she has a decision again: in
# SEED's deal her turn; in SWAP_SEED's a symbol swap (her partner's first card carries the
# passing symbol), where she chooses a card again and her hand stays in data-mode=pick.
SEED = 43
SWAP_SEED = 20259

# What must be in view, by selector; each that exists and is shown is measured.
ALWAYS = ["#table-status", "#table-seats", "#table-hand", "#table-log", ".plate"]
CONTROLS = [
    "#hand-form .hand-card",
    "#btn-draw",
    "#btn-pass",
    "#btn-take",
    "#btn-pick",
    "#btn-give",
    "#btn-concede",
    ".colour-choice:not([hidden]) fieldset",
]
RESULT = ["#table-result.current h2", "#table-result .ranking", ".play-again button"]

OUT_OF_VIEW = """(selectors) => {
  const out = [];
  const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (el.closest("[hidden]")) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5)
        out.push(`${sel} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
    }
  }
  return out;
}"""

# Cards whose centre, where a tap lands, lies under the next card of their row. Measured on
# the slots (li), which a card's lift or flight does not move.
CENTRES_COVERED = """() => {
  const slots = Array.from(document.querySelectorAll('#hand-form .hand > li:has(.hand-card)'));
  return slots.slice(0, -1).flatMap((li, i) => {
    const here = li.getBoundingClientRect(), next = slots[i + 1].getBoundingClientRect();
    const centre = here.left + li.querySelector('.hand-card').offsetWidth / 2;
    return Math.abs(next.top - here.top) < 2 && next.left < centre + 1
      ? [`card ${i + 1} of ${slots.length}: centre at ${centre}, next card from ${next.left}`] : [];
  });
}"""

SCROLLS = """() => {
  const d = document.documentElement;
  return {x: d.scrollWidth - d.clientWidth, y: d.scrollHeight - d.clientHeight};
}"""


def _decide(page, seen, check):
    """Makes this seat's decision through the page, measuring first what it will click.
    Returns False when the seat has none."""
    form = page.locator("#hand-form")
    if not form.count():
        return False
    mode = form.get_attribute("data-mode")
    if mode in ("pick", "give"):
        seen.add(mode)
        need = int(form.get_attribute("data-need"))
        pressed = page.locator("#hand-form .choosable[aria-pressed=true]").count()
        cards = page.locator("#hand-form .choosable:not([disabled]):not([aria-pressed=true])")
        for _ in range(max(0, need - pressed)):
            cards.nth(0).click()
        page.locator("#btn-pick, #btn-give").first.click()
        return True
    if mode != "play":
        return False
    playable = page.locator("#hand-form .hand-card.playable")
    if playable.count():
        card = playable.first
        if card.get_attribute("data-wild"):
            # Its click opens its colours, or closes them if an earlier try left them open.
            if card.get_attribute("aria-expanded") != "true":
                card.click()
            seen.add("colour")
            check(page, "the colour choice of a Wild")
            page.locator(".colour-choice:not([hidden])").get_by_role("button", name="Blue").click()
        else:
            card.click()
            seen.add("play")
        return True
    for selector, what in (("#btn-take", "take"), ("#btn-draw", "draw"), ("#btn-pass", "pass")):
        button = page.locator(selector)
        if button.count():
            seen.add(what)
            button.click()
            return True
    return False


def in_view(page, when):
    out = page.evaluate(OUT_OF_VIEW, ALWAYS + CONTROLS)
    assert not out, f"out of view ({when}): {out}"
    scrolls = page.evaluate(SCROLLS)
    assert scrolls == {"x": 0, "y": 0}, f"the page scrolls ({when}): {scrolls}"


def play_measuring(page, check, *, limit=400, moves=None, stall_seconds=60):
    """Plays this seat through the page, calling `check` before every decision it makes.
    Fails, rather than hangs, when no new event reaches the page for `stall_seconds`."""
    seen, made, failed = set(), 0, None
    last_seq, last_change = seq_of(page), time.monotonic()
    while not finished(page) and made < limit and (moves is None or made < moves):
        # Attached, not visible: the word "Live" goes once the game is over, which it may be
        # by now.
        page.locator("#connection[data-state=live]").wait_for(state="attached")
        seq = seq_of(page)
        if seq != last_seq:
            last_seq, last_change = seq, time.monotonic()
        assert time.monotonic() - last_change < stall_seconds, (
            f"no new event for {stall_seconds} s at {seq} (last failed click: {failed}): "
            + page.locator("#table-page").inner_text()[:1500]
        )
        if page.locator(
            "#hand-form[data-mode=play], #hand-form[data-mode=pick], #hand-form[data-mode=give]"
        ).count():
            check(page, f"at event {seq}")
        page.set_default_timeout(ATTEMPT_MS)  # a try, repeated once the page has news
        try:
            acted = _decide(page, seen, check)
        except PlaywrightError as error:  # a push replaced the hand between a look and a click
            acted, failed = False, str(error).splitlines()[:12]
        finally:
            page.set_default_timeout(PATIENCE_MS)
        if acted:
            made += 1
            wait_past(page, seq)
        else:
            wait_for_news(page, seq)
    return seen, made


def _errors(page):
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


@pytest.mark.parametrize("width,height,players", [(1280, 800, 4), (1366, 768, 8), (1920, 1080, 6)])
def test_the_whole_table_and_every_control_fit_a_desktop_screen(
    daphne_url, chromium_browser, width, height, players
):
    ana = make_user("ana")
    # A fixed deal: the seed counter's next value depends on which tests ran before, and a
    # short game would not outgrow a push's log (the whole-log check below needs > 40 moves).
    game = make_started_game([ana], players=players, pace="realtime", move_seconds=45, seed=57)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": width, "height": height})
    errors = _errors(page)
    page.goto(f"{daphne_url}/games/{game.pk}/")

    seen, made = play_measuring(page, in_view, moves=None if players == 4 else 25)

    assert made >= 3
    assert "pick" in seen and ({"play", "colour", "draw"} & seen), seen
    if players == 4:
        # The end: the result and the way to a new game, in view as they come.
        page.get_by_role("heading", name="Final result").wait_for()
        out = page.evaluate(OUT_OF_VIEW, RESULT + ["#table-result.current"])
        assert not out, out
        assert page.evaluate(SCROLLS) == {"x": 0, "y": 0}
        # The log the pushes built, each holding only the newest moves, is the whole game's,
        # as a fresh page draws it.
        moves = (
            "() => Array.from(document.querySelectorAll('#table-log li.move'),"
            " li => li.dataset.seq)"
        )
        pushed = page.evaluate(moves)
        page.reload()
        page.get_by_role("heading", name="Final result").wait_for()
        assert len(pushed) > 40 and pushed == page.evaluate(moves)
    assert errors == []


def test_on_a_phone_nothing_sticks_out_sideways_over_a_whole_game(daphne_url, chromium_browser):
    ana = make_user("ana")
    # A fixed deal in which Ana comes to hold eleven cards, more than a phone's row has room
    # for at a full card's width each.
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=4)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.set_viewport_size({"width": 390, "height": 844})
    errors = _errors(page)
    page.goto(f"{daphne_url}/games/{game.pk}/")

    def sideways(page, when):
        assert page.evaluate(SCROLLS)["x"] == 0, f"the page is wider than the phone ({when})"
        right = page.evaluate("""() => Math.max(...Array.from(document.querySelectorAll(
            '.plate, #table-hand button, #table-status li'),
            el => el.getBoundingClientRect().right))""")
        assert right <= 390.5, f"something ends at x={right} ({when})"
        covered = page.evaluate(CENTRES_COVERED)
        assert not covered, f"a card's centre is under the next card ({when}): {covered}"

    seen, made = play_measuring(page, sideways)

    assert finished(page) and made >= 3
    sideways(page, "at the end")
    assert errors == []


def _two_people():
    ana, bo = make_user("ana"), make_user("bo")
    game = make_started_game([ana, bo], players=4, pace="realtime", move_seconds=45)
    return game, ana, bo


def test_the_focus_stays_on_its_control_when_someone_else_moves(daphne_url, chromium_browser):
    game, ana, bo = _two_people()
    ana_page = logged_in_page(chromium_browser, daphne_url, ana)
    bo_page = logged_in_page(chromium_browser, daphne_url, bo)
    for page in (ana_page, bo_page):
        page.goto(f"{daphne_url}/games/{game.pk}/")
        page.locator("#connection[data-state=live]").wait_for()
    # Everyone chooses a card for the setup pass; Ana has not yet, and looks at the pile.
    ana_page.locator("#discard-summary").focus()
    seq = seq_of(ana_page)

    bo_page.locator("#hand-form .choosable").first.click()
    bo_page.locator("#btn-pick").click()
    wait_past(ana_page, seq)

    assert ana_page.evaluate("document.activeElement.id") == "discard-summary"


class LatePushes:
    """Holds the pushes of the page's game socket from hold() to release(): over Redis a
    push can reach the page after the answer to the request that caused it (docs/table.md)."""

    FRAGMENTS = """() => { window.__fragments = 0; document.addEventListener('table:message',
      (e) => { if (e.detail.type === 'fragments') window.__fragments += 1; }); }"""

    def __init__(self, page):
        self.page, self.held, self.holding = page, [], False
        page.add_init_script(f"({self.FRAGMENTS})()")
        page.route_web_socket(re.compile(r"/ws/games/\d+/$"), self._route)

    def _route(self, ws):
        server = ws.connect_to_server()

        def from_server(message):
            if self.holding and json.loads(message).get("type") == "fragments":
                self.held.append((ws, message))
            else:
                ws.send(message)

        server.on_message(from_server)

    def hold(self):
        self.holding = True

    def release(self):
        """Passes the held pushes on and waits until the page has read them all."""
        self.holding = False
        read = self.page.evaluate("window.__fragments")
        for ws, message in self.held:
            ws.send(message)
        self.page.wait_for_function("n => window.__fragments >= n", arg=read + len(self.held))
        count, self.held = len(self.held), []
        return count


def _ana_passes_last(seed):
    """Ana and three bots of `seed`'s deal, the bots' setup cards chosen before her page
    opens, so that her choice ends the setup pass in her own request: what is under test is
    her page, not how soon the server's bots answer."""
    ana = make_user("ana")
    game = make_started_game([ana], players=4, pace="realtime", move_seconds=45, seed=seed)
    for seat in (1, 2, 3):
        state = store.load_state(Game.objects.get(pk=game.pk))
        decisions.apply_decision(
            game.pk,
            seat,
            state.auto_action(seat),
            GameEvent.Actor.BOT,
            idempotency_key=uuid.uuid4().hex,
        )
    return ana, game


@pytest.mark.parametrize(
    "seed,late,then",
    [(SEED, False, "play"), (SWAP_SEED, True, "pick")],
    ids=["her-turn", "symbol-swap-pushes-after-the-answer"],
)
def test_the_focus_stays_in_the_hand_after_a_card_leaves_it(
    daphne_url, chromium_browser, seed, late, then
):
    ana, game = _ana_passes_last(seed)
    page = logged_in_page(chromium_browser, daphne_url, ana)
    pushes = LatePushes(page)
    page.goto(f"{daphne_url}/games/{game.pk}/")
    page.locator("#connection[data-state=live]").wait_for()

    # The setup pass by keyboard: the first card that may be passed (a deal may put one that
    # may not first), then S sends it.
    page.locator("#hand-form[data-mode=pick]").wait_for()
    (key,) = page.evaluate(KEYS_OF_CARDS, 1)
    page.keyboard.press(key)
    assert page.locator("#hand-form .choosable[aria-pressed=true]").count() == 1
    if late:
        pushes.hold()
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/act/")
    ) as answer:
        page.keyboard.press("s")
    assert answer.value.status == 200
    # Her answer is the table after her pass and the bots' plays that followed it in her
    # request; the page shows it whichever of it and their pushes comes first. What her hand
    # offers next is the deal's: a later decision may be a pick again (a symbol swap).
    after = Game.objects.get(pk=game.pk).last_seq
    wait_past(page, after - 1)
    if late:
        assert pushes.release() > 0
    assert seq_of(page) == after  # the late pushes were old news
    assert page.locator("#hand-form").get_attribute("data-mode") == then
    assert GameEvent.objects.filter(game=game, seat=0, kind="pass").exists()

    # The chosen card has left the hand and the sent button is gone: the focus is still in
    # the hand, not on the page, so the next Tab or shortcut starts from there.
    assert page.evaluate("document.activeElement !== document.body")
    assert page.evaluate("!!document.activeElement.closest('#table-hand')")
