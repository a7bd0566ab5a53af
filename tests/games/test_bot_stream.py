"""The Bot API's stream (games.bot_stream): who may open it, what it sends over a whole
game (scanned for cards the seat may not see), revocation closing it at once, and a slow
bot timed out like a person."""

import asyncio
import json
import random

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts import bot_tokens
from games import store, tasks
from games.actions import decisions
from games.bot_stream import CLOSE_BAD_TOKEN, CLOSE_NO_SEAT, CLOSE_REASONS, CLOSE_TOO_MANY
from games.models import Game, GameEvent
from games.presenters.bot_view import seat_state
from games.routing import websocket_urlpatterns
from lobby import services as lobby
from tests.conftest import make_started_game, make_table, make_user
from tests.games.presenters.test_table_secrecy import Knowable, codes_in

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)


def make_bot(username):
    user = make_user(username, is_bot=True, display_name=username.capitalize())
    return user, bot_tokens.issue(user, "test")[1]


def stream(game_id, raw=None):
    headers = [(b"authorization", f"Bearer {raw}".encode())] if raw else []
    return WebsocketCommunicator(application, f"/api/bot/games/{game_id}/stream", headers=headers)


async def closed_with(comm):
    """The close code of a stream refused at once; it says why in words first, in a
    `closing` frame and in the close's reason."""
    connected, _ = await comm.connect()
    assert connected  # accepted, then closed with a code the program can read
    said = await comm.receive_json_from(timeout=5)
    message = await comm.receive_output(timeout=5)
    assert message["type"] == "websocket.close"
    assert said == {
        "type": "closing",
        "code": message["code"],
        "reason": CLOSE_REASONS[message["code"]],
    }
    assert message["reason"] == said["reason"] and said["reason"]
    return message["code"]


@pytest.fixture
def memory_layer(settings):
    """An in-memory channel layer for the streams refused at the handshake, which never
    listen to it. Such a stream is closed by the site but its consumer runs on until the
    test's event loop ends, which cancels it inside channels-redis's blocking read of its
    channel; about one run in ten the loop then waited for ever on that cancellation (a
    lost cancellation in a blocking Redis read, as redis/redis-py#2028 describes)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def bot_game(ana, robo, **options):
    """Ana at seat 0, the bot account at seat 1, site bots at seats 2 and 3."""
    return make_started_game([ana, robo], bot_accounts=True, bots=["easy"], **options)


def test_a_stream_without_a_valid_token_is_refused(ana, memory_layer):
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)

    async def scenario():
        assert await closed_with(stream(game.pk)) == CLOSE_BAD_TOKEN
        assert await closed_with(stream(game.pk, "wct_not-a-token")) == CLOSE_BAD_TOKEN

    async_to_sync(scenario)()


def test_a_revoked_token_cannot_open_a_stream(ana, memory_layer):
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)
    bot_tokens.revoke(robo.api_tokens.get())
    assert async_to_sync(closed_with)(stream(game.pk, raw)) == CLOSE_BAD_TOKEN


def test_a_bot_cannot_open_the_stream_of_a_game_it_holds_no_seat_at(ana, memory_layer):
    robo, _ = make_bot("robo")
    other, other_raw = make_bot("other")
    game = bot_game(ana, robo)

    async def scenario():
        assert await closed_with(stream(game.pk, other_raw)) == CLOSE_NO_SEAT
        assert await closed_with(stream(game.pk + 999, other_raw)) == CLOSE_NO_SEAT

    async_to_sync(scenario)()


def test_the_stream_sends_the_seats_state_as_the_http_api_does_and_again_when_the_game_moves(ana):
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)

    async def scenario():
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_json_from(timeout=5)
        found = await database_sync_to_async(
            lambda: seat_state(Game.objects.select_related("snapshot").get(pk=game.pk), 1)
        )()
        assert first == {"type": "state", **found}
        assert first["view"]["hand"] and "hands" not in json.dumps(first["view"])
        assert first["your_turn"] is True  # the setup pass: every seat chooses a card
        # Ana passes a card: the game moved, so the stream says so, with a newer seq.
        await database_sync_to_async(
            lambda: decisions.apply_decision(
                game.pk,
                0,
                store.load_state(Game.objects.get(pk=game.pk)).auto_action(0),
                "person",
                idempotency_key="ana-1",
            )
        )()
        second = await comm.receive_json_from(timeout=5)
        assert second["type"] == "state" and second["seq"] > first["seq"]
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_revoking_the_token_closes_an_open_stream_at_once(ana):
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)

    async def scenario():
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        assert (await comm.receive_json_from(timeout=5))["type"] == "state"
        await database_sync_to_async(lambda: bot_tokens.revoke(robo.api_tokens.get()))()
        said = await comm.receive_json_from(timeout=2)
        assert said == {
            "type": "closing",
            "code": CLOSE_BAD_TOKEN,
            "reason": CLOSE_REASONS[CLOSE_BAD_TOKEN],
        }
        message = await comm.receive_output(timeout=2)
        assert message == {
            "type": "websocket.close",
            "code": CLOSE_BAD_TOKEN,
            "reason": CLOSE_REASONS[CLOSE_BAD_TOKEN],
        }

    async_to_sync(scenario)()


@pytest.mark.parametrize("moved", [False, True], ids=["seated", "changed-seats"])
# One scenario read top to bottom (the stale stream, then the whole game), its steps closures
# over the game and what was received: split up, the reader would have to chase them.
def test_nothing_the_stream_sends_over_a_whole_game_names_a_card_the_seat_may_not_see(  # noqa: C901
    ana, moved
):
    """The bot account plays random legal moves over its stream; every message it gets is
    scanned for card codes, which must all be ones its seat has been shown. Changed seats:
    before the deal the bot sat at seat 3 with a stream open there, then moved to seat 1;
    that first stream is scanned too, against what seat 1 may see."""
    robo, raw = make_bot("robo")
    if moved:
        game = make_table(ana, players=4, bot_accounts=True, seed=41)
        lobby.take_seat(game.pk, robo, 3)
    else:
        game = bot_game(ana, robo, seed=41)
    knowable = Knowable(game, [1])
    rng = random.Random(7)
    received, leaks = [], []

    def state_now():
        fresh = Game.objects.select_related("snapshot").get(pk=game.pk)
        return fresh, store.load_state(fresh)

    people = {0, 3} if moved else {0}  # the seats of people, played here by the test

    def person_moves(seat):
        fresh, state = state_now()
        decisions.apply_decision(
            game.pk,
            seat,
            state.auto_action(seat),
            "person",
            idempotency_key=f"p{seat}-{fresh.last_seq}",
        )

    def check():
        knowable.refresh()
        known = knowable(1)
        for message in received:
            extra = codes_in(message) - known
            if extra:
                leaks.append((message.get("seq"), sorted(extra)))
        received.clear()

    async def until_seq(comm, seq):
        """Reads what the stream sends until its state has caught up with `seq`."""
        while True:
            message = await comm.receive_json_from(timeout=10)
            received.append(message)
            if message["type"] == "state" and message["seq"] >= seq:
                return message

    def move_and_deal():
        """The bot moves to seat 1 and Bo sits down at seat 3, which it left."""
        lobby.take_seat(game.pk, robo, 1)
        lobby.take_seat(game.pk, make_user("bo"), 3)
        lobby.add_bot(game.pk, ana, 2, "easy")
        lobby.start_table(game.pk, ana)

    async def scenario():
        if moved:
            stale = stream(game.pk, raw)
            connected, _ = await stale.connect()
            assert connected
            assert (await stale.receive_json_from(timeout=5))["seat"] == 3
            await database_sync_to_async(move_and_deal)()
            while True:  # what the stream left at seat 3 is sent, until it closes or falls silent
                try:
                    output = await stale.receive_output(timeout=2)
                except TimeoutError:
                    break
                if output["type"] == "websocket.close":
                    break
                received.append(json.loads(output["text"]))
            # Scanned now: by the game's end every hand has been shown to all.
            await database_sync_to_async(check)()
            assert not leaks, leaks[:5]
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        state = await until_seq(comm, 0)
        states = 1
        for step in range(2000):
            fresh, _ = await database_sync_to_async(state_now)()
            if fresh.status != Game.Status.ACTIVE:
                break
            if state["your_turn"] and state["seq"] == fresh.last_seq:
                view = state["view"]
                action = (
                    {"type": "give", "cards": rng.sample(view["hand"], view["must_give"])}
                    if view["must_give"]
                    else rng.choice(state["legal"])
                )
                await comm.send_json_to({"type": "act", "action": action, "key": f"k{step}"})
            elif set(fresh.waiting_on) & people:
                await database_sync_to_async(person_moves)(min(set(fresh.waiting_on) & people))
            elif set(fresh.waiting_on) & set(fresh.bot_seats):
                # The site bots' tasks are not run by a worker here: they are called.
                seat = min(set(fresh.waiting_on) & set(fresh.bot_seats))
                await database_sync_to_async(tasks.play_bot)(game.pk, seat, fresh.last_seq)
            else:
                await asyncio.sleep(0.05)
                continue
            fresh, _ = await database_sync_to_async(state_now)()
            # The act's answer first, then the state after it (and after the site bots).
            while True:
                state = await until_seq(comm, fresh.last_seq)
                fresh, _ = await database_sync_to_async(state_now)()
                if state["seq"] >= fresh.last_seq:
                    break
            states += 1
            assert not [m for m in received if m["type"] == "error"], received
            await database_sync_to_async(check)()
            assert not leaks, leaks[:5]
        await comm.disconnect()
        return states

    states = async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert states > 20
    # The bot account's own decisions are recorded as a person's, made by its user.
    assert GameEvent.objects.filter(game=game, seat=1, user=robo, actor="person").count() > 5


def test_a_slow_bot_account_times_out_like_a_person_and_after_three_a_site_bot_takes_the_seat(
    ana,
):
    from tests.games.actions.test_clock import start, time_out_once_more
    from tests.games.clock_support import fresh

    robo, _ = make_bot("robo")
    bo, cy = make_user("bo"), make_user("cy")
    game = start([ana, bo, cy, robo], bot_accounts=True, seed=3)
    moment = 0
    for count in (1, 2, 3):
        moment = time_out_once_more(game, 3, moment)
        assert fresh(game).timeouts["3"] == count

    game = fresh(game)
    assert game.stand_ins["3"]["reason"] == "timeouts" and 3 in game.bot_seats
    assert GameEvent.objects.filter(game=game, seat=3, actor="timeout").count() == 3
    told = seat_state(Game.objects.select_related("snapshot").get(pk=game.pk), 3)
    assert told["site_bot"] is True and told["your_turn"] is False
    # Its program's next decision is refused, as a person's would be.
    state = store.load_state(game)
    with pytest.raises(decisions.DecisionRefused):
        decisions.apply_decision(
            game.pk,
            3,
            state.auto_action(3) if 3 in game.waiting_on else {"type": "concede"},
            "person",
            user=robo,
            idempotency_key="late",
        )


def test_act_frames_count_against_the_accounts_requests_with_its_http_calls(ana, settings):
    """One budget for a bot account's HTTP requests and its stream's act frames: with a
    limit of three, an HTTP call and two frames use it up, and the next frame is refused in
    words and decides nothing (before, frames were not counted at all)."""
    settings.API_RATE_LIMIT = 3
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)
    assert (
        Client()
        .get(f"/api/bot/games/{game.pk}", headers={"Authorization": f"Bearer {raw}"})
        .status_code
        == 200
    )
    pick = store.load_state(game).auto_action(1)

    async def scenario():
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_json_from(timeout=5)
        answers = []
        for key in ("a", "b", "c"):
            await comm.send_json_to({"type": "act", "action": {"type": "concede!"}, "key": key})
            answers.append(await comm.receive_json_from(timeout=5))
        # Within the budget a frame is judged (a bad move is refused for what it is); past
        # it, a good move is refused for the limit alone.
        await comm.send_json_to({"type": "act", "action": pick, "key": "d"})
        answers.append(await comm.receive_json_from(timeout=5))
        await comm.disconnect()
        return answers

    answers = async_to_sync(scenario)()
    assert [a["type"] for a in answers] == ["error"] * 4
    assert "Too many requests" not in answers[0]["message"]
    assert "Too many requests" not in answers[1]["message"]
    assert all("Too many requests for this bot account" in a["message"] for a in answers[2:])
    assert not GameEvent.objects.filter(game=game, seat=1).exists()


def test_a_bot_account_holds_at_most_its_limit_of_streams_whatever_its_tokens(ana, settings):
    """With a limit of one, a second stream (even with another token of the account) is
    closed with 4429; once the first closes, a new one may open."""
    settings.API_STREAMS_PER_BOT = 1
    robo, raw = make_bot("robo")
    other_raw = bot_tokens.issue(robo, "second laptop")[1]
    game = bot_game(ana, robo)

    async def scenario():
        first = stream(game.pk, raw)
        connected, _ = await first.connect()
        assert connected
        assert (await first.receive_json_from(timeout=5))["type"] == "state"
        code = await closed_with(stream(game.pk, other_raw))
        await first.disconnect()
        again = stream(game.pk, other_raw)
        connected, _ = await again.connect()
        assert connected
        message = await again.receive_json_from(timeout=5)
        await again.disconnect()
        return code, message

    code, message = async_to_sync(scenario)()
    assert code == CLOSE_TOO_MANY
    assert message["type"] == "state"
    assert bot_tokens.open_streams(robo.pk) == 0


def test_an_act_frame_honours_seq_and_its_ok_says_whether_the_key_was_replayed(ana):
    """Over the stream as over HTTP: a pick sent with the seq the bot read, after Ana's
    simultaneous pick, is applied; the same key again (a retry after a lost answer) is
    answered with the first seq and `replayed`; a second pick made on that old seq is
    refused as stale; a seq from the future and a seq that is no number are told apart."""
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)
    legal = store.load_state(game).legal_actions(1)

    async def scenario():
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        seen = await comm.receive_json_from(timeout=5)
        await database_sync_to_async(
            lambda: decisions.apply_decision(
                game.pk,
                0,
                store.load_state(Game.objects.get(pk=game.pk)).auto_action(0),
                "person",
                idempotency_key="ana-1",
            )
        )()
        answers = {}
        for name, frame in (
            ("applied", {"action": legal[0], "key": "k", "seq": seen["seq"]}),
            ("retried", {"action": legal[0], "key": "k", "seq": seen["seq"]}),
            ("stale", {"action": legal[-1], "key": "k2", "seq": seen["seq"]}),
            ("future", {"action": legal[-1], "key": "k3", "seq": seen["seq"] + 9}),
            ("no number", {"action": legal[-1], "key": "k4", "seq": "7"}),
        ):
            await comm.send_json_to({"type": "act", **frame})
            while True:  # states pushed meanwhile are not the answer
                message = await comm.receive_json_from(timeout=5)
                if message["type"] != "state":
                    answers[name] = message
                    break
        await comm.disconnect()
        return seen, answers

    seen, answers = async_to_sync(scenario)()
    applied = {"type": "ok", "seq": seen["seq"] + 2, "key": "k", "replayed": False}
    assert answers["applied"] == applied
    assert answers["retried"] == {**applied, "replayed": True}
    assert answers["stale"]["type"] == "error" and answers["stale"]["key"] == "k2"
    assert answers["stale"]["message"].startswith("The game has moved on since event")
    assert answers["future"]["message"].startswith(f"There is no event {seen['seq'] + 9}")
    assert answers["no number"]["message"].startswith("seq, when sent,")
    assert GameEvent.objects.filter(game=game, seat=1).count() == 1


def test_a_stream_without_an_origin_is_told_why_and_a_page_socket_is_refused_bare(
    ana, memory_layer
):
    """Through the site's whole socket stack (config.asgi): a program that sends no Origin
    header is accepted and closed with 4403 and the reason in words, before anything of
    the game is read; a page's socket without one is still refused at the handshake."""
    from config.asgi import application as site
    from config.sockets import BAD_ORIGIN, CLOSE_BAD_ORIGIN

    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)
    bearer = [(b"authorization", f"Bearer {raw}".encode())]

    async def scenario():
        program = WebsocketCommunicator(site, f"/api/bot/games/{game.pk}/stream", headers=bearer)
        connected, _ = await program.connect()
        assert connected
        said = await program.receive_json_from(timeout=5)
        closed = await program.receive_output(timeout=5)
        page = WebsocketCommunicator(site, f"/ws/games/{game.pk}/")
        page_connected, _ = await page.connect()
        return said, closed, page_connected

    said, closed, page_connected = async_to_sync(scenario)()
    assert said == {"type": "closing", "code": CLOSE_BAD_ORIGIN, "reason": BAD_ORIGIN}
    assert closed == {"type": "websocket.close", "code": CLOSE_BAD_ORIGIN, "reason": BAD_ORIGIN}
    assert page_connected is False


def test_an_act_frame_the_server_failed_to_save_is_given_back(ana, settings):
    """A frame refused because the database was lost (nothing saved) costs the account
    nothing: with a limit of two, the lost frame and its retry with the same key both go
    through, and the retry is the move."""
    from unittest import mock

    settings.API_RATE_LIMIT = 2
    robo, raw = make_bot("robo")
    game = bot_game(ana, robo)
    pick = store.load_state(game).auto_action(1)

    async def scenario():
        comm = stream(game.pk, raw)
        connected, _ = await comm.connect()
        assert connected
        await comm.receive_json_from(timeout=5)
        frame = {"type": "act", "action": pick, "key": "k"}
        with mock.patch.object(
            decisions.store, "lock_game", side_effect=decisions.OperationalError("lost")
        ):
            await comm.send_json_to(frame)
            lost = await comm.receive_json_from(timeout=5)
        await comm.send_json_to(frame)
        while (retried := await comm.receive_json_from(timeout=5))["type"] == "state":
            pass
        await comm.disconnect()
        return lost, retried

    lost, retried = async_to_sync(scenario)()
    assert lost["type"] == "error" and "try again" in lost["message"]
    assert retried["type"] == "ok" and retried["replayed"] is False
    # The two frames counted as one: one request of the two is left, and then none.
    assert [bot_tokens.charge(robo.pk), bot_tokens.charge(robo.pk) > 0] == [0, True]
