import pytest
from django.urls import reverse

from games.models import Game

pytestmark = pytest.mark.django_db


def table_data(**overrides):
    data = {
        "players": 4,
        "pace": "realtime",
        "move_seconds": 30,
        "turn_hours": 24,
        "missed_deadline": "bot",
        "final_card_penalty": "on",
        "scoring": "single",
        "target_score": 500,
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_the_host_creates_a_table_and_sits_at_seat_zero(client, ana):
    client.force_login(ana)

    response = client.post(reverse("lobby:create"), table_data())

    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("lobby:table", args=[game.pk])
    assert game.host == ana
    assert game.status == Game.Status.OPEN
    assert [s.user for s in game.seats.all()] == [ana, None, None, None]
    assert game.target_score is None
    assert game.final_card_penalty and not game.stacking and not game.private


def test_every_rule_book_option_is_stored(client, ana):
    client.force_login(ana)

    client.post(
        reverse("lobby:create"),
        table_data(
            players=8,
            pace="turn",
            turn_hours=72,
            missed_deadline="leave",
            stacking="on",
            final_card_penalty=None,
            scoring="target",
            target_score=1250,
            spectators="on",
            private="on",
        ),
    )

    game = Game.objects.get()
    assert (game.players, game.pace, game.turn_hours, game.missed_deadline) == (
        8,
        "turn",
        72,
        "leave",
    )
    assert game.stacking and not game.final_card_penalty
    assert game.target_score == 1250
    assert game.spectators and game.private
    assert game.seats.count() == 8
    options = game.engine_options()
    assert (
        options.players,
        options.stacking,
        options.final_card_penalty,
        options.target_score,
    ) == (8, True, False, 1250)


@pytest.mark.parametrize("seconds", [45, 30, 15])
def test_each_real_time_move_timer_is_offered(client, ana, seconds):
    client.force_login(ana)
    client.post(reverse("lobby:create"), table_data(move_seconds=seconds))
    assert Game.objects.get().move_seconds == seconds


@pytest.mark.parametrize(
    "overrides",
    [
        {"players": 5},
        {"players": 2},
        {"move_seconds": 20},
        {"turn_hours": 48},
        {"scoring": "target", "target_score": 49},
        {"scoring": "target", "target_score": 5001},
        {"scoring": "target", "target_score": None},
        {"missed_deadline": "explode"},
    ],
)
def test_options_outside_the_rule_book_are_refused(client, ana, overrides):
    client.force_login(ana)

    response = client.post(reverse("lobby:create"), table_data(**overrides))

    assert response.status_code == 400
    assert not Game.objects.exists()


def test_the_target_score_defaults_to_500(client, ana):
    client.force_login(ana)
    page = client.get(reverse("lobby:create"))
    assert page.context["form"]["target_score"].value() == 500


def test_creating_a_table_needs_a_log_in(client):
    response = client.post(reverse("lobby:create"), table_data())
    assert response.status_code == 302
    assert not Game.objects.exists()
