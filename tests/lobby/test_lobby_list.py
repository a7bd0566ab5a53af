import pytest
from django.urls import reverse

from games.models import Game
from lobby import services as lobby
from tests.conftest import make_started_game, make_table

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_open_public_tables_with_their_options_and_free_seats(client, ana, bo):
    game = make_table(ana, players=6, pace="turn", turn_hours=12, stacking=True, target_score=300)
    lobby.take_seat(game.pk, bo, 3)

    page = client.get(reverse("lobby:index")).content.decode()

    assert f"Table {game.pk}" in page
    assert "Turn by turn, 12 h a turn" in page
    assert "To 300 points" in page and "stacking" in page
    row = page[page.index(f"Table {game.pk}") :]
    assert "<td>4</td>" in row[: row.index("</tr>")]  # 6 seats, 2 taken


def test_private_started_and_closed_tables_are_not_listed(client, four, ed):
    private = make_table(ed, private=True)
    started = make_started_game(four)
    closed = make_table(ed)
    lobby.leave_table(closed.pk, ed)

    tables = list(client.get(reverse("lobby:index")).context["tables"])

    assert private not in tables and started not in tables and closed not in tables


def test_the_list_refreshes_itself_as_a_fragment(client, ana):
    make_table(ana)

    response = client.get(reverse("lobby:index"), headers={"HX-Request": "true"})

    body = response.content.decode()
    assert body.lstrip().startswith('<section id="tables"')
    assert 'hx-trigger="every 3s"' in body
    assert "<html" not in body


def test_a_private_table_is_hidden_without_the_invite_link(client, ana, bo):
    game = make_table(ana, private=True)
    client.force_login(bo)

    assert client.get(reverse("lobby:table", args=[game.pk])).status_code == 404
    assert client.post(reverse("lobby:take", args=[game.pk, 1])).status_code == 404


def test_the_invite_link_opens_a_private_table(client, ana, bo):
    game = make_table(ana, private=True)
    client.force_login(bo)

    response = client.get(reverse("lobby:invite", args=[game.invite_token]), follow=True)
    client.post(reverse("lobby:take", args=[game.pk, 1]))

    assert response.status_code == 200
    assert game.seats.get(number=1).user == bo


def test_a_wrong_invite_token_finds_nothing(client, ana):
    make_table(ana, private=True)
    assert client.get(reverse("lobby:invite", args=["not-a-token"])).status_code == 404


def test_the_table_page_shows_team_marks_and_the_invite_link_to_the_host(client, ana):
    game = make_table(ana, private=True)
    client.force_login(ana)

    page = client.get(reverse("lobby:table", args=[game.pk])).content.decode()

    assert "Team 1 (circle)" in page and "Team 2 (square)" in page
    assert game.invite_token in page


def test_a_started_table_sends_its_players_to_the_game(client, four):
    game = make_started_game(four)
    client.force_login(four[1])

    response = client.get(reverse("lobby:table", args=[game.pk]), headers={"HX-Request": "true"})

    assert response["HX-Redirect"] == reverse("games:play", args=[game.pk])
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
