"""Pushes each open page of a game its own seat's new fragments after a commit.

`game_changed` runs after the transaction that recorded an event commits
(`transaction.on_commit`). It renders the table once per seat played by a
person (and once for spectators when the table allows them) from that seat's
`view()` and `events_for()` alone, and sends each rendering only to that
seat's group. A bot's seat gets nothing: nobody can listen there.
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def seat_group(game_id, seat):
    return f"game-{game_id}-seat-{seat}"


def public_group(game_id):
    return f"game-{game_id}-public"


def user_group(user_id):
    """Every socket of one user, so that logging out can close them all."""
    return f"user-{user_id}"


def lobby_group():
    return "lobby"


def seat_pushes(game_id):
    """[(group, message)] for the game's current state: one rendering per listening seat.

    The message's `seq` is the last event the rendering includes, so a page
    that sees a number it did not expect resyncs over HTTP.
    """
    from games import services, views
    from games.models import Game, GameEvent

    game = Game.objects.select_related("snapshot").get(pk=game_id)
    state = services.load_state(game)
    seats = list(game.seats.select_related("user"))
    rows = list(GameEvent.objects.filter(game_id=game_id).order_by("-seq")[: views.LOG_LENGTH])[::-1]
    listeners = [(seat_group(game_id, s.number), s.number) for s in seats if s.user_id]
    if game.spectators and not game.private:
        listeners.append((public_group(game_id), None))
    pushes = []
    for group, seat in listeners:
        context = views.table_context(game, seat, state=state, rows=rows, seats=seats)
        html = views.render_fragments(context)
        pushes.append((group, {"type": "game.fragments", "seq": game.last_seq, "html": html}))
    return pushes


def game_changed(game_id, players, seq):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        pushes = seat_pushes(game_id)
        # One trip into the event loop for all groups: async_to_sync is not free.
        async_to_sync(_send_all)(layer, pushes)
    except Exception:
        # The event is committed; a page that missed this resyncs over HTTP.
        log.exception("could not notify game %s of event %s", game_id, seq)


def session_ended(sender, request, user, **kwargs):
    """Receiver of `user_logged_out`: an open socket keeps its user otherwise (channels#1324)."""
    layer = get_channel_layer()
    if layer is None or user is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user.pk), {"type": "session.ended"})
    except Exception:
        log.exception("could not close the sockets of user %s", user.pk)


async def _send_all(layer, pushes):
    for group, message in pushes:
        await layer.group_send(group, message)
