"""Joining and leaving groups when the layer's Redis cannot be reached (a port nothing
listens on: refused at once, as a stopped Redis is): a socket opening then is told so and
closed by its consumer, one closing then does not fail; neither raises into Daphne."""

import logging
import socket

from asgiref.sync import async_to_sync

from config.channel_layer import ChannelLayer
from games import push


def _unreachable_layer():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    return ChannelLayer(hosts=[f"redis://127.0.0.1:{port}"])


def test_joining_without_redis_answers_false_with_a_warning(caplog):
    layer = _unreachable_layer()
    with caplog.at_level(logging.WARNING, logger="games.push"):
        joined = async_to_sync(push.join)(layer, "specific.x!y", ["game-1-seat-0"], "socket z")
    assert joined is False
    assert "socket z closed as it opened: the channel layer is out of reach" in caplog.text


def test_leaving_without_redis_does_not_raise(caplog):
    layer = _unreachable_layer()
    with caplog.at_level(logging.INFO, logger="games.push"):
        async_to_sync(push.leave)(layer, "specific.x!y", ["game-1-seat-0", "user-1"])
    assert "left its groups to expire" in caplog.text
