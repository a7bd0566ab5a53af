"""Rated games for the rating tests, and the library's own numbers to compare with."""

import uuid

from django.db import transaction
from openskill.models import PlackettLuce

from accounts.models import User
from games import store
from games.actions import decisions, ratings
from games.models import Game, GameEvent, RatingChange
from tests.conftest import make_started_game, play_one
from tests.games.history.helpers import finish

LIBRARY = PlackettLuce()  # a model of our own: the numbers must be the library's


def confirmed(*users):
    """`users` with their email addresses confirmed, as a rated table asks of every person."""
    User.objects.filter(pk__in=[u.pk for u in users]).update(email_confirmed=True)
    for user in users:
        user.email_confirmed = True
    return list(users)


def rate(game):
    """The game's rating update, as decisions._record makes it (under the game's lock, in a
    transaction); a no-op when the hook already did it."""
    with transaction.atomic():
        locked = (
            Game.objects.select_for_update(of=("self",)).select_related("snapshot").get(pk=game.pk)
        )
        ratings.game_finished(locked, store.load_state(locked))
    return changes(game)


def changes(game):
    return {c.user_id: c for c in RatingChange.objects.filter(game=game)}


def rated_table(users, **options):
    """A started rated game of `users` (seat i = users[i]), their addresses confirmed."""
    return make_started_game(confirmed(*users), rated=True, **options)


def rated_game(users, **options):
    """A finished rated game of `users` (seat i = users[i]), rated."""
    game = finish(rated_table(users, **options))
    rate(game)
    return game


def play_cards(game, count=None):
    """Plays the table's plain moves until `count` cards have been played (by default the
    least that lets a later concession count: ratings.MIN_PLAYS_PER_SEAT a seat)."""
    count = ratings.MIN_PLAYS_PER_SEAT * game.players if count is None else count
    while GameEvent.objects.filter(game=game, kind="play").count() < count:
        play_one(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def concede(game, seat):
    decisions.apply_decision(
        game.pk, seat, {"type": "concede"}, "person", idempotency_key=uuid.uuid4().hex
    )
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
    for team, new in zip(teams, after, strict=True):
        for u, r in zip(team, new, strict=True):
            out[u.pk] = r
    return out
