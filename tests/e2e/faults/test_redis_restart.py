"""Redis killed and started again during a game (our own redis-server on port 6391: the
channel layer, the broker and the cache all lose every key): no event is lost, because
events live in PostgreSQL, and every open page recovers: its socket reconnects, it resyncs
what it missed, and pushes reach it live again. A real Chromium on a real Daphne, with a
real worker and beat.
"""

import pytest
from django.db import transaction

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.e2e.faults.conftest import page_for
from tests.faults.support import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Counts the table sockets a page opens, so that a push can be told from a reconnect's
# resync. The site socket (/ws/me/, the header's count) reconnects on its own back-off and
# is not counted.
COUNT_SOCKETS = """
(() => {
  const Real = window.WebSocket;
  window.__sockets = 0;
  window.WebSocket = function (...args) {
    if (String(args[0]).includes("/ws/games/")) window.__sockets += 1;
    return new Real(...args);
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


def seq_of(page):
    return int(page.locator("#table-page").get_attribute("data-seq"))


def wait_seq(page, seq, timeout=60_000):
    page.wait_for_function(
        "s => parseInt(document.getElementById('table-page').dataset.seq) >= s",
        arg=seq,
        timeout=timeout,
    )


def live(page, timeout=60_000):
    page.locator("#connection[data-state=live]").wait_for(timeout=timeout)


def pass_a_card(page):
    page.locator("#hand-form .choosable:not([disabled])").first.click()
    page.get_by_role("button", name="Pass card").click()


def test_redis_restarted_mid_game_loses_no_event_and_every_page_recovers(
    own_redis, chromium_browser
):
    redis, stack = own_redis
    sweeps = {"BOT_SWEEP_SECONDS": "1", "BOT_STALL_SECONDS": "2", "CLOCK_SWEEP_SECONDS": "1"}
    url = stack.daphne()
    stack.worker(env=sweeps)
    stack.beat(env=sweeps)
    ana, bo = make_user("ana", display_name="Ana"), make_user("bo", display_name="Bo")
    game = make_started_game([ana, bo], bots=["easy"], pace=Game.Pace.TURN_BASED, turn_hours=24)

    ana_page = page_for(chromium_browser, url, ana)
    ana_page.context.add_init_script(COUNT_SOCKETS)
    ana_tab = page_for(chromium_browser, url, ana, context=ana_page.context)  # a second tab
    bo_page = page_for(chromium_browser, url, bo)
    bo_page.context.add_init_script(COUNT_SOCKETS)
    pages = (ana_page, ana_tab, bo_page)
    for page in pages:
        page.goto(f"{url}/games/{game.pk}/")
        live(page)
        page.evaluate("window.__notReloaded = true")
    for page in pages:
        wait_seq(page, 3)  # both bots chose their setup card (the worker's moves, pushed)

    redis.kill()
    # Ana moves while Redis is gone: the move is a PostgreSQL transaction and is stored;
    # only its push is lost.
    pass_a_card(ana_page)
    wait_until(lambda: GameEvent.objects.filter(game=game, seq=4).exists(), 60, "Ana's move")
    for page in pages:
        page.locator("#connection[data-state=offline]").wait_for(timeout=60_000)
    # Daphne closed them with a code its websocket library accepts (it raised on 1011).
    assert "invalid close code" not in stack.log("daphne"), stack.log("daphne")[-3000:]
    # The pages try again while Redis is down: each socket is closed as it opens (it cannot
    # join its groups), with one warning, not a handshake ending in an exception.
    wait_until(
        lambda: "the channel layer is out of reach" in stack.log("daphne"),
        30,
        "a socket refused while Redis is down",
        lambda: stack.log("daphne")[-3000:],
    )
    assert "Exception inside application" not in stack.log("daphne"), stack.log("daphne")[-3000:]

    redis.start()
    # Every page reconnects and fetches what it missed (seq 4) over HTTP.
    for page in pages:
        live(page)
        wait_seq(page, 4)
    sockets = {page: page.evaluate("window.__sockets") for page in (ana_page, bo_page)}

    # Pushes reach every page live again, on the socket it has now (no further reconnect).
    pass_a_card(bo_page)  # the last setup card: partners swap, then play begins
    wait_until(lambda: GameEvent.objects.filter(game=game, seq=5).exists(), 60, "Bo's move")
    for page in pages:
        wait_seq(page, 5)
    assert {page: page.evaluate("window.__sockets") for page in (ana_page, bo_page)} == sockets
    assert all(page.evaluate("window.__notReloaded") for page in pages)

    # The worker is back on the new Redis too: the game goes on until a person must move
    # (the bots' moves after Bo's were queued on the new Redis, or re-sent by beat's sweep).
    def settled():
        game.refresh_from_db()
        return game.status != Game.Status.ACTIVE or set(game.waiting_on) & {0, 1}

    wait_until(settled, 60, "the bots to play on", lambda: stack.log("worker")[-3000:])
    for page in pages:
        wait_seq(page, game.last_seq)
    assert len({seq_of(page) for page in pages}) == 1

    # Nothing lost, nothing doubled: events 1..n, and they replay to the stored state.
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.last_seq + 1))
    assert store.replay(game).to_dict() == game.snapshot.state
    assert GameEvent.objects.filter(game=game, seat=0, actor="person").count() == 1
    assert GameEvent.objects.filter(game=game, seat=1, actor="person").count() == 1


def _seed_where_a_bot_plays_first():
    """A seed whose first turn after the setup pass is a bot's (seats 1 to 3), so that Ana's
    setup card, the last one, makes a bot move due at once."""
    from games import engine

    options = Game(players=4, pace=Game.Pace.TURN_BASED, turn_hours=24).engine_options()
    for seed in range(1, 100):
        state = engine.Game.new(options, seed)
        for seat in (1, 2, 3, 0):
            state.act(seat, state.auto_action(seat))
        if set(decisions.pending_seats(state)) & {1, 2, 3}:
            return seed
    raise AssertionError("no seed found")


def test_a_move_that_makes_a_bot_due_while_redis_is_down_is_stored_and_the_bot_follows(
    own_redis, chromium_browser
):
    """The move's transaction commits in PostgreSQL; sending the bot's task (and the push)
    then fails with Redis gone. The player must not be told the move failed, and once Redis
    is back beat's stalled-bot sweep sends the bot's move that was never queued."""
    redis, stack = own_redis
    sweeps = {"BOT_SWEEP_SECONDS": "1", "BOT_STALL_SECONDS": "2", "CLOCK_SWEEP_SECONDS": "1"}
    url = stack.daphne()
    stack.worker(env=sweeps)
    stack.beat(env=sweeps)
    ana = make_user("ana", display_name="Ana")
    game = make_started_game(
        [ana],
        bots=["easy"],
        pace=Game.Pace.TURN_BASED,
        turn_hours=24,
        seed=_seed_where_a_bot_plays_first(),
    )
    page = page_for(chromium_browser, url, ana)
    page.goto(f"{url}/games/{game.pk}/")
    live(page)
    wait_seq(page, 4)  # the three bots chose their setup cards

    redis.kill()
    pass_a_card(page)
    page.get_by_text("You chose").first.wait_for(timeout=60_000)  # the answer to the post
    assert page.locator("#flash").text_content() == ""
    assert page.locator("#table-status [role=alert]").count() == 0
    game.refresh_from_db()
    assert game.last_seq >= 5 and set(game.waiting_on) & {1, 2, 3}
    stored = game.last_seq

    redis.start()
    wait_until(
        lambda: GameEvent.objects.filter(game=game, seq=stored + 1).exists(),
        60,
        "the bot's move after Redis came back",
        lambda: stack.log("worker")[-3000:],
    )
    live(page)
    game.refresh_from_db()
    wait_seq(page, game.last_seq)
    assert GameEvent.objects.get(game=game, seq=stored + 1).actor == "bot"
    assert "could not send games.tasks.play_bot" in stack.log("daphne")  # it was never queued
    # The bots may still be playing: count the events under the game's lock.
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        seqs = list(
            GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)
        )
    assert seqs == list(range(1, game.last_seq + 1))
