"""push.send and push.deliver from synchronous code on a thread whose event loop is running:
a browser test drives Chromium through Playwright's synchronous API, which runs a loop, and
calls the lobby's functions from that same thread. async_to_sync refuses there, and a seat
change's notice to its sockets was lost (and logged as an error) until the send moved to a
thread of its own."""

import asyncio

from channels.layers import InMemoryChannelLayer, get_channel_layer

from games import push


def test_a_send_from_a_thread_running_an_event_loop_reaches_its_group(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    async def scenario():
        layer = get_channel_layer()
        assert isinstance(layer, InMemoryChannelLayer)
        channel = await layer.new_channel()
        await layer.group_add("game-1-seat-2", channel)
        # Synchronous code, called straight from inside the running loop:
        assert push.send("game-1-seat-2", {"type": "access.changed"}) is True
        push.deliver(layer, [("game-1-seat-2", {"type": "game.fragments", "seq": 3})])
        first = await asyncio.wait_for(layer.receive(channel), timeout=2)
        second = await asyncio.wait_for(layer.receive(channel), timeout=2)
        return first, second

    first, second = asyncio.run(scenario())
    assert first == {"type": "access.changed"}
    assert second["seq"] == 3
