"""Find a game (lobby.matchmaking, docs/matchmaking.md): who is seated with whom, when
bots fill a table, who may not queue, and how a search lives and ends. The races on
PostgreSQL are in test_matchmaking_races.py."""

import random
from datetime import timedelta

import pytest
import time_machine
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.actions import webpush
from games.models import Game, Rating, Seat
from games.presenters import ratings as rating_views
from games.routing import websocket_urlpatterns
from lobby import matchmaking
from lobby.models import Search
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

REALTIME = {"pace": "realtime", "move_seconds": 30, "turn_hours": 24}


def queued(user, players=4, rated=False, bots_after=None, **options):
    """A new search, the matcher not run yet (it runs once the search commits; these tests
    run inside a transaction that never commits)."""
    return matchmaking.start_search(
        user, players=players, rated=rated, bots_after=bots_after, **{**REALTIME, **options}
    )


def search(user, **options):
    """A new search and the matcher's run after its commit."""
    made = queued(user, **options)
    matchmaking.match()
    return made


def people(n, prefix="p", **fields):
    return [make_user(f"{prefix}{i}", **fields) for i in range(n)]


def here_all(now=None):
    """Every open find page says "here" (at `now`)."""
    for s in Search.objects.open():
        matchmaking.page_here(s.user_id, s.pk, now=now)


def seated(game):
    return {s.number: s for s in Seat.objects.filter(game=game)}


def users_at(game):
    return {s.user_id for s in Seat.objects.filter(game=game, user__isnull=False)}


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


# --- Tables found -----------------------------------------------------------------------------


def test_three_searching_four_with_bots_after_10_s_get_one_table_with_one_bot(clock):
    three = people(3)
    for user in three:
        search(user, bots_after=10)
    assert matchmaking.match() == []  # three of four, and the wait is not over

    clock.shift(timedelta(seconds=11))
    here_all()
    games = matchmaking.match()

    assert len(games) == 1
    game = Game.objects.get(pk=games[0].pk)
    assert game.status == Game.Status.ACTIVE and game.players == 4 and not game.rated
    seats = seated(game)
    assert users_at(game) == {u.pk for u in three}
    bots = [s for s in seats.values() if s.bot_level]
    assert [s.bot_level for s in bots] == [Seat.BotLevel.NORMAL]
    assert seats[0].user_id is not None  # the host, whom a table needs, is a person
    assert set(Search.objects.values_list("status", "game_id")) == {("matched", game.pk)}


def test_before_the_bots_wait_is_over_nobody_is_seated_with_bots(clock):
    for user in people(3):
        search(user, bots_after=30)
    clock.shift(timedelta(seconds=20))
    here_all()
    assert matchmaking.match() == []
    assert Search.objects.open().count() == 3


def test_eight_searching_four_get_two_tables_and_nobody_sits_twice():
    eight = people(8)
    for user in eight:
        search(user)
    games = Game.objects.filter(status=Game.Status.ACTIVE)
    assert games.count() == 2  # each search ran the matcher as it committed
    everyone = [s.user_id for s in Seat.objects.filter(game__in=games)]
    assert sorted(everyone) == sorted(u.pk for u in eight)
    assert not Search.objects.open().exists()


def test_a_new_search_runs_the_matcher_as_it_commits(django_capture_on_commit_callbacks):
    four = people(4)
    for user in four[:3]:
        queued(user)
    with django_capture_on_commit_callbacks(execute=True):
        queued(four[3])
    assert users_at(Game.objects.get()) == {u.pk for u in four}


def test_someone_who_wants_no_bots_is_never_seated_with_bots(clock):
    takers = people(2, "t")
    purist = make_user("purist")
    for user in takers:
        search(user, bots_after=10)
    search(purist)
    clock.shift(timedelta(seconds=11))
    here_all()
    (game,) = matchmaking.match()
    assert users_at(game) == {u.pk for u in takers}
    assert Seat.objects.filter(game=game).exclude(bot_level="").count() == 2
    assert Search.objects.get(user=purist).status == Search.Status.OPEN


def test_different_paces_timers_or_sizes_are_not_seated_together():
    a, b, c, d = people(4)
    search(a)
    search(b, move_seconds=15)
    search(c, players=6)
    search(d, pace="turn", turn_hours=24)
    assert not Game.objects.exists()


def test_any_size_joins_the_size_others_wait_for():
    sixes = people(5, "six")
    for user in sixes:
        search(user, players=6)
    anyone = make_user("anyone")
    search(anyone, players=0)
    game = Game.objects.get()
    assert game.players == 6
    assert anyone.pk in users_at(game)


def test_a_stale_page_is_not_matched_and_the_sweep_closes_its_search(clock):
    gone = make_user("gone")
    search(gone)
    clock.shift(timedelta(seconds=11))  # no "here" for longer than SEARCH_ALIVE_SECONDS
    for user in people(3):
        search(user)
    assert not Game.objects.exists()
    matchmaking.sweep()
    assert Search.objects.get(user=gone).status == Search.Status.EXPIRED


def test_a_closed_page_leaves_the_queue_after_the_reload_grace(clock):
    leaver = make_user("leaver")
    mine = search(leaver)
    matchmaking.page_closed(leaver.pk, mine.pk)
    clock.shift(timedelta(seconds=2))  # within the grace, a reload would keep it
    assert Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()
    clock.shift(timedelta(seconds=2))
    assert not Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()
    for user in people(3):
        search(user)
    assert not Game.objects.exists()
    matchmaking.sweep()
    assert Search.objects.get(pk=mine.pk).status == Search.Status.EXPIRED


def test_a_reload_within_the_grace_keeps_the_search(clock):
    stayer = make_user("stayer")
    mine = search(stayer)
    matchmaking.page_closed(stayer.pk, mine.pk)
    clock.shift(timedelta(seconds=1))
    matchmaking.page_here(stayer.pk, mine.pk)  # the reloaded page's socket
    clock.shift(timedelta(seconds=8))
    assert Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()


def test_a_hidden_page_is_kept_longer_since_browsers_slow_its_timers(clock):
    user = make_user("hider")
    mine = search(user)
    matchmaking.page_here(user.pk, mine.pk, hidden=True)
    clock.shift(timedelta(seconds=60))
    assert Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()
    clock.shift(timedelta(seconds=20))
    assert not Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()


def test_someone_elses_heartbeat_does_not_keep_a_search_alive(clock):
    owner, other = make_user("owner"), make_user("other")
    mine = search(owner)
    clock.shift(timedelta(seconds=9))
    matchmaking.page_here(other.pk, mine.pk)
    clock.shift(timedelta(seconds=2))
    assert not Search.objects.alive(timezone.now()).filter(pk=mine.pk).exists()


def test_a_turn_by_turn_search_lasts_without_a_page_until_its_hours_pass(clock, settings):
    user = make_user("postal")
    mine = search(user, pace="turn", turn_hours=24)
    clock.shift(timedelta(hours=5))
    matchmaking.sweep()
    assert Search.objects.get(pk=mine.pk).status == Search.Status.OPEN
    clock.shift(timedelta(hours=settings.SEARCH_TURN_BASED_HOURS))
    matchmaking.sweep()
    assert Search.objects.get(pk=mine.pk).status == Search.Status.EXPIRED


def test_a_cancelled_search_is_never_seated():
    first = people(3)
    cancelled = search(first[0])
    matchmaking.cancel_search(first[0], cancelled.pk)
    for user in first[1:] + [make_user("late")]:
        search(user)
    assert not Game.objects.exists()
    assert Search.objects.get(pk=cancelled.pk).status == Search.Status.CANCELLED


def test_a_cancel_after_the_table_was_found_answers_the_table():
    four = people(4)
    mine = search(four[0])
    for user in four[1:]:
        search(user)
    answer = matchmaking.cancel_search(four[0], mine.pk)
    assert answer.status == Search.Status.MATCHED and answer.game_id is not None


def test_a_person_holds_one_open_search_and_a_new_one_replaces_it():
    user = make_user("twice")
    old = search(user, players=6)
    new = search(user, players=8)
    assert Search.objects.get(pk=old.pk).status == Search.Status.CANCELLED
    assert list(Search.objects.open().filter(user=user)) == [new]
    with pytest.raises(IntegrityError), transaction.atomic():
        Search.objects.create(user=user, pace="realtime", move_seconds=30)


# --- Partners ---------------------------------------------------------------------------------


def test_a_pair_from_the_friends_link_is_seated_as_partners():
    for round_ in range(6):  # seats are drawn at random: the pair must be partners every time
        host, friend, x, y = people(4, f"r{round_}-")
        mine = search(host)
        matchmaking.join_search(friend, mine.token)
        search(x)
        search(y)
        game = Game.objects.get(seats__user=host)
        numbers = {s.user_id: s.number for s in Seat.objects.filter(game=game)}
        assert (numbers[host.pk] - numbers[friend.pk]) % 4 == 2


def test_pairs_at_a_table_of_eight_sit_at_partner_seats():
    rng = random.Random(7)
    for _ in range(50):
        units = [
            matchmaking.Unit([Search(pk=1), Search(pk=2)]),
            matchmaking.Unit([Search(pk=3), Search(pk=4)]),
            matchmaking.Unit([Search(pk=5)]),
        ]
        seats = matchmaking.arrange(8, units, rng)
        where = {s.pk: n for n, s in seats.items() if s is not None}
        assert (where[1] - where[2]) % 8 == 4 and (where[3] - where[4]) % 8 == 4
        assert seats[0] is not None
        assert sum(s is None for s in seats.values()) == 3


def test_a_friends_link_cannot_be_joined_twice_or_by_its_owner():
    host, friend, third = people(3)
    mine = search(host)
    with pytest.raises(matchmaking.SearchRefused):
        matchmaking.join_search(host, mine.token)
    matchmaking.join_search(friend, mine.token)
    with pytest.raises(matchmaking.SearchRefused):
        matchmaking.join_search(third, mine.token)


def test_when_one_of_a_pair_cancels_the_other_looks_alone():
    host, friend = people(2)
    mine = search(host)
    theirs = matchmaking.join_search(friend, mine.token)
    matchmaking.cancel_search(friend, theirs.pk)
    assert matchmaking.paired_with(Search.objects.get(pk=mine.pk)) is None
    for user in people(3, "x"):
        search(user)
    assert host.pk in users_at(Game.objects.get())
    assert friend.pk not in users_at(Game.objects.get())


def test_a_pair_whose_other_half_went_quiet_waits_rather_than_split(clock):
    host, friend = people(2)
    mine = search(host)
    matchmaking.join_search(friend, mine.token)
    clock.shift(timedelta(seconds=8))
    matchmaking.page_here(host.pk, mine.pk)  # the friend's page says nothing more
    clock.shift(timedelta(seconds=4))
    for user in people(3, "x"):
        search(user)
    assert not Game.objects.filter(seats__user=host).exists()
    matchmaking.sweep()  # the friend's search lapses: the host now looks alone
    assert host.pk in users_at(Game.objects.get())


def test_a_new_friend_may_join_after_the_first_one_left():
    host, first, second = people(3)
    mine = search(host)
    theirs = matchmaking.join_search(first, mine.token)
    matchmaking.cancel_search(first, theirs.pk)
    again = matchmaking.join_search(second, mine.token)
    assert Search.objects.get(pk=mine.pk).partner_id == again.pk


# --- Rated -----------------------------------------------------------------------------------


def rated_people(ratings_):
    users = []
    for i, shown in enumerate(ratings_):
        user = make_user(f"rated{i}", email_confirmed=True)
        # shown = 1000 + 40 (mu - 3 sigma), with sigma 1.
        Rating.objects.create(user=user, players=4, mu=(shown - 1000) / 40 + 3, sigma=1, games=20)
        users.append(user)
    return users


def test_the_rating_grouped_by_is_the_one_people_see():
    (rated,) = rated_people([1530])
    row = Rating.objects.get(user=rated)
    newcomer = make_user("new", email="new@example.com", email_confirmed=True)
    assert queued(rated, rated=True).rating == rating_views.shown(row.mu, row.sigma) == 1530
    assert queued(newcomer, rated=True).rating == rating_views.BASE


def test_rated_searches_seat_near_ratings_together_first():
    users = rated_people([1500, 1900, 1510, 1890, 1490, 1910, 1505, 1905])
    for user in users:  # all in the queue before the matcher runs
        queued(user, rated=True)
    games = matchmaking.match()
    assert len(games) == 2
    tables = sorted(
        sorted(Search.objects.get(user_id=u).rating for u in users_at(g)) for g in games
    )
    assert tables == [[1490, 1500, 1505, 1510], [1890, 1900, 1905, 1910]]
    assert all(Game.objects.get(pk=g.pk).rated for g in games)


def test_far_ratings_wait_until_the_gap_has_widened(clock):
    users = rated_people([1500, 1500, 1900, 1900])
    for user in users:
        search(user, rated=True)
    assert not Game.objects.exists()
    clock.shift(timedelta(seconds=50))  # gap 100 + 50 * 5 = 350: not yet
    here_all()
    assert matchmaking.match() == []
    clock.shift(timedelta(seconds=10))  # gap 400
    here_all()
    (game,) = matchmaking.match()
    assert users_at(game) == {u.pk for u in users}


def test_a_rated_search_needs_a_confirmed_email_and_nothing_changes():
    user = make_user("unconfirmed")
    with pytest.raises(matchmaking.SearchRefused, match="confirmed"):
        search(user, rated=True)
    assert not Search.objects.exists()


def test_rated_with_bots_is_refused_since_a_bot_makes_a_table_casual():
    (user,) = rated_people([1500])
    with pytest.raises(matchmaking.SearchRefused, match="casual"):
        search(user, rated=True, bots_after=10)


# --- Who may not queue -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"banned_at": timezone.now()},
        {"suspended_until": timezone.now() + timedelta(days=1)},
        {"is_bot": True},
    ],
    ids=["banned", "suspended", "bot account"],
)
def test_a_banned_suspended_or_bot_account_cannot_queue(fields):
    user = make_user("barred", **fields)
    with pytest.raises(matchmaking.SearchRefused):
        search(user)
    client = Client()
    client.force_login(user)
    response = client.post(reverse("lobby:find"), FORM)
    # Refused, or logged out first (a banned or suspended account's session ends).
    assert response.status_code == 403 or response.url.startswith(reverse("accounts:login"))
    assert not Search.objects.exists()


def test_an_account_banned_while_searching_is_left_out_and_the_others_wait():
    barred, *others = people(4)
    search(barred)
    from accounts.models import User

    User.objects.filter(pk=barred.pk).update(banned_at=timezone.now())
    for user in others:
        search(user)
    assert not Game.objects.exists()
    assert Search.objects.get(user=barred).status == Search.Status.CANCELLED
    search(make_user("fourth"))
    assert users_at(Game.objects.get()) == {u.pk for u in others} | {
        Search.objects.get(user__username="fourth").user_id
    }


def test_someone_playing_a_real_time_game_cannot_look_for_another():
    four = people(4)
    make_started_game(four)
    with pytest.raises(matchmaking.SearchRefused, match="finish it first"):
        search(four[0])
    # Turn by turn is another matter: those games run for days.
    search(four[0], pace="turn", turn_hours=24)


# --- Web Push for those not looking -------------------------------------------------------------


def test_the_hidden_pages_and_turn_by_turn_searchers_are_pushed_the_found_table(monkeypatch, clock):
    calls = []
    monkeypatch.setattr(webpush, "table_found", lambda game, ids: calls.append((game.pk, ids)))
    a, b, c, d = people(4)
    for user in (a, b, c, d):
        queued(user)
    matchmaking.page_here(b.pk, Search.objects.get(user=b).pk, hidden=True)
    (game,) = matchmaking.match()
    assert calls == [(game.pk, [b.pk])]

    calls.clear()
    turn = people(4, "turn")
    for user in turn:
        search(user, pace="turn", turn_hours=24)
    ((game_id, ids),) = calls
    assert sorted(ids) == sorted(u.pk for u in turn)


# --- The pages ---------------------------------------------------------------------------------


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


FORM = {
    "players": "4",
    "pace": "realtime",
    "move_seconds": "30",
    "turn_hours": "24",
    "rated": "casual",
    "bots": "off",
}


def test_the_find_page_starts_a_search_and_shows_its_wait():
    user = make_user("finder")
    client = logged_in(user)
    assert client.get(reverse("lobby:find")).status_code == 200
    response = client.post(reverse("lobby:find"), FORM)
    mine = Search.objects.get(user=user)
    assert response.url == reverse("lobby:find_wait", args=[mine.pk])
    page = client.get(response.url).content.decode()
    assert f'data-search="{mine.pk}"' in page and "find_status" not in page
    assert "1</span>" in page  # one person looking: this one
    assert reverse("lobby:find_with", args=[mine.token]) in page


def test_the_wait_counts_those_looking_for_the_same():
    users = people(3)
    search(users[0])
    search(users[1])
    search(users[2], players=6)  # another size: not the same
    mine = Search.objects.get(user=users[0])
    assert matchmaking.looking_for_same(mine) == 2
    status = logged_in(users[0]).get(reverse("lobby:find_status", args=[mine.pk]))
    assert 'id="find-count">2<' in status.content.decode()


def test_the_status_sends_a_found_page_to_its_table():
    four = people(4)
    for user in four:
        search(user)
    mine = Search.objects.get(user=four[0])
    response = logged_in(four[0]).get(
        reverse("lobby:find_status", args=[mine.pk]), HTTP_HX_REQUEST="true"
    )
    assert response["HX-Redirect"] == reverse("games:play", args=[mine.game_id])


def test_someone_elses_search_is_not_found_and_cannot_be_cancelled():
    owner, other = people(2)
    mine = search(owner)
    client = logged_in(other)
    assert client.get(reverse("lobby:find_wait", args=[mine.pk])).status_code == 404
    assert client.post(reverse("lobby:find_cancel", args=[mine.pk])).status_code == 404
    assert Search.objects.get(pk=mine.pk).status == Search.Status.OPEN


def test_the_cancel_button_ends_the_search():
    user = make_user("canceller")
    mine = search(user)
    response = logged_in(user).post(reverse("lobby:find_cancel", args=[mine.pk]))
    assert response.status_code == 302
    assert Search.objects.get(pk=mine.pk).status == Search.Status.CANCELLED


def test_the_friends_link_joins_as_a_pair():
    host, friend = people(2)
    mine = search(host)
    client = logged_in(friend)
    url = reverse("lobby:find_with", args=[mine.token])
    assert "Join as partners" in client.get(url).content.decode()
    response = client.post(url)
    theirs = Search.objects.get(user=friend)
    assert response.url == reverse("lobby:find_wait", args=[theirs.pk])
    assert Search.objects.get(pk=mine.pk).partner_id == theirs.pk


def test_the_lobby_shows_how_many_look_per_size_and_pace():
    a, b, c = people(3)
    search(a)
    search(b, players=8)
    search(c, pace="turn", turn_hours=72)
    counts = matchmaking.lobby_counts()
    assert counts[0]["key"] == "realtime" and counts[0]["counts"] == [1, 0, 1, 0]
    assert counts[1]["key"] == "turn" and counts[1]["counts"] == [1, 0, 0, 0]
    page = Client().get(reverse("lobby:index")).content.decode()
    assert 'id="looking"' in page and 'data-pace="turn"' in page


def test_a_rated_search_with_bots_is_refused_by_the_form():
    (user,) = rated_people([1500])
    response = logged_in(user).post(reverse("lobby:find"), {**FORM, "rated": "rated", "bots": "10"})
    assert response.status_code == 400
    assert not Search.objects.exists()


# --- The site socket: the find page's heartbeat and the found game ----------------------------

application = URLRouter(websocket_urlpatterns)


def site_socket(user):
    comm = WebsocketCommunicator(application, "/ws/me/")
    comm.scope["user"] = user
    return comm


@pytest.mark.django_db(transaction=True)
def test_the_find_pages_socket_keeps_the_search_alive_and_its_close_drops_it():
    user = make_user("socketed")
    mine = search(user)
    Search.objects.filter(pk=mine.pk).update(seen_at=timezone.now() - timedelta(seconds=9))

    async def scenario():
        comm = site_socket(user)
        ok, _ = await comm.connect()
        assert ok
        await comm.receive_json_from(timeout=5)  # the waiting games
        await comm.send_json_to({"type": "here", "search": mine.pk, "hidden": True})
        await comm.receive_nothing(timeout=0.3)
        row = await database_sync_to_async(Search.objects.get)(pk=mine.pk)
        assert row.hidden and (timezone.now() - row.seen_at).total_seconds() < 2
        await comm.disconnect()

    async_to_sync(scenario)()
    row = Search.objects.get(pk=mine.pk)
    # Closed: only the reload's grace is left.
    assert not row.hidden
    left = row.seen_at + timedelta(seconds=10) - timezone.now()
    assert timedelta(0) < left <= timedelta(seconds=3)


@pytest.mark.django_db(transaction=True)
def test_the_find_page_is_sent_to_its_table_as_soon_as_the_game_is_dealt():
    four = people(4)
    for user in four[:3]:
        search(user)
    mine = Search.objects.get(user=four[0])

    async def scenario():
        comm = site_socket(four[0])
        ok, _ = await comm.connect()
        assert ok
        await comm.receive_json_from(timeout=5)
        await comm.send_json_to({"type": "here", "search": mine.pk, "hidden": False})
        await comm.receive_nothing(timeout=0.3)
        await database_sync_to_async(search)(four[3])  # the fourth: the table is dealt
        while True:
            message = await comm.receive_json_from(timeout=5)
            if message["type"] == "found":
                return message

    found = async_to_sync(scenario)()
    game_id = Search.objects.get(pk=mine.pk).game_id
    assert found == {"type": "found", "url": f"/games/{game_id}/", "search": mine.pk}
