import ast
from pathlib import Path
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import push, store
from games.actions import decisions
from games.models import Game, GameEvent, GameSnapshot
from tests.conftest import make_started_game, play_until

pytestmark = pytest.mark.django_db

GAMES = Path(__file__).resolve().parents[3] / "games"


def frozen(game):
    """Everything a decision could change."""
    game.refresh_from_db()
    snapshot = GameSnapshot.objects.get(game=game)
    return (
        game.last_seq,
        game.turn,
        game.waiting_on,
        snapshot.seq,
        snapshot.state,
        GameEvent.objects.filter(game=game).count(),
    )


def setup_pick(game, seat):
    state = store.load_state(game)
    return state.legal_actions(seat)[0]


def test_a_decision_appends_the_next_event_and_updates_the_snapshot(four):
    game = make_started_game(four)
    action = setup_pick(game, 2)

    result = decisions.apply_decision(
        game.pk, 2, action, "person", user=four[2], idempotency_key="k1"
    )

    event = result.event
    assert not result.replayed
    assert (event.seq, event.kind, event.seat, event.actor, event.user) == (
        2,
        "pass",
        2,
        "person",
        four[2],
    )
    assert event.action == action
    assert event.events and all("type" in e and "visible_to" in e for e in event.events)
    assert event.idempotency_key == "k1"
    game.refresh_from_db()
    assert game.last_seq == 2
    assert 2 not in game.waiting_on and game.waiting_on == [0, 1, 3]
    assert game.snapshot.seq == 2
    expected = store.replay(game).to_dict()
    assert game.snapshot.state == expected


def test_an_illegal_action_gives_the_engines_message_and_changes_nothing(four):
    game = make_started_game(four)
    state = store.load_state(game)
    hand = state.view(1)["hand"]
    not_held = next(c for c in ["R0", "Y0", "G0", "B0", "W", "WTP"] if c not in hand)
    before = frozen(game)

    with pytest.raises(decisions.IllegalDecision) as refused:
        decisions.apply_decision(game.pk, 1, {"type": "pass", "card": not_held}, "person")

    assert str(refused.value)  # the engine's own words, shown to the player
    assert frozen(game) == before


@pytest.mark.parametrize(
    "seat, action",
    [
        (0, "pass R1"),
        (0, ["pass"]),
        (0, {}),
        (0, {"type": 7}),
        (0, None),
        (9, {"type": "draw"}),
        (-1, {"type": "draw"}),
        ("0", {"type": "draw"}),
        (True, {"type": "draw"}),
        (0, {"type": "teleport"}),
        (0, {"type": "pass", "card": {"$gt": ""}}),
    ],
)
def test_malformed_input_is_refused_and_changes_nothing(four, seat, action):
    game = make_started_game(four)
    before = frozen(game)

    with pytest.raises(decisions.IllegalDecision):
        decisions.apply_decision(game.pk, seat, action, "person")

    assert frozen(game) == before


def test_a_retry_with_the_same_key_gets_the_first_result_and_no_second_move(four):
    game = make_started_game(four)
    action = setup_pick(game, 0)
    first = decisions.apply_decision(game.pk, 0, action, "person", idempotency_key="retry-me")

    again = decisions.apply_decision(game.pk, 0, action, "person", idempotency_key="retry-me")

    assert again.replayed
    assert again.event.pk == first.event.pk
    assert GameEvent.objects.filter(game=game).count() == 2


def test_a_key_reused_for_another_move_is_refused(four):
    game = make_started_game(four)
    decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person", idempotency_key="k")
    before = frozen(game)

    with pytest.raises(decisions.IdempotencyConflict):
        decisions.apply_decision(game.pk, 1, setup_pick(game, 1), "person", idempotency_key="k")
    assert frozen(game) == before


def test_a_decision_computed_for_an_old_position_is_refused_as_stale(four):
    """The seat picked a card after event 1; a second pick made on what it saw at event 1
    (a retry with a new key that would silently change the card) is refused."""
    game = make_started_game(four)
    first, second = store.load_state(game).legal_actions(3)[:2]
    decisions.apply_decision(game.pk, 3, first, "bot", idempotency_key="first")
    before = frozen(game)

    with pytest.raises(decisions.StaleDecision):
        decisions.apply_decision(game.pk, 3, second, "bot", expected_seq=1)
    assert frozen(game) == before


def test_no_decision_applies_to_a_table_that_has_not_started(ana):
    from tests.conftest import make_table

    game = make_table(ana)
    with pytest.raises(decisions.GameNotActive):
        decisions.apply_decision(game.pk, 0, {"type": "draw"}, "person")


def test_the_last_decision_finishes_the_game_and_then_nothing_applies(four):
    game = make_started_game(four)
    play_until(game, 10_000)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.finished_at and game.turn is None and game.waiting_on == []
    assert game.deadline_at is None
    assert store.load_state(game).view(None)["game_over"]
    with pytest.raises(decisions.GameNotActive):
        decisions.apply_decision(game.pk, 0, {"type": "draw"}, "person")


def test_sequence_numbers_run_one_two_three_without_gaps(four):
    game = make_started_game(four)
    play_until(game, 40)

    seqs = list(GameEvent.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_events_are_append_only(four):
    game = make_started_game(four)
    event = GameEvent.objects.get(game=game)

    with pytest.raises(ValueError):
        event.save()
    with pytest.raises(ValueError):
        event.delete()


def test_a_person_to_move_gets_a_deadline_and_a_bot_to_move_does_not(ana):
    game = make_started_game([ana], players=4)  # seats 1-3 are bots

    game.refresh_from_db()
    assert game.deadline_at is not None  # Ana's setup pass
    assert game.bot_due_at is not None  # the bots' setup passes
    window = game.deadline_at - game.started_at
    assert window.total_seconds() == pytest.approx(game.move_seconds, abs=1)


def test_after_commit_a_seat_is_sent_the_new_event_and_nothing_it_may_not_see(
    four, django_capture_on_commit_callbacks
):
    from tests.games.views.test_pages import hidden_codes, shows_card

    game = make_started_game(four)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(push.seat_group(game.pk, 1), channel)

    with django_capture_on_commit_callbacks(execute=True):
        decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person")

    message = async_to_sync(layer.receive)(channel)
    assert message["seq"] == 2
    assert not [c for c in hidden_codes(game, 1) if shows_card(str(message), c)]


def test_bots_with_a_decision_are_scheduled_after_commit(ana, django_capture_on_commit_callbacks):
    game = make_started_game([ana], players=4)

    with mock.patch("games.tasks.play_bot.apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person")

    assert sorted(call.args[0] for call in send.call_args_list) == [
        (game.pk, 1, 2),
        (game.pk, 2, 2),
        (game.pk, 3, 2),
    ]


def test_nothing_is_scheduled_or_sent_when_the_decision_is_refused(
    four, django_capture_on_commit_callbacks
):
    game = make_started_game(four)

    with django_capture_on_commit_callbacks() as callbacks:
        with pytest.raises(decisions.IllegalDecision):
            decisions.apply_decision(game.pk, 0, {"type": "draw"}, "person")

    assert callbacks == []


def event_writes(source):
    """(line, code) of each statement in `source` that writes an event row or moves a
    game's `last_seq` itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = ast.unparse(node.func)
        creates = func == "GameEvent" or (
            func.startswith("GameEvent.objects.") and func.endswith("create")
        )
        bumps = func.endswith(".update") and any(k.arg == "last_seq" for k in node.keywords)
        if creates or bumps:
            found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.django_db(False)
def test_no_module_but_the_store_writes_an_event_row_or_moves_last_seq():
    """One door: a moderator's event, like every decision, is written by store.append
    through decisions (append_note, _record)."""
    # The games app itself, not its tests (which build rows freely for presenters).
    assert (GAMES / "actions" / "decisions.py").is_file()
    offenders = {
        str(path.relative_to(GAMES)): found
        for path in GAMES.rglob("*.py")
        if not {"migrations", "store"} & set(path.parts)
        and (found := event_writes(path.read_text()))
    }
    assert offenders == {}


@pytest.mark.django_db(False)
def test_the_event_write_check_sees_one():
    sample = (
        "GameEvent.objects.create(game=game, seq=seq)\n"
        "Game.objects.filter(pk=game.pk).update(last_seq=seq)\n"
    )
    assert [line for line, _ in event_writes(sample)] == [1, 2]


@pytest.mark.parametrize("pace, paced", [(Game.Pace.REALTIME, True), (Game.Pace.TURN_BASED, False)])
def test_in_real_time_bots_move_at_a_human_pace(
    ana, settings, django_capture_on_commit_callbacks, pace, paced
):
    settings.BOT_PACE_MS = 1500
    game = make_started_game([ana], players=4, pace=pace)
    with mock.patch("games.tasks.play_bot.apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person")
    assert len(send.call_args_list) == 3
    for call in send.call_args_list:
        countdown = call.kwargs.get("countdown")
        if paced:
            assert 1.0 <= countdown <= 2.0
        else:
            assert countdown is None


def test_a_host_who_chose_quick_bots_has_them_move_three_times_as_fast(
    ana, settings, django_capture_on_commit_callbacks
):
    settings.BOT_PACE_MS = 1500
    game = make_started_game([ana], players=4, bot_speed=Game.BotSpeed.QUICK)
    with mock.patch("games.tasks.play_bot.apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person")
    countdowns = [call.kwargs["countdown"] for call in send.call_args_list]
    assert len(countdowns) == 3 and all(1 / 3 <= c <= 2 / 3 for c in countdowns), countdowns


def test_with_no_pace_set_bots_move_at_once(ana, settings, django_capture_on_commit_callbacks):
    settings.BOT_PACE_MS = 0
    game = make_started_game([ana], players=4, pace=Game.Pace.REALTIME)
    with mock.patch("games.tasks.play_bot.apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            decisions.apply_decision(game.pk, 0, setup_pick(game, 0), "person")
    assert [call.kwargs.get("countdown") for call in send.call_args_list] == [None] * 3
