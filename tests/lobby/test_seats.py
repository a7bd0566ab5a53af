import threading

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.urls import reverse

from games.models import Game, GameEvent, Seat
from lobby import services as lobby
from tests.conftest import make_table, make_user

pytestmark = pytest.mark.django_db


def seated(game):
    return [s.user_id or s.bot_level or None for s in Seat.objects.filter(game=game)]


def post(client, name, game, *args, **data):
    return client.post(reverse(f"lobby:{name}", args=[game.pk, *args]), data, follow=True)


def said(response):
    return [str(m) for m in get_messages(response.wsgi_request)] or [
        str(m) for m in response.context["messages"]
    ]


def test_a_player_takes_a_free_seat(client, ana, bo):
    game = make_table(ana)
    client.force_login(bo)

    post(client, "take", game, 2)

    assert seated(game) == [ana.pk, None, bo.pk, None]


def test_nobody_takes_a_taken_seat(client, ana, bo, cy):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(cy)

    response = post(client, "take", game, 1)

    assert "That seat is taken." in said(response)
    assert seated(game) == [ana.pk, bo.pk, None, None]


def test_nobody_takes_a_seat_held_by_a_bot(client, ana, bo):
    game = make_table(ana)
    lobby.add_bot(game.pk, ana, 3, "easy")
    client.force_login(bo)

    post(client, "take", game, 3)

    assert seated(game) == [ana.pk, None, None, "easy"]


def test_a_full_table_refuses_joins(client, ana, bo, cy, di, ed):
    game = make_table(ana)
    for n, user in enumerate([bo, cy, di], start=1):
        lobby.take_seat(game.pk, user, n)
    client.force_login(ed)

    response = post(client, "take", game, 1)

    assert "This table is full." in said(response)
    assert ed.pk not in seated(game)


def test_a_seated_player_changes_seat(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(bo)

    post(client, "take", game, 3)

    assert seated(game) == [ana.pk, None, None, bo.pk]


def test_a_seated_player_cannot_move_onto_a_taken_seat(ana, bo, cy):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.take_seat(game.pk, cy, 2)
    lobby.add_bot(game.pk, ana, 3, "hard")

    with pytest.raises(lobby.LobbyError, match="taken"):
        lobby.take_seat(game.pk, bo, 2)
    assert seated(game) == [ana.pk, bo.pk, cy.pk, "hard"]


def test_a_player_leaves_before_the_start(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(bo)

    post(client, "leave", game)

    assert seated(game) == [ana.pk, None, None, None]


def test_when_the_host_leaves_the_table_closes(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(ana)

    post(client, "leave", game)

    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert seated(game) == [None] * 4


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_the_host_adds_a_bot_at_each_level(client, ana, level):
    game = make_table(ana)
    client.force_login(ana)

    post(client, "bot", game, 2, level=level)

    assert seated(game) == [ana.pk, None, level, None]


def test_a_bot_level_outside_the_three_is_refused(client, ana):
    game = make_table(ana)
    client.force_login(ana)

    post(client, "bot", game, 2, level="godlike")

    assert seated(game) == [ana.pk, None, None, None]


def test_a_non_host_cannot_add_bots(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(bo)

    response = post(client, "bot", game, 2, level="easy")

    assert "Only the host can do that." in said(response)
    assert seated(game) == [ana.pk, bo.pk, None, None]


def test_the_host_removes_a_player_and_a_bot(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.add_bot(game.pk, ana, 2, "normal")
    client.force_login(ana)

    post(client, "remove", game, 1)
    post(client, "remove", game, 2)

    assert seated(game) == [ana.pk, None, None, None]


def test_a_non_host_cannot_remove_anyone(client, ana, bo, cy):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.take_seat(game.pk, cy, 2)
    client.force_login(bo)

    post(client, "remove", game, 2)

    assert seated(game) == [ana.pk, bo.pk, cy.pk, None]


def test_the_host_starts_a_full_table(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.add_bot(game.pk, ana, 2, "easy")
    lobby.add_bot(game.pk, ana, 3, "hard")
    client.force_login(ana)

    response = client.post(reverse("lobby:start", args=[game.pk]))

    assert response.status_code == 302
    assert response["Location"] == reverse("games:play", args=[game.pk])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.started_at is not None
    deal = GameEvent.objects.get(game=game)
    assert (deal.seq, deal.kind, deal.actor, deal.action) == (1, "deal", "system", None)
    assert game.snapshot.seq == 1


def test_a_table_with_an_empty_seat_cannot_start(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    client.force_login(ana)

    response = post(client, "start", game)

    assert "Every seat must be filled before the start." in said(response)
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    assert not GameEvent.objects.filter(game=game).exists()


def test_a_non_host_cannot_start(client, ana, bo):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    for n in (2, 3):
        lobby.add_bot(game.pk, ana, n, "easy")
    client.force_login(bo)

    response = post(client, "start", game)

    assert "Only the host can do that." in said(response)
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN


def test_seats_do_not_change_after_the_start(ana, bo, cy):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    for n in (2, 3):
        lobby.add_bot(game.pk, ana, n, "easy")
    lobby.start_table(game.pk, ana)

    for attempt in (
        lambda: lobby.take_seat(game.pk, cy, 2),
        lambda: lobby.leave_table(game.pk, bo),
        lambda: lobby.remove_from_seat(game.pk, ana, 1),
        lambda: lobby.add_bot(game.pk, ana, 1, "easy"),
        lambda: lobby.start_table(game.pk, ana),
    ):
        with pytest.raises(lobby.LobbyError, match="already started"):
            attempt()
    assert seated(game) == [ana.pk, bo.pk, "easy", "easy"]
    assert GameEvent.objects.filter(game=game).count() == 1


def test_seat_actions_need_a_log_in(client, ana):
    game = make_table(ana)

    response = client.post(reverse("lobby:take", args=[game.pk, 1]))

    assert response.status_code == 302
    assert seated(game) == [ana.pk, None, None, None]


def test_seat_actions_are_post_only(client, ana, bo):
    game = make_table(ana)
    client.force_login(bo)

    assert client.get(reverse("lobby:take", args=[game.pk, 1])).status_code == 405


@pytest.mark.django_db(transaction=True)
def test_two_players_racing_for_one_seat_get_it_once(require_postgres):
    host = make_user("host")
    game = make_table(host)
    racers = [make_user(f"racer{n}") for n in range(6)]
    barrier = threading.Barrier(len(racers))
    outcomes = []

    def race(user):
        try:
            barrier.wait()
            lobby.take_seat(game.pk, user, 1)
            outcomes.append("seated")
        except lobby.LobbyError as exc:
            outcomes.append(str(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(u,)) for u in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert outcomes.count("seated") == 1
    assert outcomes.count("That seat is taken.") == len(racers) - 1
    assert Seat.objects.filter(game=game, user__in=racers).count() == 1
