"""Rated games for the rating tests, and the library's own numbers to compare with."""

import uuid

from django.db import transaction
from openskill.models import PlackettLuce

from games import store
from games.actions import decisions, ratings
from games.models import Game, RatingChange
from tests.conftest import make_started_game
from tests.history.helpers import finish

LIBRARY = PlackettLuce()  # a model of our own: the numbers must be the library's


def rate(game):
    """The game's rating update, as decisions._record makes it (under the game's lock, in a
    transaction); a no-op when the hook already did it."""
    with transaction.atomic():
        locked = Game.objects.select_for_update(of=("self",)).select_related("snapshot").get(
            pk=game.pk)
        ratings.game_finished(locked, store.load_state(locked))
    return changes(game)


def changes(game):
    return {c.user_id: c for c in RatingChange.objects.filter(game=game)}


def rated_game(users, **options):
    """A finished rated game of `users` (seat i = users[i]), rated."""
    game = finish(make_started_game(users, rated=True, **options))
    rate(game)
    return game


def concede(game, seat):
    decisions.apply_decision(game.pk, seat, {"type": "concede"}, "person",
                             idempotency_key=uuid.uuid4().hex)
    game.refresh_from_db()
    return game


def ranking(game):
    """{team: rank} of the finished game, from the engine's final public view."""
    game.refresh_from_db()
    over = store.load_state(game).view(None)["game_over"]
    return dict((team, rank) for team, rank in over["ranking"])


def library_update(game, users, current):
    """What openskill says `game` does to `current` {user id: PlackettLuceRating}: the teams
    of the table (seat % teams), ranked by the engine's ranking."""
    half = game.players // 2
    ranks = ranking(game)
    teams = [[users[s] for s in range(game.players) if s % half == t] for t in range(half)]
    before = [[current.get(u.pk) or LIBRARY.rating() for u in team] for team in teams]
    after = LIBRARY.rate(before, ranks=[ranks[t] for t in range(half)])
    out = dict(current)
    for team, new in zip(teams, after):
        for u, r in zip(team, new):
            out[u.pk] = r
    return out
