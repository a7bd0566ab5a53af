"""Play again: a finished game's players get a new table with the same seats, bots kept at
their levels and people asked; one table however many ask, and only for the players."""

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from games.actions import rematch
from games.models import Game
from lobby import services as lobby
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db


def finish(game):
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    return game


def test_the_same_seats_come_back_at_a_new_table(client, ana, bo):
    game = finish(
        make_started_game(
            [ana, bo], bots=["hard", "easy"], players=4, stacking=True, target_score=300
        )
    )
    client.force_login(ana)
    response = client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    assert response.status_code == 302 and response["Location"] == reverse(
        "lobby:table", args=[new.pk]
    )
    assert new.status == Game.Status.OPEN and new.host == ana
    assert (new.players, new.stacking, new.target_score) == (4, True, 300)
    seats = {s.number: (s.user_id, s.bot_level) for s in new.seats.all()}
    assert seats == {0: (ana.pk, ""), 1: (None, ""), 2: (None, "hard"), 3: (None, "easy")}


def test_play_again_keeps_every_option_the_host_chose(client, ana, bo):
    """Each of the table's options (Game.TABLE_OPTIONS), set away from its default: the new
    table has them all, whether bot accounts may sit down included."""
    chosen = dict(
        players=6,
        pace=Game.Pace.REALTIME,
        move_seconds=15,
        bot_speed=Game.BotSpeed.QUICK,
        stacking=True,
        final_card_penalty=False,
        target_score=250,
        spectators=False,
        private=True,
        bot_accounts=True,
    )
    game = finish(make_started_game([ana, bo], bots=["easy"], **chosen))
    client.force_login(ana)
    client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    assert {name: getattr(new, name) for name in Game.TABLE_OPTIONS} == {
        name: getattr(game, name) for name in Game.TABLE_OPTIONS
    }
    assert {name: getattr(new, name) for name in chosen} == chosen


def test_the_others_are_shown_the_new_table_and_take_their_old_seat(client, ana, bo):
    game = finish(make_started_game([ana, bo], players=4))
    client.force_login(ana)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Play again" in page and "Join the new game" not in page
    client.post(reverse("games:again", args=[game.pk]))

    client.force_login(bo)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Join the new game" in page
    client.post(reverse("games:again", args=[game.pk]))
    client.force_login(ana)
    client.post(reverse("games:again", args=[game.pk]))  # a second click changes nothing
    assert Game.objects.filter(rematch_of=game).count() == 1
    new = Game.objects.get(rematch_of=game)
    assert new.seats.get(number=1).user == bo and new.seats.get(number=0).user == ana


def test_only_players_of_a_finished_game_may_ask(client, ana, bo, ed):
    running = make_started_game([ana, bo], players=4)
    client.force_login(ana)
    response = client.post(reverse("games:again", args=[running.pk]))
    assert response.status_code == 409 and "not over yet" in response.content.decode()
    assert not Game.objects.filter(rematch_of=running).exists()
    finish(running)
    client.force_login(ed)
    assert client.post(reverse("games:again", args=[running.pk])).status_code == 403
    assert client.get(reverse("games:again", args=[running.pk])).status_code == 405
    assert not Game.objects.filter(rematch_of=running).exists()
    assert client.post(reverse("games:again", args=[999999])).status_code == 404


# --- The seats of the game before wait for their people (docs/table.md, "Play again").


def held_page(client, game):
    return client.get(reverse("lobby:table", args=[game.pk])).content.decode()


def messages_of(response):
    return [str(m) for m in response.context["messages"]]


def test_a_stranger_cannot_take_a_seat_held_for_a_player_of_the_last_game(client, ana, bo, ed):
    """A stranger in the lobby tried the new table's empty seat: it waits for Bo."""
    game = finish(make_started_game([ana, bo], players=4))
    client.force_login(ana)
    client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    assert new.free_seat_count() == 0  # the lobby lists it with no free seat

    client.force_login(ed)
    assert "Held for Bo until" in held_page(client, new)
    response = client.post(reverse("lobby:take", args=[new.pk, 1]), follow=True)
    assert response.status_code == 409
    assert "That seat is held for Bo" in " ".join(messages_of(response))
    assert new.seats.get(number=1).user is None

    client.force_login(bo)
    client.post(reverse("games:again", args=[game.pk]))
    assert new.seats.get(number=1).user == bo


def test_each_held_players_play_again_lands_in_their_own_seat(client, four, ed):
    """After a stranger tried a held seat, each player's Play again finds their own."""
    ana, bo, cy, di = four
    game = finish(make_started_game(four, players=4))
    client.force_login(cy)
    client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    for number in (0, 1, 3):
        with pytest.raises(lobby.LobbyError, match="held for"):
            lobby.take_seat(new.pk, ed, number)
    for user in (di, ana, bo):
        client.force_login(user)
        client.post(reverse("games:again", args=[game.pk]))
    assert [s.user for s in new.seats.all()] == [ana, bo, cy, di]


def test_the_host_puts_no_bot_and_invites_none_to_a_held_seat(ana, bo):
    game = finish(make_started_game([ana, bo], players=4))
    new = rematch.play_again(game.pk, ana)
    make_user("robo", is_bot=True)
    with pytest.raises(lobby.LobbyError, match="held for Bo"):
        lobby.add_bot(new.pk, ana, 1, "easy")
    with pytest.raises(lobby.LobbyError, match="held for Bo"):
        lobby.invite_bot(new.pk, ana, 1, "robo")
    assert new.seats.get(number=1).is_empty


def test_a_held_player_declines_from_the_finished_table_and_the_seat_is_free(client, ana, bo, ed):
    game = finish(make_started_game([ana, bo], players=4))
    client.force_login(ana)
    client.post(reverse("games:again", args=[game.pk]))
    new = Game.objects.get(rematch_of=game)
    assert "Decline" not in client.get(reverse("games:play", args=[game.pk])).content.decode()

    client.force_login(bo)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    decline_url = reverse("lobby:decline", args=[new.pk])
    assert f'action="{decline_url}"' in page and "Join the new game" in page
    response = client.post(decline_url, follow=True)
    assert "You declined" in " ".join(messages_of(response))
    assert new.seats.get(number=1).held_for is None
    # Declined once: a second post changes nothing and says why.
    again = client.post(decline_url, follow=True)
    assert again.status_code == 409
    assert "No seat of this table is held for you." in " ".join(messages_of(again))

    client.force_login(ed)
    client.post(reverse("lobby:take", args=[new.pk, 1]))
    assert new.seats.get(number=1).user == ed


def test_a_held_player_declines_from_the_new_tables_page(client, ana, bo):
    game = finish(make_started_game([ana, bo], players=4, private=True))
    new = rematch.play_again(game.pk, ana)
    client.force_login(bo)
    lobby_page = client.get(reverse("lobby:index")).content.decode()
    assert f"Table {new.pk}</a> — a seat is held for you" in lobby_page
    page = held_page(client, new)  # private, yet Bo's to join or decline
    assert f'action="{reverse("lobby:decline", args=[new.pk])}"' in page
    client.post(reverse("lobby:decline", args=[new.pk]))
    assert new.seats.get(number=1).is_free()
    assert f"Table {new.pk}</a>" not in client.get(reverse("lobby:index")).content.decode()


def test_a_hold_ends_when_its_time_runs_out(client, ana, bo, ed):
    game = finish(make_started_game([ana, bo], players=4))  # real time: held 10 minutes
    new = rematch.play_again(game.pk, ana)
    with time_machine.travel(timezone.now() + timedelta(minutes=9), tick=False):
        with pytest.raises(lobby.LobbyError, match="held for Bo"):
            lobby.take_seat(new.pk, ed, 1)
    with time_machine.travel(timezone.now() + timedelta(minutes=11), tick=False):
        client.force_login(ed)
        client.post(reverse("lobby:take", args=[new.pk, 1]))
        assert new.seats.get(number=1).user == ed
        # Bo comes back late: his seat went to Ed, and the table is full.
        with pytest.raises(rematch.RematchRefused, match="full"):
            rematch.play_again(game.pk, bo)


def test_a_turn_by_turn_table_holds_a_seat_for_one_turns_time(ana, bo):
    game = finish(make_started_game([ana, bo], players=4, pace="turn", turn_hours=72))
    new = rematch.play_again(game.pk, ana)
    held = new.seats.get(number=1)
    assert held.held_for == bo
    assert held.held_until - new.created_at >= timedelta(hours=71, minutes=59)
