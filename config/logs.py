"""How the site's logs read (docs/deploy.md, "Logs").

One line per event that matters, each naming the game or the user it concerns (in words in
the message, and as `extra=` fields: `game`, `user`, `seat`). Two formats, chosen by
LOG_FORMAT: `text` (a time, the level, the logger, the message) and `json` (one JSON object
a line, for a log collector), set in settings.LOGGING, which every process reads: Daphne and
runsite through Django, the Celery worker and beat through `configure` (config/celery.py).

Celery's own lines about the site's routine tasks (beat's "Sending due task" for the
sweeps, the worker's "received" and "succeeded" for every task the site sends) are
lowered to DEBUG: a sweep runs every second and a bot moves every second or two, and what
a task changes is logged by the action that changes it. A task that fails or is retried
still says so at its own level.
"""

import json
import logging
from datetime import UTC, datetime
from logging.config import dictConfig

from celery.app.trace import LOG_RECEIVED, LOG_SUCCESS

# The site's tasks (games/tasks.py), whose "received" and "succeeded" lines say nothing an
# operator needs: the beat's sweeps (sweep_clocks, also the outbox's; wake_stalled_bots),
# the real-time countdown (fire_clock), the emails after a move (deliver_emails), the
# bots' moves (play_bot), the hourly pruning of the bot accounts' events
# (prune_account_events), Find a game's sweep (lobby.tasks.sweep_searches, every 2 s), the
# reviews' slices (one every couple of seconds while a review runs), their sweep and the
# rated games' reviews queued at their end, and the worker's heartbeat for /readyz. Each
# logs what it changed.
ROUTINE_TASKS = frozenset(
    {
        "config.celery.heartbeat",
        "games.tasks.sweep_clocks",
        "games.tasks.wake_stalled_bots",
        "games.tasks.fire_clock",
        "games.tasks.deliver_emails",
        "games.tasks.play_bot",
        "games.tasks.prune_account_events",
        "lobby.tasks.sweep_searches",
        "games.tasks.review_slice",
        "games.tasks.review_sweep",
        "games.tasks.review_rated_game",
    }
)

# What Celery says at INFO about each task it sends (celery/beat.py: this string), receives
# and runs (celery/worker/strategy.py and celery/app/trace.py: these two); failures and
# retries are other messages.
_BEAT_SENDS = "Scheduler: Sending due task %s (%s)"
_TASK_LINES = (LOG_RECEIVED, LOG_SUCCESS)

# What every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class RoutineTasksToDebug(logging.Filter):
    """Set on Celery's loggers (celery.beat, celery.worker.strategy, celery.app.trace):
    their INFO lines about ROUTINE_TASKS become DEBUG lines, which the handler drops unless
    LOG_LEVEL is DEBUG."""

    def filter(self, record):
        if record.levelno == logging.INFO and self._task(record) in ROUTINE_TASKS:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True

    @staticmethod
    def _task(record):
        if record.msg == _BEAT_SENDS and len(record.args) == 2:
            return record.args[1]
        if record.msg in _TASK_LINES and isinstance(record.args, dict):
            return record.args.get("name")
        return None


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the fields
    given with `extra=` (game, user, seat...) and, for an error, its traceback."""

    def format(self, record):
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update((k, v) for k, v in vars(record).items() if k not in _STANDARD)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # One line whatever the message holds: json.dumps escapes every newline.
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(**_):
    """Celery's `celeryd_init` and `setup_logging` signals: the worker and beat log as
    settings.LOGGING says (its format, its level, its filters) rather than through Celery's
    own handlers, from before their first warning (as root, the worker's first words are a
    SecurityWarning); warnings are log lines, as under Django."""
    from django.conf import settings

    dictConfig(settings.LOGGING)
    logging.captureWarnings(True)
