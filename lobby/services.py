"""Seat changes of an open table. Each locks the game row, so two people
racing for one seat are served one after the other: the second finds it taken.
"""

from django.db import transaction

from games.actions import decisions
from games.models import Game, Seat


class LobbyError(Exception):
    """A refused lobby action; the message is fit to show, `status` the HTTP answer."""

    def __init__(self, message, status=409):
        super().__init__(message)
        self.status = status


def create_table(host, **options):
    with transaction.atomic():
        game = Game.objects.create(host=host, **options)
        Seat.objects.bulk_create(
            [Seat(game=game, number=n, user=host if n == 0 else None) for n in range(game.players)]
        )
    return game


def _lock_open_table(game_id):
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status != Game.Status.OPEN:
        raise LobbyError("This table has already started.")
    return game


def _require_host(game, user):
    if game.host_id != user.pk:
        raise LobbyError("Only the host can do that.", status=403)


def _seat(game, number):
    try:
        return game.seats.get(number=number)
    except Seat.DoesNotExist:
        raise LobbyError("There is no such seat at this table.", status=404) from None


def take_seat(game_id, user, number):
    """Seats `user` at `number`; a user already seated moves (change seat)."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        current = game.seats.filter(user=user).first()
        if current is None and not game.seats.filter(user__isnull=True, bot_level="").exists():
            raise LobbyError("This table is full.")
        seat = _seat(game, number)
        if current is not None and current.pk == seat.pk:
            return seat
        if not seat.is_empty:
            raise LobbyError("That seat is taken.")
        if current is not None:
            current.user = None
            current.save(update_fields=["user"])
        seat.user = user
        seat.save(update_fields=["user"])
        return seat


def leave_table(game_id, user):
    """Leaves before the start. When the host leaves, the table is closed."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        if game.host_id == user.pk:
            game.seats.update(user=None, bot_level="")
            game.status = Game.Status.ABORTED
            game.save(update_fields=["status"])
            return
        if not game.seats.filter(user=user).update(user=None):
            raise LobbyError("You are not seated at this table.")


def add_bot(game_id, user, number, level):
    if level not in Seat.BotLevel.values:
        raise LobbyError("Pick a bot level: Easy, Normal or Hard.", status=400)
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, user)
        seat = _seat(game, number)
        if not seat.is_empty:
            raise LobbyError("That seat is taken.")
        seat.bot_level = level
        seat.save(update_fields=["bot_level"])
        return seat


def remove_from_seat(game_id, user, number):
    """The host empties a seat taken by a player or a bot (not the host's own)."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, user)
        seat = _seat(game, number)
        if seat.user_id == user.pk:
            raise LobbyError("You cannot remove yourself; leave the table instead.")
        if seat.is_empty:
            raise LobbyError("That seat is already empty.")
        seat.user = None
        seat.bot_level = ""
        seat.save(update_fields=["user", "bot_level"])


def start_table(game_id, user):
    game = Game.objects.get(pk=game_id)
    _require_host(game, user)
    try:
        with transaction.atomic():
            # A table dealt with a bot seat is recorded casual, whatever the host chose
            # (docs/ratings.md); rolled back with the start if the start is refused.
            if Seat.objects.filter(game_id=game_id).exclude(bot_level="").exists():
                Game.objects.filter(pk=game_id, status=Game.Status.OPEN).update(rated=False)
            return decisions.start_game(game_id)
    except decisions.DecisionRefused as exc:
        raise LobbyError(str(exc)) from exc


def quick_game(user, level=Seat.BotLevel.NORMAL):
    """A real-time game for `user` and three bots of `level`, dealt at once: the home page's
    one-click game. Partners: the bot across the table."""
    game = create_table(user, players=4, pace=Game.Pace.REALTIME, move_seconds=30)
    for number in range(1, game.players):
        add_bot(game.pk, user, number, level)
    start_table(game.pk, user)
    return game
