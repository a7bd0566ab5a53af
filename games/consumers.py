from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games import notify
from games.models import Game


def group_for(user, game_id):
    """The one group this socket may join: the user's own seat, or the public one."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    if user.is_authenticated:
        number = game.seats.filter(user=user).values_list("number", flat=True).first()
        if number is not None:
            return notify.seat_group(game_id, number)
    if game.spectators and not game.private:
        return notify.public_group(game_id)
    return None


class GameConsumer(AsyncJsonWebsocketConsumer):
    """Tells an open game page that its game changed.

    It sends only the new event number: the page fetches its own seat's view
    over HTTP, so nothing secret travels on the socket (issue 5 replaces this
    with per-seat fragments).
    """

    group = None

    async def connect(self):
        game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.group = await database_sync_to_async(group_for)(self.scope["user"], game_id)
        if self.group is None:
            await self.close(code=4403)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def game_changed(self, message):
        await self.send_json({"type": "changed", "seq": message["seq"]})
