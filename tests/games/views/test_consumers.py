"""The game socket: who may listen, what each seat receives, and moves sent over it."""

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection

from games import effects, engine, push, store
from games.actions import decisions
from games.models import Game, GameEvent
from games.presenters import table
from games.routing import websocket_urlpatterns
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)


def communicator(game, user, path=None):
    comm = WebsocketCommunicator(application, path or f"/ws/games/{game.pk}/")
    comm.scope["user"] = user
    return comm


def state_of(game):
    return store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))


def move(game, seat):
    action = state_of(game).legal_actions(seat)[0]
    decisions.apply_decision(game.pk, seat, action, "person")


def event_count(game):
    return GameEvent.objects.filter(game=game).count()


def hand_labels(html):
    return re.findall(
        r'class="card hand-card[^"]*" id="card-\d+-[A-Z0-9]+"[^>]*>'
        r'<span class="visually-hidden">([^<]+)</span>',
        html,
    )


async def connected(comm):
    ok, _ = await comm.connect()
    assert ok
    hello = await comm.receive_json_from(timeout=5)
    assert hello["type"] == "hello"
    return hello


def test_a_seat_gets_its_own_fragments_after_each_event_and_nothing_else(four):
    game = make_started_game(four)
    bo_hand = [engine.card_name(c) for c in state_of(game).view(1)["hand"]]

    async def scenario():
        comm = communicator(game, four[1])
        hello = await connected(comm)
        assert hello == {"type": "hello", "seq": 1, "seat": 1}
        await database_sync_to_async(move)(game, 3)
        push = await comm.receive_json_from(timeout=5)
        assert push["type"] == "fragments" and push["seq"] == 2
        html = push["html"]
        for fragment in (
            "table-status",
            "table-seats",
            "table-hand",
            "table-log",
            "table-announce",
        ):
            assert f'id="{fragment}"' in html
        assert hand_labels(html) == bo_hand
        assert re.search(r'class="plate team-1 you[^"]*"[^>]*id="seat-1"', html)
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_move_made_while_the_socket_joins_its_groups_is_not_missed(four, monkeypatch):
    """A reconnecting page learns of a move committed while its socket was joining its
    groups: either the hello counts it (and the page resyncs) or it comes as a push. The
    socket that read the game before joining showed neither, and sat one event behind."""
    game = make_started_game(four)
    layer = get_channel_layer()
    joining = layer.group_add
    moved = []

    async def join_after_a_move(group, channel):
        if not moved:
            moved.append(True)
            await database_sync_to_async(move)(game, 2)
        await joining(group, channel)

    monkeypatch.setattr(layer, "group_add", join_after_a_move)

    async def scenario():
        comm = communicator(game, four[1])
        hello = await connected(comm)
        if hello["seq"] < 2:
            push = await comm.receive_json_from(timeout=5)
            assert push["type"] == "fragments" and push["seq"] == 2
        await comm.disconnect()

    async_to_sync(scenario)()
    assert moved and event_count(game) == 2


def test_each_connected_seat_gets_a_different_rendering_of_the_same_event(four):
    game = make_started_game(four)
    hands = [[engine.card_name(c) for c in state_of(game).view(s)["hand"]] for s in range(4)]

    async def scenario():
        comms = [communicator(game, user) for user in four]
        for comm in comms:
            await connected(comm)
        await database_sync_to_async(move)(game, 2)
        for seat, comm in enumerate(comms):
            push = await comm.receive_json_from(timeout=5)
            assert push["seq"] == 2
            assert hand_labels(push["html"]) == hands[seat]
            assert await comm.receive_nothing(timeout=0.1)
            await comm.disconnect()

    async_to_sync(scenario)()


def test_only_seats_with_an_open_page_are_rendered(four, monkeypatch):
    """A push renders a seat's fragments only if a socket is in its group: a player without
    the page open (most of a turn-by-turn game) costs no rendering."""
    game = make_started_game(four, spectators=True)
    rendered = []

    def counting(render):
        def rendering(context, request=None, **options):
            rendered.append(context["seat"])
            return render(context, request, **options)

        return rendering

    # A push is rendered whole (with Redis) or in pieces (the in-memory layer's, cut down to
    # what changed: games.push.changes).
    monkeypatch.setattr(table, "render_fragments", counting(table.render_fragments))
    monkeypatch.setattr(table, "render_pieces", counting(table.render_pieces))

    async def scenario():
        comm = communicator(game, four[1])
        await connected(comm)
        await database_sync_to_async(move)(game, 0)
        push = await comm.receive_json_from(timeout=5)
        assert push["type"] == "fragments" and push["seq"] == 2
        await comm.disconnect()
        await database_sync_to_async(move)(game, 2)  # now nobody has the page open

    async_to_sync(scenario)()
    assert rendered == [1]


def test_a_socket_joins_only_its_users_seat_group_whatever_the_path_asks(four):
    game = make_started_game(four)

    async def scenario():
        comm = communicator(
            game, four[1], f"/ws/games/{game.pk}/?seat=2&group=game-{game.pk}-seat-2"
        )
        await connected(comm)
        layer = get_channel_layer()
        # Asked of the groups by sending to them, so that it holds on any
        # channel layer (Redis in CI), not only the in-memory one.
        for group in (push.seat_group(game.pk, 2), push.public_group(game.pk)):
            await layer.group_send(group, {"type": "game.fragments", "seq": 99, "html": group})
        assert await comm.receive_nothing(timeout=0.3)
        await layer.group_send(
            push.seat_group(game.pk, 1),
            {"type": "game.fragments", "seq": 98, "html": "own", "holder": four[1].pk},
        )
        assert (await comm.receive_json_from(timeout=5))["seq"] == 98
        await comm.disconnect()

    async_to_sync(scenario)()


def test_an_outsider_is_refused_at_a_table_without_spectators(four, ed):
    game = make_started_game(four)

    async def scenario():
        comm = communicator(game, ed)
        ok, code = await comm.connect()
        await comm.disconnect()  # ends the refused consumer, or it outlives the loop
        assert not ok
        assert code == 4403

    async_to_sync(scenario)()


def test_a_spectator_gets_the_public_fragments_with_no_hand(four, ed):
    game = make_started_game(four, spectators=True)

    async def scenario():
        comm = communicator(game, ed)
        hello = await connected(comm)
        assert hello["seat"] is None
        await database_sync_to_async(move)(game, 0)
        push = await comm.receive_json_from(timeout=5)
        assert push["seq"] == 2
        assert hand_labels(push["html"]) == []
        assert "You are watching." in push["html"]
        await comm.send_json_to({"type": "act", "action": {"type": "draw"}, "key": "k1"})
        assert (await comm.receive_json_from(timeout=5))["message"] == "Spectators cannot play."
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_move_sent_over_the_socket_goes_through_the_one_door_once(four):
    game = make_started_game(four)
    card = state_of(game).legal_actions(1)[0]["card"]

    async def scenario():
        comm = communicator(game, four[1])
        await connected(comm)
        for replayed in (False, True):  # a resent message with the same key moves once
            await comm.send_json_to(
                {"type": "act", "action": {"type": "pass", "card": card}, "key": "pick-1"}
            )
            replies = [await comm.receive_json_from(timeout=5) for _ in range(1 if replayed else 2)]
            assert {"type": "ok", "seq": 2, "key": "pick-1", "replayed": replayed} in replies
        await comm.disconnect()

    async_to_sync(scenario)()
    event = GameEvent.objects.get(game=game, seq=2)
    assert (event.seat, event.user, event.action) == (1, four[1], {"type": "pass", "card": card})
    assert event_count(game) == 2


def test_a_user_cannot_act_for_another_seat(four):
    game = make_started_game(four)
    card = state_of(game).legal_actions(2)[0]["card"]

    async def scenario():
        comm = communicator(game, four[1])
        await connected(comm)
        await comm.send_json_to(
            {"type": "act", "seat": 2, "key": "x", "action": {"type": "pass", "card": card}}
        )
        reply = await comm.receive_json_from(timeout=5)
        # Every refusal of a move names the key it was sent with, when it had a valid one.
        assert reply == {
            "type": "error",
            "message": "You can only make moves for your own seat.",
            "key": "x",
        }
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()
    assert event_count(game) == 1


def test_an_action_out_of_turn_gets_a_readable_error_and_changes_nothing(four):
    game = make_started_game(four)
    for seat in range(4):  # finish the setup pass: now somebody has the turn
        move(game, seat)
    game.refresh_from_db()
    idle = next(s for s in range(4) if s != game.turn and not state_of(game).legal_actions(s))
    hand = state_of(game).view(idle)["hand"]
    before = (event_count(game), Game.objects.get(pk=game.pk).snapshot.state)

    async def scenario():
        comm = communicator(game, four[idle])
        await connected(comm)
        await comm.send_json_to(
            {"type": "act", "key": "late", "action": {"type": "play", "card": hand[0]}}
        )
        reply = await comm.receive_json_from(timeout=5)
        assert reply["type"] == "error"
        assert reply["message"] and "Traceback" not in reply["message"]
        assert re.match(r"^[A-Z].*[.!]$", reply["message"]), reply["message"]
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()
    assert (event_count(game), Game.objects.get(pk=game.pk).snapshot.state) == before


def test_socket_moves_hand_their_pooled_connections_back(four):
    """Each move runs in a thread of its own; its connection must go back to the pool even
    under channels' test communicator (which turns channels' own closing off). Left out, a
    pool of DATABASE_POOL_SIZE ran dry after as many moves and the next waited 20 s."""
    pool = getattr(connection, "pool", None)
    if pool is None:
        pytest.skip("needs PostgreSQL with psycopg's pool (DATABASE_URL=postgres://...)")
    game = make_started_game(four)

    def in_use():
        stats = pool.get_stats()
        return stats["pool_size"] - stats["pool_available"]

    before = in_use()
    for number in range(3):  # each async_to_sync is a new loop, so a new move thread

        async def scenario(key=f"k{number}"):
            comm = communicator(game, four[0])
            await connected(comm)
            await comm.send_json_to(
                {"type": "act", "key": key, "action": {"type": "play", "card": "R99"}}
            )
            reply = await comm.receive_json_from(timeout=5)
            assert reply["type"] == "error"
            await comm.disconnect()

        async_to_sync(scenario)()
    assert in_use() <= before  # the test thread may have handed its own back too


def test_a_move_without_a_key_is_refused(four):
    game = make_started_game(four)

    async def scenario():
        comm = communicator(game, four[0])
        await connected(comm)
        await comm.send_json_to({"type": "act", "action": {"type": "draw"}})
        reply = await comm.receive_json_from(timeout=5)
        assert reply["type"] == "error" and "key" in reply["message"]
        await comm.disconnect()

    async_to_sync(scenario)()
    assert event_count(game) == 1


def test_logging_out_closes_the_users_open_sockets(four):
    game = make_started_game(four)

    async def scenario():
        mine, other = communicator(game, four[1]), communicator(game, four[2])
        await connected(mine)
        await connected(other)
        await database_sync_to_async(effects.session_ended)(sender=None, request=None, user=four[1])
        assert await mine.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
        assert await other.receive_nothing(timeout=0.3)
        await other.disconnect()

    async_to_sync(scenario)()


def test_the_log_out_view_tells_the_users_sockets_to_close(client, four, monkeypatch):
    sent = []

    class Recorder:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr(push, "get_channel_layer", Recorder)
    client.force_login(four[0])

    client.post("/accounts/logout/")

    assert sent == [(push.user_group(four[0].pk), {"type": "session.ended"})]
