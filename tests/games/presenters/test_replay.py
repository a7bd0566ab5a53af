import pytest

from games import engine, store
from games.models import GameEvent, GameSnapshot
from tests.conftest import make_started_game, play_until

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "options",
    [
        {"players": 4},
        {"players": 6, "stacking": True},
        {"players": 8, "final_card_penalty": False},
        {"players": 4, "target_score": 200},
    ],
)
def test_the_snapshot_equals_replaying_every_event_from_the_seed(four, ed, options):
    users = four + [ed] if options["players"] > 4 else four
    game = make_started_game(users, **options)
    play_until(game, 400)

    game.refresh_from_db()
    snapshot = GameSnapshot.objects.get(game=game)
    assert snapshot.seq == game.last_seq
    assert store.replay(game).to_dict() == snapshot.state


def test_replay_reproduces_every_stored_event(four):
    game = make_started_game(four)
    play_until(game, 150)

    state = engine.Game.new(game.engine_options(), game.seed)
    for row in GameEvent.objects.filter(game=game).order_by("seq"):
        if row.action is None:
            assert row.kind == "deal"
            assert row.events == state.initial_events()
        else:
            assert state.act(row.seat, row.action) == row.events


def test_loading_from_an_older_snapshot_applies_only_the_later_events(four):
    game = make_started_game(four)
    play_until(game, 30)
    game.refresh_from_db()
    current = store.load_state(game).to_dict()

    # Roll the snapshot back to event 20, as if it were only written now and then.
    old = engine.Game.new(game.engine_options(), game.seed)
    for row in GameEvent.objects.filter(game=game, seq__lte=20).order_by("seq"):
        if row.action is not None:
            old.act(row.seat, row.action)
    GameSnapshot.objects.filter(game=game).update(seq=20, state=old.to_dict())
    game = type(game).objects.select_related("snapshot").get(pk=game.pk)

    assert store.load_state(game).to_dict() == current
