"""Property test: every kind of frame a socket can send, malformed, oversized, out of turn
or for another seat, gets one error frame back, the socket stays open, and nothing changes.

The message types of games/consumers.py are "sync" and "act" (anything else is refused);
the test sends those with every field wrong in turn, the types a server sends ("hello",
"ok", "fragments", "error"), frames that are not JSON or not text, frames far longer
than any move, and JSON nested thousands deep (brackets, objects, or inside a frame that
looks like a move), which Python's parser refuses with a RecursionError rather than a
ValueError. Moves the sender's seat may really make are left out: they would be played.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games import consumers
from games.actions import moves
from games.routing import websocket_urlpatterns
from tests.security.world import STAGES, build_world, fingerprint, giver

pytestmark = pytest.mark.django_db(transaction=True)

application = URLRouter(websocket_urlpatterns)

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=50),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.sampled_from(["\x00", "R3", "WTD4", "draw", "x" * 41, "<script>", "1e999"]),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)
good_keys = st.text(alphabet="abcdef0123456789", min_size=1, max_size=40)
# (opening, closing) of one level of nesting: arrays, objects, both in turn.
LEVELS = [("[", "]"), ('{"a":', "}"), ('[{"":', "}]")]
# Frames around the nesting: alone, as a move's action, as a card of a move.
AROUND = [
    ("", ""),
    ('{"type": "act", "key": "k", "action": ', "}"),
    ('{"type": "act", "key": "k", "action": {"type": "play", "card": ', "}}"),
]


def nested(opening, closing, depth, before="", after=""):
    return before + opening * depth + "0" + closing * depth + after


# One branch per kind of bad frame, each a few lines: a table of them would say the same
# less plainly.
def frames(world, game, draw):  # noqa: C901
    """A list of (kind, payload, reply type expected) for a socket at `game`."""
    state = world.state(game)
    out = []
    # Half the examples start with the sending seat's own move spoilt (where it has one).
    first_own = draw(st.booleans())
    for index in range(draw(st.integers(min_value=1, max_value=5))):
        shape = (
            "own-move-with-junk"
            if first_own and index == 0
            else draw(
                st.sampled_from(
                    [
                        "act-junk",
                        "act-other-seat",
                        "act-seat-field",
                        "type",
                        "not-json",
                        "bytes",
                        "huge",
                        "sync",
                        "own-move-with-junk",
                        "nested",
                    ]
                )
            )
        )
        own = own_move(state, game) if shape == "own-move-with-junk" else None
        if shape == "own-move-with-junk" and own is None:
            shape = "act-junk"  # a finished game: nobody has a move of their own to spoil
        if shape == "own-move-with-junk":
            # Only for a seat with a decision (the test sends it from there): its own legal
            # move with keys no move has, which the engine would ignore and the log would keep.
            seat, action = own
            action.update(
                draw(
                    st.dictionaries(
                        st.text(min_size=1, max_size=10).filter(
                            lambda k: k not in moves.ACTION_KEYS
                        ),
                        junk,
                        min_size=1,
                        max_size=2,
                    )
                )
            )
            out.append(
                (
                    "json",
                    {"type": "act", "key": draw(good_keys), "action": action, "own": seat},
                    "error",
                )
            )
        elif shape == "sync":
            out.append(
                (
                    "json",
                    {
                        "type": "sync",
                        **draw(st.dictionaries(st.text(max_size=5), junk, max_size=2)),
                    },
                    "hello",
                )
            )
        elif shape == "type":
            kind = draw(
                st.one_of(
                    junk, st.sampled_from(["hello", "ok", "fragments", "error", "", "ACT", "act "])
                )
            )
            assume(kind not in ("act", "sync"))
            out.append(("json", {"type": kind, "action": draw(junk), "key": draw(junk)}, "error"))
        elif shape == "not-json":
            text = draw(st.text(min_size=1, max_size=100))
            try:
                json.loads(text)
                assume(False)
            except ValueError:
                pass
            out.append(("text", text, "error"))
        elif shape == "bytes":
            out.append(("bytes", draw(st.binary(min_size=1, max_size=100)), "error"))
        elif shape == "nested":
            # A few hundred levels (parsed, then refused as no message), about 10 KB (too
            # deep for the parser) or 40 KB (over the size limit).
            opening, closing = draw(st.sampled_from(LEVELS))
            before, after = draw(st.sampled_from(AROUND))
            size = draw(st.sampled_from([2_000, 10_000, 40_000]))
            depth = size // len(opening + closing) + draw(st.integers(0, 50))
            out.append(("text", nested(opening, closing, depth, before, after), "error"))
        elif shape == "huge":
            out.append(
                (
                    "text",
                    json.dumps(
                        {
                            "type": "act",
                            "key": "k",
                            "action": {
                                "type": "play",
                                "card": "R3",
                                "pad": "x" * draw(st.integers(20_000, 200_000)),
                            },
                        }
                    ),
                    "error",
                )
            )
        else:
            message = {"type": "act", "key": draw(st.one_of(good_keys, junk))}
            if shape == "act-junk":
                message["action"] = draw(
                    st.one_of(
                        junk,
                        st.dictionaries(
                            st.sampled_from(["type", "card", "cards", "color", "seat", "x"]),
                            junk,
                            max_size=4,
                        ),
                    )
                )
            else:
                other = draw(st.integers(min_value=0, max_value=3))
                legal = state.legal_actions(other) or [{"type": "draw"}]
                message["action"] = dict(draw(st.sampled_from(legal)))
                if shape == "act-seat-field":
                    message["seat"] = draw(st.one_of(st.integers(-3, 9), junk))
            out.append(("json", message, "error"))
    return out


def own_move(state, game):
    """(seat, a move it may make now) for the first seat with a decision at `game`, or None."""
    seat = giver(state)
    if seat is not None:
        k = state.view(seat)["must_give"]
        return seat, {"type": "give", "cards": state.view(seat)["hand"][:k]}
    movers = [s for s in game.waiting_on if state.legal_actions(s)]
    return (movers[0], dict(state.legal_actions(movers[0])[0])) if movers else None


async def exchange(comm, sent):
    replies = []
    for kind, payload, _ in sent:
        if kind == "json":
            await comm.send_json_to(payload)
        elif kind == "text":
            await comm.send_to(text_data=payload)
        else:
            await comm.send_to(bytes_data=payload)
        reply = await comm.receive_json_from(timeout=10)
        replies.append(reply)
    # The socket is still open and answers.
    await comm.send_json_to({"type": "sync"})
    hello = await comm.receive_json_from(timeout=10)
    assert await comm.receive_nothing(timeout=0.05)
    await comm.disconnect()
    return replies, hello


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("examples", [40])
def test_every_bad_frame_gets_an_error_frame_and_changes_nothing(examples, stage):
    """At a game in each stage (tests/security/world.py)."""
    world = build_world(stage)
    before = fingerprint()
    checked = []

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def attack(data):
        game = world.games[stage]
        state = world.state(game)
        sent = frames(world, game, data.draw)
        own = None
        for kind, payload, _ in sent:
            if kind == "json" and "own" in payload:
                own = payload.pop("own")
        if own is not None:
            user = world.players[own]
        else:
            user = data.draw(st.sampled_from(world.players))
        seat = world.seat_of(user, game)
        for kind, payload, _ in sent:
            if kind == "json" and payload.get("type") == "act":
                action = moves.clean_action(payload.get("action"))
                assume(
                    action is None
                    or (
                        action not in state.legal_actions(seat)
                        and action.get("type") not in ("concede", "give")
                    )
                )
        comm = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
        comm.scope["user"] = user

        async def scenario():
            ok, _ = await comm.connect()
            assert ok
            hello = await comm.receive_json_from(timeout=10)
            assert hello["type"] == "hello" and hello["seat"] == seat
            return await exchange(comm, sent)

        replies, hello = async_to_sync(scenario)()
        for (kind, payload, expected), reply in zip(sent, replies, strict=True):
            assert reply["type"] == expected, (payload if kind != "bytes" else kind, reply)
            if expected == "error":
                assert isinstance(reply["message"], str) and len(reply["message"]) > 10
                assert "Traceback" not in reply["message"]
        assert hello == {"type": "hello", "seq": game.last_seq, "seat": seat}
        assert fingerprint() == before, sent
        checked.append(len(sent))
        if own is not None:
            world.attacked.add("own")

    attack()
    assert sum(checked) >= examples
    # A seat's own move spoilt with junk keys was among them, wherever somebody has one
    # (a pick of the setup pass, a play, a give).
    assert world.attacked == (set() if stage == "finished" else {"own"})


@pytest.mark.parametrize("opening, closing", LEVELS)
@pytest.mark.parametrize("before, after", AROUND)
def test_a_frame_nested_thousands_deep_gets_an_error_frame_and_the_socket_stays_open(
    opening, closing, before, after
):
    """About 10 KB (under the size limit, so the parser sees it) and over it."""
    world = build_world()
    before_fingerprint = fingerprint()
    deep = [
        nested(opening, closing, depth, before, after)
        for depth in (10_000 // len(opening + closing), 1_000, 20_000)
    ]
    assert len(deep[0]) < consumers.MAX_MESSAGE < len(deep[2])
    comm = WebsocketCommunicator(application, f"/ws/games/{world.game.pk}/")
    comm.scope["user"] = world.players[world.game.turn]

    async def scenario():
        ok, _ = await comm.connect()
        assert ok
        await comm.receive_json_from(timeout=10)
        return await exchange(comm, [("text", text, "error") for text in deep])

    replies, hello = async_to_sync(scenario)()
    for reply in replies:
        assert reply["type"] == "error" and len(reply["message"]) > 10, reply
        assert "Traceback" not in reply["message"] and "Recursion" not in reply["message"]
    assert hello["type"] == "hello" and hello["seq"] == world.game.last_seq
    assert fingerprint() == before_fingerprint


def test_the_size_limit_is_above_any_real_move():
    # The longest real message: a give of a whole hand with a 40-character key.
    move = {
        "type": "act",
        "key": "k" * 40,
        "action": {"type": "give", "cards": ["WTD4"] * moves.MAX_GIVE},
    }
    assert len(json.dumps(move)) < consumers.MAX_MESSAGE
