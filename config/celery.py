import logging
import os
import time

from celery import Celery, signals
from celery.beat import PersistentScheduler
from django import db
from django.conf import settings
from prometheus_client import multiprocess

from config import heartbeat, logs
from games import metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("wildcards")
app.config_from_object("django.conf:settings", namespace="CELERY")

# Nothing is lost when a worker dies mid-task (docs/deploy.md, "Faults"). With acks_late
# (settings: CELERY_TASK_ACKS_LATE) a task is acknowledged only once it has run, so:
# - a pool process killed mid-task (OOM killer, SIGKILL): its task goes back to the queue
#   at once and runs again (without this setting Celery acknowledges it as failed: lost);
# - the whole worker killed: the unacknowledged message stays in Redis and is handed out
#   again once `visibility_timeout` has passed (and beat's sweeps find the work first:
#   stalled bots after BOT_STALL_SECONDS, due clocks and due emails within a second).
# Every task is safe to run twice (idempotency keys, expected_seq, the outbox claim).
# The visibility timeout must stay above the longest countdown (fire_clock: 45 s at most),
# or a waiting countdown would be handed out twice (harmless, but useless work).
app.conf.update(
    task_reject_on_worker_lost=True,
    broker_transport_options={
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT") or 600),
        # Look for abandoned messages every 10 s (kombu's default scans every 100 s).
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
        # A worker's queues are asked in the order it consumes them (settings:
        # CELERY_TASK_QUEUES, the site's queue first), not in turns: a review's slice is
        # taken only when no bot move or clock waits (kombu's default, "round_robin", would
        # take the reviews' queue first after every task of the site's).
        "queue_order_strategy": "priority",
    },
)
app.autodiscover_tasks()


# --- Database connections: a worker's pool lives across tasks ------------------------------
# With CELERY_DB_REUSE_MAX (settings.WORKER_DB_REUSE_MAX) Celery's fixup leaves the
# connections open between tasks; as a request does in Django, each task then starts and
# ends by closing whatever
# connection an error left unusable and handing the rest back to the process's pool
# (CONN_MAX_AGE 0: every connection is "obsolete" at the end), where the next task takes it
# without a new PostgreSQL session. An eager task runs inside its caller's request or
# transaction, whose connection is not the task's to close.
#
# A pooled connection may then sit idle for minutes between tasks, and the server may end it
# meanwhile (a restart, an administrator, a proxy's time-out): the pool checks a connection as
# it hands it out (CONN_HEALTH_CHECKS, one round trip) and opens another in its place, so
# that no task fails on a dead one. Every process does so by default (settings:
# DATABASE_HEALTH_CHECKS); a worker always, even where that is turned off. Set at the
# worker's start, before any pool is made.
#
# Only a `celery worker` process gets this (celeryd_init is its start): a worker run inside
# another process (the tests' in-process workers) keeps Celery's own closing.
@signals.celeryd_init.connect(weak=False)
def keep_pooled_connections(**kwargs):
    if not settings.WORKER_DB_REUSE_MAX:
        return
    # The fixup read its setting when the worker's loader started, just before this signal:
    # it is told here (Celery keeps its fixups in `_fixups`; the Django one has the worker's).
    for fixup in getattr(app, "_fixups", ()):
        if hasattr(fixup, "worker_fixup"):
            fixup.worker_fixup.db_reuse_max = settings.WORKER_DB_REUSE_MAX
    for database in settings.DATABASES.values():
        database["CONN_HEALTH_CHECKS"] = True


@signals.task_prerun.connect(weak=False)
@signals.task_postrun.connect(weak=False)
def return_connections(task=None, **kwargs):
    if task is not None and getattr(task.request, "is_eager", False):
        return
    for conn in db.connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()


# The worker and beat log as every other process does (settings.LOGGING: LOG_FORMAT,
# LOG_LEVEL, Celery's lines about routine tasks at DEBUG), not through Celery's own
# handlers; what a task prints (the console email backend's emails) stays on stdout as it
# is, rather than becoming one WARNING line per line printed.
signals.celeryd_init.connect(logs.configure, weak=False)
signals.setup_logging.connect(logs.configure, weak=False)
app.conf.worker_redirect_stdouts = False


# --- Health and metrics (config/health.py, docs/deploy.md) ---------------------------------
log = logging.getLogger(__name__)


@app.task(name="config.celery.heartbeat", ignore_result=True)
def heartbeat_task():
    """Sent by beat every HEARTBEAT_SECONDS (settings: CELERY_BEAT_SCHEDULE); the worker that
    runs it records that a worker takes tasks off the queue."""
    heartbeat.record("worker")


class BeatScheduler(PersistentScheduler):
    """Celery's own scheduler (the schedule file), which also records beat's heartbeat as
    it ticks, at most once every HEARTBEAT_SECONDS. `celery beat` uses it through
    `beat_scheduler` below; the embedded site's beat is given it (runsite)."""

    recorded = 0.0
    failing = False

    def tick(self, *args, **kwargs):
        now = time.time()
        if now - self.recorded >= settings.HEARTBEAT_SECONDS:
            try:
                heartbeat.record("beat", now)
            except Exception as exc:  # the cache's Redis is away: beat goes on with its work
                if not self.failing:
                    log.warning("beat could not record its heartbeat: %s", exc)
                self.failing = True
            else:
                self.recorded, self.failing = now, False
        return super().tick(*args, **kwargs)


app.conf.beat_scheduler = "config.celery:BeatScheduler"

_started = {}  # task id -> perf_counter() when this process began to run it


@signals.task_prerun.connect
def _task_started(task_id=None, **kwargs):
    _started[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_ended(task_id=None, task=None, state=None, **kwargs):
    started = _started.pop(task_id, None)
    if started is not None and task is not None:
        metrics.task_seconds.labels(task.name, state or "unknown").observe(
            time.perf_counter() - started
        )


@signals.worker_process_init.connect
def _pool_process_started(**kwargs):
    """A prefork pool process counts under its own process id (games.metrics): forget what
    a dead process of the same id left."""
    if metrics.MULTIPROCESS_DIR:
        multiprocess.mark_process_dead(os.getpid(), metrics.MULTIPROCESS_DIR)
