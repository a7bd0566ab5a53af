"""The load tool's floor (bench/load.py --echo): a bare echo through the game's own stack.

A message sent on `/ws/echo/<room>/` goes back to every socket of that room by a
channel-layer group send, through the same Daphne processes, session check and
Redis layer as the game socket, with no database, engine or rendering: whatever
a game move costs above this is ours. Routed only by bench/asgi.py, the application
the load tool's Daphne processes serve: a room is open to any logged-in user, which
the real site (config.asgi) has no use for.
"""

from channels.generic.websocket import AsyncJsonWebsocketConsumer

MAX_PAD = 64 * 1024


def room_group(room):
    return f"echo-{room}"


class EchoConsumer(AsyncJsonWebsocketConsumer):
    group = None

    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4403)
            return
        self.group = room_group(self.scope["url_route"]["kwargs"]["room"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if not isinstance(content, dict) or not isinstance(content.get("pad", ""), str):
            return
        pad = content.get("pad", "")[:MAX_PAD]
        await self.channel_layer.group_send(
            self.group, {"type": "echo.message", "id": content.get("id"), "pad": pad}
        )

    async def echo_message(self, message):
        await self.send_json({"type": "echo", "id": message["id"], "pad": message["pad"]})
