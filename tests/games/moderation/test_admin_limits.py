"""What the admin lets a moderator change: live tables only, never what the game's own code
keeps (clocks, presence, stand-ins, wake-up times, the invite token), no new games and no
deletes (abort is the tool), seat actions only at a table still waiting or being played."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from games.models import Game
from games.moderation import actions as moderation
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

KEPT_BY_THE_GAME = [
    "clocks",
    "presence",
    "stand_ins",
    "timeouts",
    "wake_at",
    "countdown_at",
    "invite_token",
]


@pytest.fixture
def mod(db):
    """Staff with every permission on games, as a superuser-made moderator group might."""
    user = make_user("mod", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="games", codename__endswith="_game")
    )
    return user


@pytest.fixture
def admin_client(client, mod):
    client.force_login(mod)
    return client


def form_inputs(page):
    """The names of the change form's editable inputs."""
    return set(re.findall(r'<(?:input|select|textarea)[^>]*name="([a-z_]+)"', page))


def test_a_running_game_shows_what_the_game_keeps_but_offers_none_of_it_to_edit(four, admin_client):
    game = make_started_game(four)
    response = admin_client.get(reverse("admin:games_game_change", args=[game.pk]))
    assert response.status_code == 200
    editable = form_inputs(response.content.decode())
    assert not editable & set(KEPT_BY_THE_GAME), editable & set(KEPT_BY_THE_GAME)
    # Fixed once dealt: the engine's state, the clocks and the rating were built from them.
    assert editable <= {"csrfmiddlewaretoken"}, editable


def test_an_open_table_keeps_its_invite_token_read_only_but_its_options_editable(
    four, admin_client
):
    game = Game.objects.create(host=four[0], players=4)
    editable = form_inputs(
        admin_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    )
    assert "invite_token" not in editable and {"rated", "pace", "reason"} <= editable
    # The seat count and the host are the lobby's: it made the seats.
    assert not editable & {"players", "host"}


def test_a_finished_game_is_a_record_shown_and_never_changed(four, admin_client, mod):
    game = make_started_game(four)
    moderation.abort_table(game.pk, mod, "spam")
    url = reverse("admin:games_game_change", args=[game.pk])
    page = admin_client.get(url).content.decode()
    assert form_inputs(page) <= {"csrfmiddlewaretoken"}
    before = Game.objects.get(pk=game.pk)
    response = admin_client.post(url, {"private": "on", "spectators": "on"})
    assert response.status_code == 403
    after = Game.objects.get(pk=game.pk)
    assert (after.private, after.spectators) == (before.private, before.spectators)
    # Its log is still there to read.
    assert admin_client.get(reverse("admin:games_game_log", args=[game.pk])).status_code == 200


def test_no_game_is_added_or_deleted_through_the_admin(four, admin_client):
    game = make_started_game(four)
    assert admin_client.get(reverse("admin:games_game_add")).status_code == 403
    assert (
        admin_client.post(
            reverse("admin:games_game_delete", args=[game.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    changelist = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    assert "delete_selected" not in changelist and "abort_tables" in changelist
    response = admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "delete_selected", "_selected_action": [game.pk], "post": "yes"},
    )
    assert Game.objects.filter(pk=game.pk).exists()
    assert response.status_code in (200, 302)


def test_seat_actions_are_offered_and_taken_only_at_a_live_table(four, admin_client, mod):
    running = make_started_game(four)
    ended = make_started_game([make_user(f"p{n}") for n in range(4)])
    moderation.abort_table(ended.pk, mod, "spam")
    changelist = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    assert reverse("admin:games_game_moderate", args=[running.pk]) in changelist
    assert reverse("admin:games_game_moderate", args=[ended.pk]) not in changelist

    url = reverse("admin:games_game_moderate", args=[ended.pk])
    assert admin_client.get(url).status_code == 403
    seat = ended.seats.get(number=1)
    response = admin_client.post(
        url, {"what": "bot", "seat": 1, "level": "normal", "reason": "troll"}
    )
    assert response.status_code == 403
    seat.refresh_from_db()
    assert seat.user_id is not None
    assert (
        admin_client.get(reverse("admin:games_game_moderate", args=[running.pk])).status_code == 200
    )
