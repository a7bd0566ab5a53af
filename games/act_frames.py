"""What the table socket (games.consumers) and the Bot API's stream (games.bot_stream) share:
an `act` frame, `{"type": "act", "action": ..., "key": ...}`, taken through the seat door
(games.actions.seat_door) and answered."""

from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.db import connection

from games.actions import decisions, seat_door
from games.actions.access import Reader


class Socket(Protocol):
    """A table socket or a bot stream, as far as an act frame needs it."""

    async def send_json(self, content: Any, close: bool = False) -> None: ...

    async def check_access(self) -> bool: ...


def _decide(reader: Reader, content: dict[str, Any]) -> decisions.DecisionResult:
    """Runs in a thread of its own (thread_sensitive=False in `act`), which then goes back to
    the executor: its connection goes back to the pool here, whatever wraps the call.
    channels closes it after the call too, except under its own test communicator, which
    turns that off; a socket test then kept one pooled connection per move thread until
    the pool (DATABASE_POOL_SIZE) ran dry and moves waited 20 s for a connection."""
    try:
        return seat_door.decide_frame(reader, content)
    finally:
        connection.close()


async def act(
    socket: Socket, reader: Reader, content: dict[str, Any]
) -> decisions.DecisionRefused | None:
    """An `act` frame of a table socket or a bot stream, through the seat door: answered
    `ok` with the event's seq and whether the key had been used already (`replayed`, as
    the HTTP answer says), or an error frame with the reason; a refusal that says the
    seat is no longer the reader's makes the socket check its access (and close).

    Not thread-sensitive: each move takes a thread (and a pooled connection) of its own,
    so one process applies several at once instead of queueing every socket's moves behind
    one thread (docs/load.md). The door's write is one transaction."""
    try:
        result = await database_sync_to_async(_decide, thread_sensitive=False)(reader, content)
    except decisions.DecisionRefused as exc:
        await socket.send_json(seat_door.error_frame(str(exc), content.get("key")))
        if seat_door.refusal(exc).recheck:
            await socket.check_access()
        return exc
    await socket.send_json(
        {"type": "ok", "seq": result.event.seq, "key": content["key"], "replayed": result.replayed}
    )
    return None
