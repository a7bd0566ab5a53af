"""My games: the page, the home page's panel, the header's count, and the site socket that
keeps them live (games.presenters.mine, games.views.mine, games.context, games.consumers.
SiteConsumer, the waiting.changed messages of games.effects). docs/my-games.md.

Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import json
import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import effects, push, store
from games.actions import decisions
from games.models import Game, GameEvent
from games.presenters import mine, table
from games.routing import websocket_urlpatterns
from lobby import services as lobby
from tests.conftest import make_started_game, make_table, make_user
from tests.games.presenters.test_table_secrecy import cards_in
from tests.security.test_csp import refused_inline

NOON = datetime(2025, 6, 3, 12, 0, tzinfo=UTC)  # a Tuesday


def page(client, **headers):
    response = client.get(reverse("games:mine"), headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def row_ids(html):
    return [int(n) for n in re.findall(r'<li class="game-row[^"]*" data-game="(\d+)"', html)]


def turn_by_turn(users, seed, **options):
    return make_started_game(users, pace=Game.Pace.TURN_BASED, turn_hours=24, seed=seed, **options)


def set_columns(game, **columns):
    Game.objects.filter(pk=game.pk).update(**columns)
    game.refresh_from_db()


# --- the page ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_asks_for_a_log_in(client):
    response = client.get(reverse("games:mine"))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_games_waiting_on_the_reader_come_first_soonest_deadline_first(four, ed):
    ana, bo, cy, di = four
    later = turn_by_turn([ana, bo], seed=101)
    sooner = turn_by_turn([ana, cy], seed=102)
    others = turn_by_turn([ana, di], seed=103)
    set_columns(later, waiting_on=[0], deadline_at=NOON + timedelta(hours=20))
    set_columns(sooner, waiting_on=[0, 1], deadline_at=NOON + timedelta(hours=5))
    set_columns(others, waiting_on=[1], deadline_at=NOON + timedelta(hours=1))
    with time_machine.travel(NOON, tick=False):
        html = page(logged_in(ana))
    assert row_ids(html) == [sooner.pk, later.pk, others.pk]
    rows = re.findall(r'<li class="game-row.*?</li>', html, re.S)
    assert 'class="game-row yours"' in rows[0] and "Your move" in rows[0]
    # The reader's own seat is "you", first; the others by name.
    assert f"Waiting for you and {cy.name}" in rows[0]
    assert "Waiting for you" in rows[1] and "Your move" in rows[1]
    assert f"Waiting for {di.name}" in rows[2] and "Your move" not in rows[2]
    assert "(in 5 h)" in rows[0] and "(in 20 h)" in rows[1]


@pytest.mark.django_db
def test_only_the_readers_running_games_are_listed(four, ed):
    ana, bo, cy, di = four
    playing = make_started_game([ana, bo], seed=104)
    finished = make_started_game([ana, cy], seed=105)
    set_columns(finished, status=Game.Status.FINISHED)
    not_hers = make_started_game([bo, cy, di], seed=106)
    open_table = make_table(ana)
    html = page(logged_in(ana))
    assert row_ids(html) == [playing.pk]
    for game in (finished, not_hers, open_table):
        assert reverse("games:play", args=[game.pk]) not in html
    assert row_ids(page(logged_in(ed))) == []


@pytest.mark.django_db
def test_the_deadline_is_shown_in_the_readers_time_zone(ana, bo):
    User.objects.filter(pk=ana.pk).update(time_zone="Asia/Tokyo")  # UTC+9
    game = turn_by_turn([ana, bo], seed=107)
    set_columns(game, waiting_on=[0], deadline_at=NOON + timedelta(hours=5))
    with time_machine.travel(NOON, tick=False):
        html = page(logged_in(ana))
        message = mine.socket_message(User.objects.get(pk=ana.pk))
    # 17:00 UTC is 02:00 the next day in Tokyo.
    assert (
        "Answer by <time" in html
        and '>Wed 4 Jun, 02:00</time> <span class="in">(in 5 h)</span>' in html
    )
    assert "Turn by turn, 24 h a turn" in html
    assert message["games"][0]["body"].endswith("Answer by Wed 04 Jun, 02:00.")


@pytest.mark.django_db
def test_a_real_time_game_says_real_time_and_its_pace(ana):
    game = make_started_game([ana], pace=Game.Pace.REALTIME, move_seconds=15, seed=108)
    html = page(logged_in(ana))
    row = re.search(rf'data-game="{game.pk}".*?</li>', html, re.S).group(0)
    assert '<span class="realtime">Real time</span>' in row
    assert "Real time, 15 s a move" in row and "Answer by" not in row
    assert f'href="/games/{game.pk}/"' in row


@pytest.mark.django_db
def test_a_seat_a_bot_plays_for_the_reader_does_not_wait_on_them(ana, bo):
    game = turn_by_turn([ana, bo], seed=109)
    set_columns(
        game,
        waiting_on=[0, 1],
        bot_seats=[*game.bot_seats, 0],
        stand_ins={"0": {"reason": "away", "since": NOON.isoformat()}},
    )
    html = page(logged_in(ana))
    assert "Your move" not in html and "(a bot plays while you are away)" in html
    assert mine.waiting(ana.pk) == []


@pytest.mark.django_db
def test_nothing_running_says_so_and_offers_a_way_in(ana):
    html = page(logged_in(ana))
    assert "You are not playing any game right now." in html
    assert reverse("lobby:quick") in html and row_ids(html) == []


@pytest.mark.django_db
def test_the_fragments_are_the_list_and_the_panel_alone(four):
    ana = four[0]
    make_started_game(four, seed=110)
    client = logged_in(ana)
    listed = page(client, **{"HX-Request": "true"})
    assert listed.lstrip().startswith('<section id="my-games"')
    assert 'hx-trigger="waiting-changed from:body, every 60s"' in listed and "<header" not in listed
    panel = client.get(reverse("games:mine") + "?panel=1", headers={"HX-Request": "true"})
    assert panel.content.decode().lstrip().startswith('<section id="my-games-panel"')


@pytest.mark.django_db
def test_no_page_or_message_names_a_card(four):
    """The page reads no state at all; played games hold cards in every view, so a leak of
    any view would show here."""
    ana = four[0]
    games = [make_started_game(four, seed=111), make_started_game(four[:2], seed=112)]
    for game in games:
        for _ in range(8):
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE:
                break
            state = store.load_state(game)
            seat = game.waiting_on[0]
            decisions.apply_decision(
                game.pk, seat, state.auto_action(seat), "person", idempotency_key=uuid.uuid4().hex
            )
    client = logged_in(ana)
    documents = [
        page(client),
        page(client, **{"HX-Request": "true"}),
        client.get(
            reverse("games:mine") + "?panel=1", headers={"HX-Request": "true"}
        ).content.decode(),
        client.get(reverse("lobby:index")).content.decode(),
        json.dumps(mine.socket_message(ana)),
    ]
    assert len(row_ids(documents[0])) == 2
    for html in documents:
        assert cards_in(html) == set()


@pytest.mark.django_db
def test_the_pages_carry_nothing_the_content_policy_refuses(four):
    make_started_game(four, seed=113)
    client = logged_in(four[0])
    for html in (
        page(client),
        page(client, **{"HX-Request": "true"}),
        client.get(reverse("lobby:index")).content.decode(),
        page(logged_in(make_user("nobody-plays"))),
    ):
        assert refused_inline(html) == []


# --- the home page's panel and the header -------------------------------------------------------


@pytest.mark.django_db
def test_the_home_page_shows_at_most_five_games_and_a_link_to_the_rest(ana):
    games = [make_started_game([ana], seed=120 + n) for n in range(7)]
    set_columns(games[6], waiting_on=[1])  # waits on a bot: last
    html = logged_in(ana).get(reverse("lobby:index")).content.decode()
    panel = re.search(r'<section id="my-games-panel".*?</section>', html, re.S).group(0)
    assert len(row_ids(panel)) == 5 and games[6].pk not in row_ids(panel)
    assert f'<a href="{reverse("games:mine")}">All 7 games</a>' in panel
    assert 'hx-trigger="waiting-changed from:body"' in panel


@pytest.mark.django_db
def test_the_home_page_has_no_panel_for_a_visitor(client):
    html = client.get(reverse("lobby:index")).content.decode()
    assert "my-games-panel" not in html and "waiting-count" not in html and "site.js" not in html


@pytest.mark.django_db
def test_the_header_counts_the_games_waiting_on_the_reader(four, django_assert_num_queries):
    ana, bo = four[:2]
    setup = make_started_game(four, seed=130)  # the setup pass waits on everyone
    second = make_started_game([ana, bo], seed=131)
    theirs = make_started_game([ana, bo], seed=132)
    set_columns(theirs, waiting_on=[1])
    html = logged_in(ana).get(reverse("history:mine")).content.decode()
    assert re.search(
        r'<span class="count" id="waiting-count" aria-hidden="true">2</span>'
        r'<span class="visually-hidden" id="waiting-label">: 2 games waiting on you'
        r"</span>",
        html,
    )
    marks = re.search(r'data-waiting="([^"]*)"', html).group(1)
    assert sorted(marks.split()) == sorted([f"{setup.pk}:1", f"{second.pk}:1"])
    assert 'data-site-ws="/ws/me/" data-heartbeat="60"' in html
    with django_assert_num_queries(1):
        assert mine.waiting_count(ana.pk) == 2
    set_columns(setup, waiting_on=[1, 2])
    set_columns(second, waiting_on=[1])
    html = logged_in(ana).get(reverse("history:mine")).content.decode()
    assert '<span class="count" id="waiting-count" aria-hidden="true" hidden>0</span>' in html
    assert '<span class="visually-hidden" id="waiting-label"></span>' in html


@pytest.mark.django_db
def test_the_count_is_read_once_per_page_and_not_for_a_fragment(four, monkeypatch):
    make_started_game(four, seed=133)
    client = logged_in(four[0])
    calls = []
    real = mine.waiting
    monkeypatch.setattr(mine, "waiting", lambda user_id: calls.append(user_id) or real(user_id))
    client.get(reverse("rules"))
    assert calls == [four[0].pk]
    calls.clear()
    client.get(reverse("lobby:index"), headers={"HX-Request": "true"})  # the 3 s poll
    client.get(reverse("games:mine"), headers={"HX-Request": "true"})
    assert calls == []


# --- what games.effects sends ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_push_tells_each_persons_site_sockets_only_when_they_listen(four, ed, monkeypatch):
    ana, bo = four[:2]
    game = make_started_game([ana, bo], seed=140)
    asked = []

    def listening(groups):
        asked.append(list(groups))
        return {push.waiting_group(ana.pk)}

    monkeypatch.setattr(table, "PublicTable", None)  # would fail if it were built
    reads = []
    monkeypatch.setattr(store, "recent_events", lambda *a: reads.append(a))
    pushes = effects.seat_pushes(game.pk, listening=listening, waiting=True)
    assert pushes == [(push.waiting_group(ana.pk), {"type": "waiting.changed"})]
    # One read for every group, seats and users together; no event row read, nothing rendered.
    assert asked == [
        [
            push.seat_group(game.pk, 0),
            push.seat_group(game.pk, 1),
            push.waiting_group(ana.pk),
            push.waiting_group(bo.pk),
        ]
    ]
    assert reads == []
    assert effects.seat_pushes(game.pk, listening=lambda groups: set(), waiting=True) == []


@pytest.mark.django_db
def test_a_push_nobody_listens_to_costs_the_seats_read_alone(four, django_assert_num_queries):
    game = make_started_game(four, seed=141)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    state = store.load_state(game)
    with django_assert_num_queries(1):
        assert (
            effects.seat_pushes(
                game.pk, game=game, state=state, waiting=True, listening=lambda groups: set()
            )
            == []
        )


@pytest.mark.django_db
def test_without_a_listening_check_every_person_is_told(four):
    game = make_started_game(four[:3], seed=142)
    told = [
        g for g, m in effects.seat_pushes(game.pk, waiting=True) if m == {"type": "waiting.changed"}
    ]
    assert told == [push.waiting_group(u.pk) for u in four[:3]]
    assert not [m for _, m in effects.seat_pushes(game.pk) if m["type"] == "waiting.changed"]


# --- the site socket ---------------------------------------------------------------------------

application = URLRouter(websocket_urlpatterns)


def site_socket(user):
    comm = WebsocketCommunicator(application, "/ws/me/")
    comm.scope["user"] = user
    return comm


async def opened(comm):
    ok, code = await comm.connect()
    assert ok, code
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "waiting"
    return first


def bot_move(game, seat):
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    state = store.load_state(game)
    decisions.apply_decision(
        game.pk,
        seat,
        state.auto_action(seat),
        GameEvent.Actor.BOT,
        idempotency_key=uuid.uuid4().hex,
    )


def person_move(game, seat):
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    state = store.load_state(game)
    decisions.apply_decision(
        game.pk,
        seat,
        state.auto_action(seat),
        GameEvent.Actor.PERSON,
        idempotency_key=uuid.uuid4().hex,
    )


@pytest.mark.django_db(transaction=True)
def test_the_site_socket_needs_a_logged_in_user():
    async def scenario():
        comm = site_socket(AnonymousUser())
        assert await comm.connect() == (False, 4401)

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_banned_account_is_refused_and_a_ban_closes_an_open_socket(ana):
    async def scenario():
        comm = site_socket(ana)
        await opened(comm)
        await database_sync_to_async(User.objects.filter(pk=ana.pk).update)(banned_at=NOON)
        # A ban tells the user's group (games.effects.account_saved, on the model's save).
        await database_sync_to_async(effects.access_changed)(ana.pk)
        out = await comm.receive_output(timeout=5)
        assert out == {"type": "websocket.close", "code": 4423}
        banned = await database_sync_to_async(User.objects.get)(pk=ana.pk)
        refused = site_socket(banned)
        assert await refused.connect() == (False, 4423)

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_logging_out_closes_the_site_socket(ana):
    async def scenario():
        comm = site_socket(ana)
        await opened(comm)
        await database_sync_to_async(effects.session_ended)(sender=None, request=None, user=ana)
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_bot_move_tells_the_players_socket_and_no_one_elses(ana, bo, ed):
    game = make_started_game([ana, bo], seed=150)  # the setup pass: seats 0-3 all choose
    outsider_game = make_started_game([ed], seed=151)

    async def scenario():
        mine_, bos, eds = site_socket(ana), site_socket(bo), site_socket(ed)
        first = await opened(mine_)
        assert first == {
            "type": "waiting",
            "count": 1,
            "games": [
                {
                    "id": game.pk,
                    "seq": 1,
                    "url": f"/games/{game.pk}/",
                    "title": f"Your turn at table {game.pk}",
                    "body": "4 players. Real time, 30 s a move.",
                }
            ],
        }
        await opened(bos)
        await opened(eds)
        await database_sync_to_async(bot_move)(game, 3)
        message = await mine_.receive_json_from(timeout=5)
        assert message["count"] == 1 and message["games"][0]["seq"] == 2
        assert (await bos.receive_json_from(timeout=5))["games"][0]["seq"] == 2
        assert await eds.receive_nothing(timeout=0.5)
        # A move in a game Ana does not sit at sends her nothing.
        await database_sync_to_async(bot_move)(outsider_game, 2)
        assert await mine_.receive_nothing(timeout=0.5)
        for comm in (mine_, bos, eds):
            await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_the_socket_says_nothing_when_the_users_waiting_games_did_not_change(ana, bo):
    game = make_started_game([ana, bo], seed=152)

    async def scenario():
        comm = site_socket(ana)
        await opened(comm)
        await database_sync_to_async(person_move)(game, 0)  # Ana passes her card
        gone = await comm.receive_json_from(timeout=5)
        assert gone == {"type": "waiting", "count": 0, "games": []}
        # Bo and the bots choose; until the pass completes nothing waits on Ana.
        await database_sync_to_async(bot_move)(game, 3)
        assert await comm.receive_nothing(timeout=0.5)
        await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_game_started_in_the_lobby_reaches_the_players_socket(ana, bo):
    table_ = make_table(ana, seed=153)
    lobby.take_seat(table_.pk, bo, 1)
    for number in (2, 3):
        lobby.add_bot(table_.pk, ana, number, "easy")

    async def scenario():
        comm = site_socket(bo)
        assert (await opened(comm))["count"] == 0
        await database_sync_to_async(lobby.start_table)(table_.pk, ana)
        message = await comm.receive_json_from(timeout=5)
        assert message["count"] == 1 and message["games"][0]["id"] == table_.pk
        await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_connecting_and_the_heartbeat_say_the_player_is_here(ana):
    def last_seen():
        return User.objects.get(pk=ana.pk).last_seen_at

    async def scenario():
        assert await database_sync_to_async(last_seen)() is None
        comm = site_socket(ana)
        await opened(comm)
        assert await database_sync_to_async(last_seen)() is not None
        await database_sync_to_async(User.objects.filter(pk=ana.pk).update)(last_seen_at=None)
        await comm.send_json_to({"type": "something else"})
        await comm.send_to(text_data="not json")
        assert await comm.receive_nothing(timeout=0.3)
        assert await database_sync_to_async(last_seen)() is None
        await comm.send_json_to({"type": "here"})
        assert await comm.receive_nothing(timeout=0.3)
        assert await database_sync_to_async(last_seen)() is not None
        await comm.disconnect()

    async_to_sync(scenario)()
