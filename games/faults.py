"""Fault points: the places where the fault tests (tests/faults/) make a process fail on purpose.

Inert unless the environment variable `WCT_FAULT` is set when the process starts (a real
deployment never sets it): `point()` is then one comparison with None. The tests start
their Celery workers and Daphne processes with

    WCT_FAULT=<point>[:<detail>]      e.g. decision.written:bot, email.sent:reminder
    WCT_FAULT_ACTION=kill | disconnect
    WCT_FAULT_ARM=<path of a file the test created>

and the first process that reaches the point while the file exists removes it (so the fault
fires once across every process and restart), writes `<path>.fired` (pid and detail) and then

- `kill`: SIGKILLs itself: a worker dying mid-task, with no cleanup, no rollback sent and no
  acknowledgement to the broker (PostgreSQL rolls back the open transaction itself);
- `disconnect`: has PostgreSQL end this process's database connection
  (`pg_terminate_backend(pg_backend_pid())`): the real error of a lost connection, raised in
  the middle of whatever transaction is open.

The points (docs/deploy.md, "Faults"):

| point | where | detail |
|---|---|---|
| `decision.written` | services.apply_decision: the event, snapshot and columns are written, not yet committed | the actor (bot, timeout, person...) |
| `decision.committed` | services.apply_decision: committed and after-commit work done, not yet returned (a task not yet acknowledged) | the actor |
| `email.claimed` | emails.deliver_outbox: the row is claimed (committed), the email not yet sent | the kind (turn, reminder) |
| `email.sent` | emails.deliver_outbox: the SMTP server took the email, the row not yet marked | the kind |
"""

import os
import signal

from django.db import connection

_FAULT = os.environ.get("WCT_FAULT") or None


def point(name, detail=None):
    """A fault point: does nothing unless this process was started with WCT_FAULT = name."""
    if _FAULT is None:
        return
    if _FAULT != name and _FAULT != f"{name}:{detail}":
        return
    _fire(name, detail)


def _fire(name, detail):
    arm = os.environ.get("WCT_FAULT_ARM")
    if not arm:
        return
    try:
        os.unlink(arm)  # atomic: one process of all that share the file wins
    except FileNotFoundError:
        return
    with open(arm + ".fired", "w") as note:
        note.write(f"{os.getpid()} {name} {detail}\n")
    action = os.environ.get("WCT_FAULT_ACTION", "kill")
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "disconnect":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    else:
        raise RuntimeError(f"unknown WCT_FAULT_ACTION {action!r}")
