"""Where a site's pushes remember what they sent (games.push.memory, games.push.changes):
the memory every process of a site shares lives in Redis, keeps only the newest push of a
game whoever makes them, and is the site's own."""

import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.test import override_settings

from config.channel_layer import ChannelLayer as RedisChannelLayer
from games import effects, push, store
from games.models import Game
from games.push import changes, redis_batch
from tests.conftest import make_started_game, make_user, play_one

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (a real Redis)")


def _pushed(seq, version="a"):
    versions = {"game-1-seat-0": {"table-status": version}}
    return changes.Pushed.of(seq, versions, '<li class="c">R1</li>' * seq)


@pytest.fixture
def shared():
    layer = RedisChannelLayer(hosts=[settings.REDIS_URL])
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield lambda: redis_batch.SharedMemory(layer, prefix)
    client = redis_batch._client(layer)[0]
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)


@pytest.fixture
def here():
    changes.forget()
    yield lambda: changes.HERE
    changes.forget()


@pytest.fixture(params=["process", "redis"])
def memory(request):
    if request.param == "redis":
        if not settings.REDIS_URL:
            pytest.skip("needs REDIS_URL (a real Redis)")
        return request.getfixturevalue("shared")
    return request.getfixturevalue("here")


def test_a_push_is_remembered_for_the_next_event_only(memory):
    memory().remember(7, _pushed(5))
    assert memory().previous(7, 6) == _pushed(5)
    assert memory().previous(7, 5) is None  # the same event pushed again: sent whole
    assert memory().previous(8, 6) is None  # another game


def test_an_older_push_remembered_late_leaves_the_newer_one(memory):
    """Two moves committed close together, pushed by two processes: the older push's
    memory arrives second and must not replace the newer one."""
    memory().remember(7, _pushed(6, "new"))
    memory().remember(7, _pushed(5, "old"))
    assert memory().previous(7, 9) == _pushed(6, "new")
    memory().remember(7, _pushed(8, "newest"))
    assert memory().previous(7, 9) == _pushed(8, "newest")


def test_the_discard_pile_is_known_to_have_grown_only_from_what_was_sent(memory):
    memory().remember(7, _pushed(3))
    before = memory().previous(7, 4)
    assert before.count == 3
    assert before.grown('<li class="c">R1</li>' * 3 + '<li class="c">G2</li>') == (
        '<li class="c">G2</li>'
    )
    assert before.grown('<li class="c">B1</li>' * 3 + '<li class="c">G2</li>') is None
    assert before.grown('<li class="c">R1</li>' * 2) is None


@needs_redis
def test_every_process_reads_the_memory_another_one_wrote(shared):
    """Nothing of it stays in the process: a new SharedMemory (another process's) reads the
    push that the first one remembered."""
    shared().remember(7, _pushed(5))
    changes.forget()
    assert shared().previous(7, 6) == _pushed(5)


@needs_redis
def test_two_sites_on_one_redis_keep_their_own_memories(shared):
    layer = RedisChannelLayer(hosts=[settings.REDIS_URL])
    other = redis_batch.SharedMemory(layer, f"test-{uuid.uuid4().hex[:12]}")
    shared().remember(7, _pushed(5))
    assert other.previous(7, 6) is None


@needs_redis
def test_a_memory_is_kept_a_day_after_the_games_last_push(shared):
    memory = shared()
    memory.remember(7, _pushed(5))
    ttl = redis_batch._client(memory.layer)[0].ttl(f"{memory.prefix}7")
    assert redis_batch.SharedMemory.KEPT - 60 < ttl <= redis_batch.SharedMemory.KEPT


def test_the_site_picks_the_memory_its_channel_layer_and_settings_allow():
    assert push.memory(InMemoryChannelLayer()) is changes.HERE
    one = RedisChannelLayer(hosts=["redis://127.0.0.1:6379/0"])
    # Whole pushes with Redis unless asked for (they cost less CPU: docs/load.md).
    with override_settings(PUSH_CUT_WITH_REDIS=False):
        assert push.memory(one) is None
    with override_settings(
        PUSH_CUT_WITH_REDIS=True, CACHES={"default": {"KEY_PREFIX": "site-a", "BACKEND": "x"}}
    ):
        found = push.memory(one)
        assert isinstance(found, redis_batch.SharedMemory)
        assert found.prefix == "site-a:pushed:"
        # Several Redis hosts (sharding): no memory, every push carries the whole table.
        sharded = RedisChannelLayer(hosts=["redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/1"])
        assert push.memory(sharded) is None


@needs_redis
@pytest.mark.django_db
def test_a_moves_push_through_redis_is_cut_against_the_last_one(settings):
    """The whole path with the shared memory: two moves' pushes made as after their commits
    (effects.game_changed) through the site's Redis layer; the second is cut against the
    first one's memory, with no memory of this process involved."""
    settings.PUSH_CUT_WITH_REDIS = True
    layer = push.layer()
    game = make_started_game([make_user(f"m{n}") for n in range(4)], players=4, seed=3)
    members = {}

    def seat_push():
        nonlocal game
        play_one(game)
        game = Game.objects.select_related("snapshot").get(pk=game.pk)
        changes.forget()
        sent = effects.seat_pushes(
            game.pk,
            game=game,
            state=store.load_state(game),
            listening=lambda groups: push.listening(layer, groups, members),
            memory=push.memory(layer),
        )
        return dict(sent)

    first = seat_push()  # nobody listens yet: nothing rendered, nothing remembered
    assert first == {}
    channel = async_to_sync(layer.new_channel)()
    group = f"game-{game.pk}-seat-1"
    async_to_sync(layer.group_add)(group, channel)
    try:
        members.clear()
        whole = seat_push()[group]
        members.clear()
        cut = seat_push()[group]
    finally:
        async_to_sync(layer.group_discard)(group, channel)
    assert whole["keep"] == {} and 'id="table-hand"' in whole["html"]
    assert cut["keep"] and len(cut["html"]) < len(whole["html"])
