"""Fault points: the site's own functions, wrapped so that a test's process fails at an
exact place, every time. Nothing of this is in the site: `tests.faults.run` installs the
wrappers in the worker or Daphne a test starts with a fault, before the program runs.

- `decision.written` (wraps games.store.append): once a decision's event, snapshot and
  columns are written, before the commit; detail: the actor (bot, timeout, person...).
- `decision.committed` (wraps decisions.apply_decision): once the decision is committed and
  its after-commit work done, before it returns (a task not yet acknowledged); not for a
  replayed key; detail: the actor.
- `email.claimed` (wraps outbox.claim): once a player's due outbox rows are claimed
  (committed), before any email is sent; detail: the kind of the first email claimed (turn,
  digest, reminder).
- `email.sent` (wraps outbox.send_claimed): once the SMTP server took the email, before its
  rows are marked; detail: the kind.

A fault is `<point>` or `<point>:<detail>`, and fires once: the first process (of all that
share the arm file, across restarts) that reaches it while the file exists removes the
file, writes `<file>.fired` (pid, point and detail) and then

- `kill`: SIGKILLs itself: a worker dying mid-task, with no cleanup, no rollback sent and no
  acknowledgement to the broker (PostgreSQL rolls back the open transaction itself);
- `disconnect`: has PostgreSQL end its database connection
  (`pg_terminate_backend(pg_backend_pid())`): the real error of a lost connection, raised
  in the middle of whatever transaction is open.
"""

import functools
import inspect
import os
import signal

from django.db import connection

from games import store
from games.actions import decisions, outbox

ACTIONS = ("kill", "disconnect")


class Fault:
    def __init__(self, spec, action, arm):
        if action not in ACTIONS:
            raise ValueError(f"unknown fault action {action!r}")
        self.spec, self.action, self.arm = spec, action, arm

    def reached(self, point, detail):
        if self.spec in (point, f"{point}:{detail}"):
            self._fire(point, detail)

    def _fire(self, point, detail):
        try:
            os.unlink(self.arm)  # atomic: one process of all that share the file wins
        except FileNotFoundError:
            return
        with open(f"{self.arm}.fired", "w") as note:
            note.write(f"{os.getpid()} {point} {detail}\n")
        if self.action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")


def _after(module, name, fault, point, detail_of):
    """Replaces `module.name` by a function that calls it, then reaches `point` with the
    detail `detail_of(result, arguments)` gives (None: the point is not reached)."""
    original = getattr(module, name)
    signature = inspect.signature(original)

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        result = original(*args, **kwargs)
        detail = detail_of(result, signature.bind(*args, **kwargs).arguments)
        if detail is not None:
            fault.reached(point, detail)
        return result

    setattr(module, name, wrapped)


def install(spec, action, arm):
    """Arms the fault `spec` ("<point>" or "<point>:<detail>") in this process."""
    fault = Fault(spec, action, arm)
    _after(store, "append", fault, "decision.written", lambda event, arguments: arguments["actor"])
    _after(
        decisions,
        "apply_decision",
        fault,
        "decision.committed",
        lambda result, arguments: None if result.replayed else arguments["actor"],
    )
    _after(
        outbox,
        "claim",
        fault,
        "email.claimed",
        lambda claims, arguments: claims[0].kind if claims else None,
    )
    _after(
        outbox,
        "send_claimed",
        fault,
        "email.sent",
        lambda result, arguments: arguments["claimed"].kind,
    )
