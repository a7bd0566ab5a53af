"""The load tool's whole-system CPU: the PostgreSQL backends of the load's database, read
from /proc, and the one line that adds every group up per decision (bench/load.py).

PostgreSQL forks one backend per session, and a session may be short (a process without a
pool, or one whose pool is closed, opens one per connection), so a backend may start and
end inside a window. A live
backend's CPU is in its /proc/<pid>/stat (utime + stime); once it has ended, the postmaster
reaps it and its whole life's CPU is added to the postmaster's cutime + cstime. The CPU the
database's backends spent in a window is therefore

    the postmaster's reaped children's time at the end - at the start
  + for each backend alive at the end: its time at the end - its time at the start
    (nothing at the start for one that started in the window)
  - for each backend alive at the start that ended in the window: its time at the start
    (the reaped figure holds its whole life; only its part in the window counts)

A backend that starts and ends between two polls, never seen, is counted whole by the
reaped figure, as it should be; adding its live readings as well would count it twice. The
reaped figure holds every database's ended backends (and autovacuum's, and parallel
workers'): on a machine whose PostgreSQL serves only the site, the site's.
"""

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The backends of the sampler's own database but its own connection, which is the tool's.
BACKENDS = (
    "SELECT pid FROM pg_stat_activity"
    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
)
SESSIONS = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"


class Stat(NamedTuple):
    """What the load tool reads in /proc/<pid>/stat: CPU in seconds, start in clock ticks
    since boot (with the pid, it names one process: a pid can be reused)."""

    comm: str
    ppid: int
    own: float  # utime + stime
    reaped: float  # cutime + cstime: the children it has waited for
    start: int


def parse_stat(text: str, ticks: int = CLOCK_TICKS) -> Stat:
    """/proc/<pid>/stat's line. The command name between the parentheses may hold spaces
    and parentheses itself, so the fields are counted from the last ')'."""
    head, _, tail = text.rpartition(")")
    comm = head.partition("(")[2]
    fields = tail.split()  # fields[0] is the state, field 3 of proc(5)
    utime, stime, cutime, cstime = (int(fields[n]) for n in range(11, 15))
    return Stat(
        comm=comm,
        ppid=int(fields[1]),
        own=(utime + stime) / ticks,
        reaped=(cutime + cstime) / ticks,
        start=int(fields[19]),
    )


def read_stat(pid: int) -> Stat | None:
    """The process's Stat, None once it is gone. A permission error is raised: then
    nothing here can be measured."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return parse_stat(stat.read())
    except (FileNotFoundError, ProcessLookupError):
        return None


Key = tuple[int, int]  # (pid, start)


class BackendTally:
    """The accounting of the module's docstring, fed readings {(pid, start): seconds}."""

    def __init__(self, at_start: dict[Key, float], reaped_at_start: float) -> None:
        self.base = dict(at_start)
        self.reaped_at_start = reaped_at_start

    def poll(self, readings: Iterable[Key]) -> None:
        """Backends seen after the start started in the window: all their time counts."""
        for key in readings:
            self.base.setdefault(key, 0.0)

    def known(self) -> list[Key]:
        return list(self.base)

    def seconds(self, at_end: dict[Key, float], reaped_at_end: float) -> tuple[float, float]:
        """CPU seconds in the window of the backends alive at the end, and of the ended
        ones; at_end: every backend still alive, seen before or not."""
        self.poll(at_end)
        live = sum(at_end[key] - self.base[key] for key in at_end)
        before = sum(base for key, base in self.base.items() if key not in at_end)
        return live, reaped_at_end - self.reaped_at_start - before


class Postgres(NamedTuple):
    seconds: float | None  # None: not measured (why says why)
    sessions: int | None
    why: str = ""
    live: float = 0.0  # of seconds: the backends alive at the end, the rest the ended ones'


class NotMeasured(Exception):
    pass


class PostgresSampler:
    """The backends of one database over a window: start(), poll() about every second,
    finish(). `sql(query)` runs a query on a connection to that database and returns its
    rows; the sampler's own backend is left out. Errors are kept, not raised: the group
    is then "not measured"."""

    def __init__(
        self,
        sql: Callable[[str], Sequence[Sequence[Any]]],
        read: Callable[[int], Stat | None] = read_stat,
    ) -> None:
        self.sql, self.read = sql, read
        self.tally: BackendTally | None = None
        self.sessions_at_start: int | None = None
        self.why = ""

    def start(self) -> None:
        self.sessions_at_start = self._sessions()
        try:
            self.postmaster = self._postmaster()
            self.tally = BackendTally(self._backends(), self._reaped())
        except Exception as exc:  # noqa: BLE001 -- reported as "not measured"
            self.why = self.why or _why(exc)

    def poll(self) -> None:
        if self.tally is None:
            return
        try:
            self.tally.poll(self._backends())
        except Exception as exc:  # noqa: BLE001
            self.tally, self.why = None, _why(exc)

    def finish(self) -> Postgres:
        seconds, live = None, 0.0
        if self.tally is not None:
            try:
                # Every backend seen (by pid and start: a reused pid is another process)
                # and any new one, read from /proc: one that left pg_stat_activity on its
                # way out is alive until the postmaster reaps it.
                alive = self._backends()
                for pid, start in self.tally.known():
                    stat = self.read(pid)
                    if stat is not None and stat.start == start:
                        alive[pid, start] = stat.own
                live, ended = self.tally.seconds(alive, self._reaped())
                seconds = live + ended
            except Exception as exc:  # noqa: BLE001
                self.why = _why(exc)
        at_end = self._sessions()
        sessions = None
        if self.sessions_at_start is not None and at_end is not None:
            sessions = at_end - self.sessions_at_start
        return Postgres(seconds, sessions, self.why, live)

    def _sessions(self) -> int | None:
        try:
            # The statistics a transaction reads are a snapshot taken at its first read
            # (stats_fetch_consistency): cleared, each reading is current inside one too.
            self.sql("SELECT pg_stat_clear_snapshot()")
            return int(self.sql(SESSIONS)[0][0])
        except Exception as exc:  # noqa: BLE001
            self.why = self.why or _why(exc)
            return None

    def _postmaster(self) -> int:
        """The postmaster: the parent of the sampler's own backend, if that backend is a
        PostgreSQL process of this machine."""
        pid = int(self.sql("SELECT pg_backend_pid()")[0][0])
        backend = self.read(pid)
        if backend is None or backend.comm not in ("postgres", "postmaster"):
            raise NotMeasured("PostgreSQL is not on this machine")
        parent = self.read(backend.ppid)
        if parent is None or parent.comm not in ("postgres", "postmaster"):
            raise NotMeasured(f"no postmaster above backend {pid}")
        return backend.ppid

    def _backends(self) -> dict[Key, float]:
        self.sql("SELECT pg_stat_clear_snapshot()")
        found = {}
        for (pid,) in self.sql(BACKENDS):
            stat = self.read(pid)
            if stat is not None:
                found[pid, stat.start] = stat.own
        return found

    def _reaped(self) -> float:
        stat = self.read(self.postmaster)
        if stat is None:
            raise NotMeasured("the postmaster is gone")
        return stat.reaped


def _why(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


# --- the line ------------------------------------------------------------------------------

GROUPS = ("web", "worker+beat", "PostgreSQL", "Redis")


def whole_system_lines(
    unit: str, count: int, groups: dict[str, float | None], postgres: Postgres
) -> list[str]:
    """The report's block: CPU seconds of each group over the window per `unit` (decision
    or echo round), `count` of them in the window; a group that is None was not
    measured, and the total is then a floor."""
    if not count:
        return [f"whole system per {unit}: no {unit} in the window"]
    measured = [seconds for seconds in groups.values() if seconds is not None]
    total = sum(measured) / count * 1000
    parts = ", ".join(
        f"{name} {_ms(seconds / count * 1000) if seconds is not None else 'not measured'}"
        for name, seconds in groups.items()
    )
    floor = "at least " if len(measured) < len(groups) else ""
    lines = [f"whole system per {unit}: {floor}{_ms(total)} ms ({parts})"]
    if postgres.seconds is None:
        lines.append(f"  PostgreSQL not measured: {postgres.why}")
    else:
        ended = postgres.seconds - postgres.live
        lines += [
            f"  PostgreSQL: {postgres.live:.2f} s of the load's database's live backends,"
            f" {ended:.2f} s of ended ones:",
            "  the postmaster's reaped children, which holds the ended backends of every",
            "  database (on a machine whose PostgreSQL serves only the site, the site's)",
        ]
    sessions = "not measured" if postgres.sessions is None else postgres.sessions
    lines.append(f"  sessions opened in the window: {sessions}")
    return lines


def _ms(value: float) -> str:
    return f"{value:.3g}"
