"""Tells the open pages of a game that it changed.

Messages carry only the game and its new event number, never a card: each
receiver renders its own seat's view (issue 5 builds the rich fragments).
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def seat_group(game_id, seat):
    return f"game-{game_id}-seat-{seat}"


def public_group(game_id):
    return f"game-{game_id}-public"


def lobby_group():
    return "lobby"


def game_changed(game_id, players, seq):
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "game.changed", "game": game_id, "seq": seq}
    groups = [seat_group(game_id, s) for s in range(players)] + [public_group(game_id)]
    try:
        # One trip into the event loop for all groups: async_to_sync is not free.
        async_to_sync(_send_all)(layer, groups, message)
    except Exception:
        # The event is committed; a page that missed this resyncs over HTTP.
        log.exception("could not notify game %s of event %s", game_id, seq)


async def _send_all(layer, groups, message):
    for group in groups:
        await layer.group_send(group, message)
