"""The bots' ladder: a rated game whose every seat is a bot account is rated among bot
accounts, with the same team-rating model as people's; people's ratings never move for it,
a game mixing people and bot accounts stays casual, and each ladder has its own board.
"""

import pytest
from django.test import Client
from django.urls import reverse

from accounts import bot_tokens
from games.actions import ratings
from games.models import Game, Rating, RatingChange
from lobby import services as lobby
from tests.conftest import make_user
from tests.games.history.helpers import finish
from tests.games.ratings.helpers import (
    changes,
    concede,
    confirmed,
    library_update,
    play_cards,
    rate,
    rated_game,
)

pytestmark = pytest.mark.django_db


def make_bots(*names):
    return [
        bot_tokens.make_bot_account(make_user(name, display_name=name.title())) for name in names
    ]


@pytest.fixture
def bots(db):
    return make_bots("robo", "rita", "rex", "rue")


def bot_table(bots, *, rated=True, **options):
    """A started table hosted by bots[0] at seat 0, bots[i] invited to seat i and accepting,
    as the Bot API does it."""
    host = bots[0]
    game = lobby.create_table(host, rated=rated, **options)
    for number, bot in enumerate(bots[1:], start=1):
        invitation = lobby.invite_bot(game.pk, host, number, bot.username)
        lobby.accept_invitation(invitation.pk, bot)
    lobby.start_table(game.pk, host)
    game.refresh_from_db()
    return game


def people_rows():
    return sorted(
        Rating.objects.filter(user__is_bot=False).values_list(
            "user_id", "players", "mu", "sigma", "games"
        )
    )


def test_a_game_of_four_bot_accounts_is_rated_on_the_bots_ladder_and_no_person_moves(bots, four):
    rated_game(four)  # people rated before: their numbers must stay exactly these
    people_before = people_rows()
    people_changes = RatingChange.objects.count()

    game = bot_table(bots)
    assert game.rated is True  # start_table kept the host's choice: bot accounts only
    finish(game)
    found = rate(game)

    assert set(found) == {b.pk for b in bots}
    expected = library_update(game, bots, {})
    for bot in bots:
        row = Rating.objects.get(user=bot, players=4)
        assert (row.mu, row.sigma, row.games) == (expected[bot.pk].mu, expected[bot.pk].sigma, 1)
    assert people_rows() == people_before
    assert RatingChange.objects.filter(user__is_bot=False).count() == people_changes
    game.refresh_from_db()
    assert game.rating_note == ""


def test_the_second_bot_game_starts_from_the_first_ones_numbers(bots):
    first = bot_table(bots)
    finish(first)
    rate(first)
    after_first = library_update(first, bots, {})

    second = bot_table([bots[1], bots[0], bots[3], bots[2]])
    finish(second)
    rate(second)

    seats = [bots[1], bots[0], bots[3], bots[2]]
    expected = library_update(second, seats, after_first)
    for bot in bots:
        row = Rating.objects.get(user=bot, players=4)
        assert (row.mu, row.sigma, row.games) == (expected[bot.pk].mu, expected[bot.pk].sigma, 2)


def test_a_game_mixing_people_and_bot_accounts_is_dealt_casual(bots, ana, bo):
    confirmed(ana, bo)
    game = lobby.create_table(ana, rated=True)
    lobby.take_seat(game.pk, bo, 1)
    for number, bot in ((2, bots[0]), (3, bots[1])):
        invitation = lobby.invite_bot(game.pk, ana, number, bot.username)
        lobby.accept_invitation(invitation.pk, bot)

    lobby.start_table(game.pk, ana)

    game.refresh_from_db()
    assert game.rated is False
    finish(game)
    assert rate(game) == {}
    assert not Rating.objects.exists()


def test_a_bot_hosted_table_with_a_person_is_casual_too(bots, ana):
    confirmed(ana)
    ana.allow_bot_invitations = True
    ana.save(update_fields=["allow_bot_invitations"])
    game = lobby.create_table(bots[0], rated=True)
    invitation = lobby.invite_bot(game.pk, bots[0], 1, "ana")
    lobby.accept_invitation(invitation.pk, ana)
    for number, bot in ((2, bots[1]), (3, bots[2])):
        lobby.accept_invitation(lobby.invite_bot(game.pk, bots[0], number, bot.username).pk, bot)

    lobby.start_table(game.pk, bots[0])

    game.refresh_from_db()
    assert game.rated is False


def test_a_mixed_game_recorded_rated_still_moves_nothing_and_says_why(bots, ana, bo):
    """Should a mixed table reach the end as rated (a seat changed hands by a path that did
    not clear it), the rule at the end still keeps it off both ladders."""
    confirmed(ana, bo)
    game = bot_table([bots[0], bots[1], bots[2], bots[3]])
    game.seats.filter(number=1).update(user=ana)
    finish(game)

    assert rate(game) == {}
    game.refresh_from_db()
    assert game.rating_note == "a bot account played"
    assert not Rating.objects.exists()


def test_a_site_bot_at_a_table_of_bot_accounts_makes_it_casual(bots):
    game = lobby.create_table(bots[0], rated=True)
    for number, bot in ((1, bots[1]), (2, bots[2])):
        lobby.accept_invitation(lobby.invite_bot(game.pk, bots[0], number, bot.username).pk, bot)
    lobby.add_bot(game.pk, bots[0], 3, "hard")

    lobby.start_table(game.pk, bots[0])

    game.refresh_from_db()
    assert game.rated is False


def test_the_same_bots_may_play_more_than_three_rated_games_a_day(bots, four):
    """Measuring a strategy takes many games among the same programs; the people's
    repeat limit stays as it was."""
    for _ in range(ratings.REPEAT_LIMIT + 1):
        game = bot_table(bots)
        finish(game)
        assert set(rate(game)) == {b.pk for b in bots}
    assert set(Rating.objects.filter(players=4).values_list("games", flat=True)) == {
        ratings.REPEAT_LIMIT + 1
    }

    for _ in range(ratings.REPEAT_LIMIT):
        rated_game(four)
    fourth = rated_game(four)
    assert changes(fourth) == {}
    assert "already played 3 rated games" in Game.objects.get(pk=fourth.pk).rating_note


def test_a_bot_team_that_leaves_before_the_minimum_of_play_moves_no_bots_rating(bots):
    game = bot_table(bots)
    play_cards(game, count=ratings.MIN_PLAYS_PER_SEAT * game.players - 1)
    concede(game, 1)
    finish(game)

    assert rate(game) == {}
    assert Game.objects.get(pk=game.pk).rating_note.startswith("a team left before")


def test_the_rebuild_gives_the_bots_numbers_the_live_update_wrote(bots, four):
    rated_game(four)
    for order in (bots, [bots[2], bots[3], bots[0], bots[1]]):
        game = bot_table(list(order))
        finish(game)
        rate(game)

    assert ratings.rebuild(write=False) == []
    Rating.objects.filter(user=bots[0]).update(mu=40.0)
    assert ratings.rebuild() != []
    assert ratings.rebuild(write=False) == []


def test_each_ladder_has_its_own_board(bots, four, settings):
    settings.RATING_MIN_GAMES = 1
    rated_game(four)
    game = bot_table(bots)
    finish(game)
    rate(game)
    browser = Client()
    browser.force_login(four[0])

    people = browser.get(reverse("history:leaderboard")).content.decode()
    robots = browser.get(reverse("history:bot_leaderboard")).content.decode()

    def listed(page):
        board = page.split('id="leaderboard"')[1].split("</table>")[0]
        return {u.username for u in [*four, *bots] if f"/players/{u.username}/" in board}

    assert listed(people) == {p.username for p in four}
    assert listed(robots) == {b.username for b in bots}
    assert reverse("history:bot_leaderboard") in people  # linked from the people's
    assert "Bots' leaderboard" in robots
    # A person's own rating line is the people's board's only.
    assert 'id="my-rating"' in people and 'id="my-rating"' not in robots
    assert browser.get(reverse("history:bot_leaderboard"), {"players": "junk"}).status_code == 200
