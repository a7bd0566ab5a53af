"""Finished and running games for the history, replay and moderation tests."""

from games.models import Game, GameEvent
from tests.conftest import make_started_game, play_one


def finish(game, limit=5000):
    """Plays the table's plain moves until the game is over."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        play_one(game)
    raise AssertionError("the game did not end")


def make_finished_game(users, **options):
    return finish(make_started_game(users, **options))


def rows(game):
    return list(GameEvent.objects.filter(game=game).order_by("seq"))
