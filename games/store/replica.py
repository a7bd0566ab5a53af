"""History pages read the games from a read replica when one is configured.

`DATABASE_REPLICA_URL` (README, docs/deploy.md) adds the database alias "replica": a
PostgreSQL standby kept by streaming replication, which the site never writes. Only the
views wrapped in `reads_from_replica` (history lists, profile statistics, replays, exports)
send their reads of the `games` app's tables there; everything else, and every write, uses
"default". Accounts and sessions always come from "default", so a player who has just
signed up or logged in is never unknown to a history page.

A standby may lag the primary by a moment. The pages routed here can bear that: a game
just finished may show in a history list a second later, and a replay of a game in play may
end a move or two early. Nothing routed here decides what a reader may see on data newer
than the standby's: a replay's perspective and "finished" come from the same (older) rows
as its frames, and a game only ever goes from in play to finished, so a lagging standby can
only show less, never more.
"""

import contextvars
import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db.models import Model

REPLICA = "replica"
_reading_history = contextvars.ContextVar("reading_history", default=False)

P = ParamSpec("P")
R = TypeVar("R")


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def reads_from_replica(view: Callable[P, R]) -> Callable[P, R]:
    """Wraps a view whose reads of games may come from the replica (when there is one)."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        token = _reading_history.set(True)
        try:
            return view(*args, **kwargs)
        finally:
            _reading_history.reset(token)

    return wrapper


class HistoryReplicaRouter:
    """settings.DATABASE_ROUTERS: games' reads inside `reads_from_replica` go to the replica."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str | None:
        if _reading_history.get() and model._meta.app_label == "games" and replica_configured():
            return REPLICA
        return None

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        # Never the replica, even for an instance that was read from it.
        return "default"

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool:
        # The replica holds the same rows as the primary: a game read there may point at
        # a user read from "default".
        return {obj1._state.db, obj2._state.db} <= {"default", REPLICA}

    def allow_migrate(
        self, db: str, app_label: str, model_name: str | None = None, **hints: Any
    ) -> bool:
        # The standby gets its schema by replication.
        return db != REPLICA
