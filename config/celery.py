import os

from celery import Celery

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
    },
)
app.autodiscover_tasks()
