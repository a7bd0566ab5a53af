"""The site's Prometheus metrics, counted where their events happen (docs/deploy.md,
"Health and metrics"); /metrics serves them (config.health).

The lowest layer of the games app beside the engine: it imports nothing of the site, so
that any layer may count what it does. The engine and the bots stay pure: a bot is timed
where games.tasks.play_bot calls it.

Several processes (Daphnes, Celery workers and their pool processes) each count their
own. With PROMETHEUS_MULTIPROC_DIR set, prometheus-client keeps each process's values in
files of that directory and /metrics adds them up, whichever process serves it; without it
(the embedded site, which is one process, and the tests) the values are this process's
own. The variable must be in the environment before prometheus_client is first imported:
it chooses where values are kept then.
"""

import os
from typing import Any

from asgiref.typing import (
    ASGI3Application,
    ASGIReceiveCallable,
    ASGISendCallable,
    ASGISendEvent,
    Scope,
)
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics, multiprocess

# A `_created` sample beside every counter and histogram says when this process made it;
# the multiprocess files do not keep it, and the two modes should read alike.
disable_created_metrics()

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROCESS_DIR:
    os.makedirs(MULTIPROCESS_DIR, exist_ok=True)
    # A dead process's count of open sockets is kept in a file named by its process id: a
    # new process given the same id would start from that count.
    multiprocess.mark_process_dead(os.getpid(), MULTIPROCESS_DIR)

# Seconds: from a millisecond (a decision's transaction) to seconds (a hard bot's search).
TIME_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Bytes of one event's push, every seat's message together.
SIZE_BUCKETS = (1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000)

decisions_applied = Counter(
    "wct_decisions_applied",
    "Decisions the door wrote (apply_decision), by who made them.",
    ["actor"],
)
decisions_refused = Counter(
    "wct_decisions_refused",
    "Decisions the door refused, by reason; nothing was written.",
    ["reason"],
)
decision_seconds = Histogram(
    "wct_decision_seconds",
    "Time of an applied decision's call to apply_decision: its transaction, then its push "
    "and task sends after the commit.",
    ["actor"],
    buckets=TIME_BUCKETS,
)
push_seconds = Histogram(
    "wct_push_seconds",
    "Time of one event's push after its commit: every listening seat's rendering and the sends.",
    buckets=TIME_BUCKETS,
)
push_bytes = Histogram(
    "wct_push_bytes",
    "Size of one event's push: the HTML of every seat's message.",
    buckets=SIZE_BUCKETS,
)
# livesum: the open sockets of the processes alive now (a dead one's are gone with it).
sockets_open = Gauge(
    "wct_sockets_open",
    "Open websockets, by kind: table, site, bot_stream.",
    ["kind"],
    multiprocess_mode="livesum",
)
task_seconds = Histogram(
    "wct_celery_task_seconds",
    "Time of a Celery task run by a worker, by task and state.",
    ["task", "state"],
    buckets=TIME_BUCKETS,
)
bot_decision_seconds = Histogram(
    "wct_bot_decision_seconds",
    "Time a site bot takes to choose its move, by level.",
    ["level"],
    buckets=TIME_BUCKETS,
)
emails = Counter(
    "wct_emails",
    "Game emails of the outbox by kind (turn, digest, reminder) and result: sent (the SMTP "
    "server took it) or failed (it refused it or could not be reached; retried later).",
    ["kind", "result"],
)


# actor -> its counter and histogram: labels() costs a lock and a look-up
_decision_children: dict[str, tuple[Counter, Histogram]] = {}


def decision_applied(actor: str, seconds: float) -> None:
    """Counts one applied decision of `actor` that took `seconds` (games.actions.decisions):
    a few microseconds on every move, so the labelled children are looked up once."""
    children = _decision_children.get(actor)
    if children is None:
        children = _decision_children[actor] = (
            decisions_applied.labels(actor),
            decision_seconds.labels(actor),
        )
    children[0].inc()
    children[1].observe(seconds)


def counted_sockets(kind: str, app: ASGI3Application) -> Any:
    """`app` (the ASGI application of one kind of socket) with its sockets counted in
    wct_sockets_open{kind} from their acceptance until the application returns, however its
    consumer ends (a close, the client leaving, an error).

    An ASGI3Application, returned as Any: Channels routes it with django.urls.path, whose
    stubs take only a view (games.routing)."""
    gauge = sockets_open.labels(kind)

    async def counted(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        accepted = False

        async def sending(message: ASGISendEvent) -> None:
            nonlocal accepted
            await send(message)
            if message["type"] == "websocket.accept" and not accepted:
                accepted = True
                gauge.inc()

        try:
            await app(scope, receive, sending)
        finally:
            if accepted:
                gauge.dec()

    return counted
