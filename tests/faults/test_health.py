"""/readyz and /metrics with real processes (config/health.py, docs/deploy.md): a Daphne is
ready once a real worker and beat have shown their heartbeats, not ready while the worker
is dead, ready again when it is back; and what every process counted (two Daphnes, a
worker) is added up by whichever Daphne is asked, a killed Daphne's open sockets leaving
the sum."""

import asyncio
import json
import urllib.error
import urllib.request
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from games import store
from games.models import Game
from tests.conftest import make_started_game, make_user
from tests.faults.support import session_cookie, wait_until
from tests.faults.test_two_daphnes import Player

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def readyz(base_url):
    try:
        with urllib.request.urlopen(base_url + "/readyz", timeout=10) as answer:
            return answer.status, json.load(answer)["checks"]
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)["checks"]


def scrape(base_url):
    with urllib.request.urlopen(base_url + "/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def quick_heartbeats(stack):
    """Heartbeats every second, stale after 4, in a cache space of this test's own (a
    heartbeat another test's processes left in Redis must not count here)."""
    stack.env.update(
        HEARTBEAT_SECONDS="1",
        HEARTBEAT_MAX_AGE="4",
        CACHE_KEY_PREFIX=f"health-{uuid.uuid4().hex[:8]}",
    )


def test_ready_with_a_real_worker_and_beat_not_while_the_worker_is_dead(stack, quick_heartbeats):
    site = stack.daphne()

    status, checks = readyz(site)
    assert status == 503
    assert checks == {
        "database": "ok",
        "channel_layer": "ok",
        "worker": "no heartbeat recorded",
        "beat": "no heartbeat recorded",
    }

    stack.worker()
    stack.beat()
    wait_until(
        lambda: readyz(site)[0] == 200,
        60,
        "the site to be ready",
        lambda: str(readyz(site)) + stack.log("beat")[-2000:],
    )

    stack.kill("worker")
    status, checks = wait_until(
        lambda: (found := readyz(site))[0] == 503 and found,
        60,
        "the dead worker to make the site not ready",
    )
    assert checks["worker"].startswith("no heartbeat for ")
    assert (checks["database"], checks["channel_layer"], checks["beat"]) == ("ok", "ok", "ok")

    stack.worker()
    wait_until(
        lambda: readyz(site)[0] == 200, 60, "the site to be ready again", lambda: str(readyz(site))
    )


def test_every_process_counts_into_the_metrics_whichever_daphne_is_asked(stack, tmp_path):
    stack.env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path / "metrics")
    ana = make_user("ana", display_name="Ana")
    # Ana at seat 0 and three bots; turn by turn, so that no clock runs out meanwhile.
    game = make_started_game([ana], bots=["easy"], pace=Game.Pace.TURN_BASED, turn_hours=24)
    first, second = stack.daphne("daphne-1"), stack.daphne("daphne-2")
    ana_page = Player("ana", first, session_cookie(ana), game.pk)

    async def scenario():
        ready = asyncio.Event()
        page = asyncio.create_task(ana_page.run(ready))
        await asyncio.wait_for(ready.wait(), 15)
        try:
            # The worker plays the three bots' setup cards (events 2 to 4).
            await asyncio.to_thread(stack.worker)
            await ana_page.wait_for(4)
            card = await asyncio.to_thread(
                lambda: store.load_state(
                    Game.objects.select_related("snapshot").get(pk=game.pk)
                ).legal_actions(0)[0]
            )
            await ana_page.act(card, "ana-1")
            await ana_page.answered("ana-1")
            return await asyncio.to_thread(scrape, second)
        finally:
            page.cancel()
            await asyncio.gather(page, return_exceptions=True)

    # The scrape is made while Ana's socket (on Daphne 1) is still open.
    seen = asyncio.run(scenario())

    assert ana_page.replies["ana-1"]["type"] == "ok"
    assert value(seen, "wct_sockets_open", kind="table") == 1  # Daphne 1's, read on Daphne 2
    assert value(seen, "wct_decisions_applied_total", actor="person") == 1  # Daphne 1
    assert value(seen, "wct_decisions_applied_total", actor="bot") >= 3  # the worker
    assert value(seen, "wct_bot_decision_seconds_count", level="easy") >= 3
    assert (
        value(seen, "wct_celery_task_seconds_count", task="games.tasks.play_bot", state="SUCCESS")
        >= 3
    )
    assert value(seen, "wct_push_seconds_count") >= 4
    assert value(seen, "wct_games_running", pace="turn") == 1

    # A Daphne killed with a socket open: its socket leaves the sum, its counts stay.
    ana_page = Player("ana", first, session_cookie(ana), game.pk)

    async def opened():
        ready = asyncio.Event()
        page = asyncio.create_task(ana_page.run(ready))
        await asyncio.wait_for(ready.wait(), 15)
        return page

    async def killed_with_a_socket_open():
        page = await opened()
        assert value(await asyncio.to_thread(scrape, second), "wct_sockets_open", kind="table") == 1
        await asyncio.to_thread(stack.kill, "daphne-1")
        page.cancel()
        await asyncio.gather(page, return_exceptions=True)

    asyncio.run(killed_with_a_socket_open())
    after = scrape(second)
    assert value(after, "wct_sockets_open", kind="table") == 0
    assert value(after, "wct_decisions_applied_total", actor="person") == 1
