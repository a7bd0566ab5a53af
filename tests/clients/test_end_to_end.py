"""The client package against the real site: a Daphne process, a real Celery worker and
beat, PostgreSQL and Redis, all subprocesses (the fixtures of
tests/games/api/test_example_bot.py).

The example (examples/random_bot.py, on the package) plays a bot account's seat to the
end of a 4-player and of a 6-player game; then two bot accounts set up a game themselves
through the API (one creates the table, invites the other, adds site bots and starts it)
and the package plays both to the end. Each game's figures are printed (`-s` shows them):
decisions, refusals, the median round trip of a decision over the stream.
"""

import asyncio
import re
import statistics
import time

import pytest
from wildcards_bot import ApiError, Bot, Client, SeatRunner, play_account

from accounts import bot_tokens
from games.models import Game, GameEvent
from tests.conftest import make_user
from tests.games.api.test_example_bot import (  # noqa: F401 (fixtures)
    assert_played_to_the_end,
    daphne_fixture,
    own_queue_fixture,
    run_example,
    sandbox_rate_limit,
    worker_and_beat_fixture,
)

pytestmark = pytest.mark.django_db(transaction=True)

SUMMARY = re.compile(
    r"game (\d+) seat (\d+): (\w+), (\d+) decisions, (\d+) refused, (\d+) reconnects, "
    r"median round trip (\d+) ms"
)


@pytest.mark.parametrize("players", [4, 6])
def test_the_example_plays_a_whole_game_with_the_client_package(daphne, worker_and_beat, players):
    game, code, output, seconds = run_example(
        daphne, worker_and_beat, "examples/random_bot.py", players=players
    )
    assert_played_to_the_end(game, code, output, (worker_and_beat / "daphne.log").read_text())
    found = SUMMARY.search(output)
    assert found, output[-4000:]
    decisions, refused, median = int(found[4]), int(found[5]), int(found[7])
    # Every decision the package counted is one the game took from the bot's seat.
    robo = game.seats.get(number=1).user
    taken = GameEvent.objects.filter(game=game, seat=1, user=robo, actor="person").count()
    assert decisions == taken, output[-4000:]
    print(
        f"\n{players}-player game {game.pk}: {seconds:.1f} s, seat 1 (the example): "
        f"{decisions} decisions, {refused} refused, median round trip {median} ms"
    )


class FirstLegal(Bot):
    """The first legal action (the first cards of the hand for a give): a plain strategy
    whose choices are all the game's own."""

    def decide(self, state):
        view = state.get("view")
        if view and view["must_give"]:
            return {"type": "give", "cards": view["hand"][: view["must_give"]]}
        return state["legal"][0] if state["legal"] else None


async def _set_up(client, guest, players, **options):
    """Ada's table, all through the API: created, Bob invited to seat 1, site bots at the
    other seats. Returns its id; Ada sits at seat 0 as its host."""
    table = await asyncio.to_thread(
        client.create_table, players=players, pace="realtime", move_seconds=45, **options
    )
    assert (table["status"], table["your_seat"]) == ("open", 0)
    game = table["game"]
    await asyncio.to_thread(client.invite, game, 1, guest)
    for seat in range(2, players):
        await asyncio.to_thread(client.add_site_bot, game, seat, "easy")
    return game


async def _start(client, game):
    """The deal, once Bob has accepted (409 until every seat is taken)."""
    until = time.monotonic() + 60
    while True:
        try:
            return await asyncio.to_thread(client.start, game), time.monotonic()
        except ApiError as error:
            if error.status != 409 or time.monotonic() > until:
                raise
            await asyncio.sleep(0.5)


async def _bots_make_their_own_game(url, ada_token, bob_token, players):
    ada, bob = Client(url, ada_token), Client(url, bob_token)
    bot = FirstLegal()
    # Both accounts' seats in one loop: Bob accepts the invitation when he sees it, Ada plays
    # the seat the table gave her as its host.
    plays = [
        asyncio.ensure_future(play_account(account, bot, poll=0.5, games=1, wait=60))
        for account in (ada, bob)
    ]
    # Several rounds, for the figures: a round at site bots' pace takes seconds.
    game = await _set_up(ada, "bob", players, target_score=100)
    started, at = await _start(ada, game)
    results = await asyncio.gather(*plays)
    return game, started, time.monotonic() - at, results


def _bot_accounts():
    ada = make_user("ada", is_bot=True)
    bob = make_user("bob", is_bot=True)
    _, ada_token = bot_tokens.issue(ada, "client")
    _, bob_token = bot_tokens.issue(bob, "client")
    return ada, ada_token, bob, bob_token


def test_two_bot_accounts_set_up_their_own_game_and_play_it_to_the_end(daphne):
    ada, ada_token, bob, bob_token = _bot_accounts()

    game_id, started, seconds, results = asyncio.run(
        _bots_make_their_own_game(daphne, ada_token, bob_token, 4)
    )

    assert started["status"] == "active"
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert game.host == ada
    assert {s.number: s.user for s in game.seats.filter(user__isnull=False)} == {0: ada, 1: bob}
    seats = [result[game_id] for result in results]
    for result, account in zip(seats, (ada, bob), strict=True):
        assert result.status == "finished", result
        taken = GameEvent.objects.filter(
            game=game, seat=result.seat, user=account, actor="person"
        ).count()
        # Every decision went through the bot's own door, none was left to the move timer.
        assert result.decisions == taken >= 3, result
        assert not GameEvent.objects.filter(game=game, seat=result.seat, actor="timeout").exists()
    trips = [trip for result in seats for trip in result.round_trips]
    print(
        f"\nself-made game {game_id}: {seconds:.1f} s, {game.last_seq} events; "
        + "; ".join(
            f"seat {r.seat}: {r.decisions} decisions, {len(r.refused)} refused, "
            f"{r.reconnects} reconnects, median {r.median_ms:.0f} ms"
            for r in seats
        )
        + f"; median round trip of both {statistics.median(trips) * 1000:.0f} ms"
    )


class DropsOnce(SeatRunner):
    """A seat whose stream is dropped once, just after a decision went out and before its
    answer came: a stale socket, as a network drop leaves it."""

    dropped = False

    async def maybe_decide(self):
        await super().maybe_decide()
        if self.pending is not None and not self.dropped and self.result.decisions >= 5:
            self.dropped = True
            self.dropped_key = self.pending.key
            await self.socket.close()


def test_a_decision_whose_answer_was_lost_with_the_stream_is_replayed_by_the_site(daphne):
    """The runner reconnects and sends the unanswered decision again with its key: the site
    took it the first time, so it answers `replayed` and the game moves once."""
    ada, ada_token, bob, bob_token = _bot_accounts()

    async def play():
        client = Client(daphne, ada_token)
        game = await _set_up(client, "bob", 4)
        runner = DropsOnce(client, FirstLegal(), game, 0)
        plays = [
            asyncio.ensure_future(runner.run()),
            asyncio.ensure_future(play_account(Client(daphne, bob_token), FirstLegal(), poll=0.5)),
        ]
        await _start(client, game)
        await asyncio.gather(*plays)
        return game, runner

    game_id, runner = asyncio.run(play())

    result = runner.result
    assert runner.dropped and result.status == "finished", result
    assert result.reconnects >= 1 and result.replayed == 1, result
    # The decision was taken once: one event carries its key.
    game = Game.objects.get(pk=game_id)
    keyed = GameEvent.objects.filter(game=game, idempotency_key__endswith=runner.dropped_key)
    assert keyed.count() == 1
    assert (
        result.decisions
        == GameEvent.objects.filter(game=game, seat=0, user=ada, actor="person").count()
    )
    assert not GameEvent.objects.filter(game=game, seat=0, actor="timeout").exists()
    print(
        f"\ngame {game_id} with a dropped stream: seat 0: {result.decisions} decisions, "
        f"{result.replayed} replayed, {result.reconnects} reconnects, "
        f"median {result.median_ms:.0f} ms"
    )
