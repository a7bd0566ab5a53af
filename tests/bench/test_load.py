"""The load tool's pure parts: it reads a seat's choices from the page as a person would.

bench/load.py plays from the pushed fragments alone; these tests render the real
fragments of games in play and check that what the tool reads is exactly what the
engine allows that seat, and that every move it picks is accepted. And its whole-system
CPU (bench/system_cpu.py): /proc's fields, the accounting of backends that come and go,
and the line it prints.
"""

import argparse
import os
import random
import subprocess
import sys
import time

import pytest

from bench import system_cpu
from bench.load import (
    Page,
    _groups,
    _report,
    choices,
    page_seq,
    percentile,
    pick_action,
    summarize,
)
from bench.system_cpu import Postgres, PostgresSampler, Stat, parse_stat, whole_system_lines
from games import store
from games.actions import decisions
from games.models import Game
from games.presenters import table
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db


def page(game, seat):
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    return table.render_fragments(table.table_context(game, seat)), store.load_state(game)


def engine_choices(state, seat):
    legal = state.legal_actions(seat)
    view = state.view(seat)
    return {
        "play": {(a["card"], "color" in a) for a in legal if a["type"] == "play"},
        "other": {a["type"] for a in legal if a["type"] in ("draw", "pass_turn", "take_penalty")},
        "pick": {a["card"] for a in legal if a["type"] == "pass"},
        "give": view.get("must_give") or 0,
    }


def page_choices(html):
    found = choices(html)
    return {
        "play": {(a["card"], "color" in a) for a in found["play"]},
        "other": {a["type"] for a in found["other"]},
        "pick": {a["card"] for a in found["pick"]},
        "give": found["give"][0] if found["give"] else 0,
    }


@pytest.mark.parametrize("seed", [3, 11])
def test_what_the_tool_reads_from_each_page_is_what_the_engine_allows(four, seed):
    game = make_started_game(four, seed=seed, target_score=300)
    rng = random.Random(seed)
    kinds = set()
    for _ in range(160):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        movers = []
        for seat in range(4):
            html, state = page(game, seat)
            assert page_seq(html) == game.last_seq
            assert page_choices(html) == engine_choices(state, seat), (
                f"seat {seat} at {game.last_seq}"
            )
            action = pick_action(html, rng)
            if action is not None:
                movers.append((seat, action))
        assert movers, "some seat always has a decision in an active game"
        seat, action = movers[0]
        kinds.add(action["type"])
        # Accepted as it is: the tool never sends a move the engine refuses.
        decisions.apply_decision(game.pk, seat, action, "person")
    assert {"pass", "play"} <= kinds


def test_a_wild_gets_a_colour_and_a_playable_card_is_preferred_to_drawing():
    html = (
        '<form id="hand-form" method="post" data-mode="play" data-need="0">'
        '<button type="submit" class="card hand-card" id="card-0-R7" name="play" value="R7" '
        'disabled><span class="visually-hidden">Red 7</span>x</button>'
        '<button type="button" class="card hand-card playable" id="card-1-W" '
        'data-wild="W" aria-expanded="false"><span class="visually-hidden">Wild</span>x</button>'
        '<button type="submit" class="primary" name="do" value="draw" id="btn-draw">'
        "Draw a card</button>"
    )
    for n in range(20):
        action = pick_action(html, random.Random(n))
        assert action["type"] == "play" and action["card"] == "W" and action["color"] in "RYGB"


def test_percentiles_are_nearest_rank_of_the_sorted_values():
    values = list(range(1, 101))
    assert percentile(values, 50) == 51
    assert percentile(values, 95) == 95
    assert percentile(values, 99) == 99
    assert percentile([], 95) is None
    stats = summarize([30.0, 10.0, 20.0])
    assert stats == {"n": 3, "median": 20.0, "p95": 30.0, "p99": 30.0, "max": 30.0}


def test_history_plays_the_moves_asked_and_leaves_no_clock_running(four):
    from bench.load import _play_history

    game = make_started_game(four, seed=5, target_score=1000)
    start = game.last_seq
    _play_history(game.pk, four, 30)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.last_seq == start + 30
    assert (game.clocks, game.deadline_at, game.wake_at, game.countdown_at) == (
        {},
        None,
        None,
        None,
    )
    # The state is the one those moves make, and the game goes on from it.
    state = store.load_state(game)
    assert state.to_dict() == store.replay(game).to_dict()
    assert game.waiting_on


# --- whole-system CPU ---------------------------------------------------------------------------


def test_a_real_stat_line_gives_this_process_s_own_and_reaped_cpu():
    # A child that burns some CPU and is waited for: its time is this process's reaped time.
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    sum(range(3_000_000))
    with open("/proc/self/stat") as stat:
        line = stat.read()
    times = os.times()
    with open("/proc/self/comm") as comm:
        name = comm.read().strip()
    read = parse_stat(line)
    assert read.comm == name and read.ppid == os.getppid()
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert read.own == pytest.approx(times.user + times.system, abs=2 * tick)
    assert read.reaped == pytest.approx(times.children_user + times.children_system, abs=tick)
    assert read.reaped > 0
    assert read == system_cpu.read_stat(os.getpid())._replace(own=read.own)


def test_a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields():
    after = "S 77 77 77 0 -1 4194560 900 5 0 0 250 50 1000 200 20 0 1 0 99999 1000 10"
    line = f"1234 (postgres: x (y)) {after} 0 0 0\n"
    assert parse_stat(line, ticks=100) == Stat(
        comm="postgres: x (y)", ppid=77, own=3.0, reaped=12.0, start=99999
    )


class FakeMachine:
    """A PostgreSQL on this machine as the sampler sees it: pg_stat_activity's pids of the
    database, /proc's readings, the sessions counter, changed by the test between polls."""

    POSTMASTER, SAMPLER = 10, 11

    def __init__(self):
        self.procs = {
            self.POSTMASTER: Stat("postgres", 1, 5.0, 100.0, 1),
            self.SAMPLER: Stat("postgres", self.POSTMASTER, 0.1, 0.0, 2),
        }
        self.listed = set()
        self.sessions = 10

    def backend(self, pid, seconds, start, listed=True):
        self.procs[pid] = Stat("postgres", self.POSTMASTER, seconds, 0.0, start)
        if listed:
            self.listed.add(pid)
        else:
            self.listed.discard(pid)

    def end(self, pid):
        """The backend exits and the postmaster reaps it: its whole life's CPU."""
        ended = self.procs.pop(pid)
        self.listed.discard(pid)
        master = self.procs[self.POSTMASTER]
        self.procs[self.POSTMASTER] = master._replace(reaped=master.reaped + ended.own)

    def sql(self, query):
        if query == "SELECT pg_backend_pid()":
            return [(self.SAMPLER,)]
        if query == system_cpu.BACKENDS:
            return [(pid,) for pid in sorted(self.listed)]
        if query == system_cpu.SESSIONS:
            return [(self.sessions,)]
        assert query == "SELECT pg_stat_clear_snapshot()"
        return [(None,)]

    def read(self, pid):
        return self.procs.get(pid)


def test_backends_that_come_and_go_are_each_counted_once_for_their_time_in_the_window():
    machine = FakeMachine()
    machine.backend(20, 1.0, start=50)  # alive throughout
    machine.backend(21, 2.0, start=51)  # ends in the window
    machine.backend(22, 0.7, start=52)  # leaves pg_stat_activity, not yet reaped at the end
    machine.backend(23, 9.0, start=53)  # its pid is reused in the window
    sampler = PostgresSampler(machine.sql, machine.read)
    sampler.start()

    machine.backend(20, 1.2, start=50)
    machine.backend(21, 2.3, start=51)
    machine.backend(30, 0.4, start=90)  # started in the window: first seen at 0.4
    machine.backend(31, 0.1, start=91)  # started in the window, will end in it
    sampler.poll()

    machine.end(21)  # 0.3 of its 2.3 s in the window
    machine.backend(31, 0.5, start=91)
    machine.end(31)  # its whole 0.5 s, not 0.5 plus its live 0.1 again
    machine.backend(32, 0.2, start=92)
    machine.end(32)  # never seen: its whole 0.2 s, from the reaped time alone
    machine.end(23)  # 0 s in the window...
    machine.backend(23, 0.05, start=95)  # ...and a new backend on its pid: 0.05 s
    machine.sessions = 14
    sampler.poll()

    machine.backend(20, 1.5, start=50)
    machine.backend(30, 0.6, start=90)
    machine.backend(22, 0.9, start=52, listed=False)
    reading = sampler.finish()

    # 20: 0.5, 21: 0.3, 22: 0.2, 23: 0 + 0.05, 30: 0.6 (all its life), 31: 0.5, 32: 0.2
    assert reading.seconds == pytest.approx(2.35)
    # Alive at the end: 20, 22, 23's new backend, 30.
    assert reading.live == pytest.approx(0.5 + 0.2 + 0.05 + 0.6)
    assert reading.sessions == 4 and reading.why == ""


def test_postgresql_elsewhere_or_closed_proc_is_not_measured_but_sessions_still_are():
    remote = FakeMachine()
    remote.procs[remote.SAMPLER] = Stat("bash", 1, 0.1, 0.0, 2)  # a local process on its pid
    sampler = PostgresSampler(remote.sql, remote.read)
    sampler.start()
    remote.sessions = 13
    sampler.poll()
    assert sampler.finish() == Postgres(None, 3, "PostgreSQL is not on this machine")

    closed = FakeMachine()

    def refuse(pid):
        raise PermissionError(13, "Permission denied", f"/proc/{pid}/stat")

    sampler = PostgresSampler(closed.sql, refuse)
    sampler.start()
    reading = sampler.finish()
    assert reading.seconds is None and reading.sessions == 0
    assert "Permission denied" in reading.why


def test_the_whole_system_line_adds_the_groups_per_decision():
    groups = {"web": 0.72, "worker+beat": 0.065, "PostgreSQL": 0.214, "Redis": 0.039}
    lines = whole_system_lines("decision", 100, groups, Postgres(0.214, 57, live=0.014))
    assert lines[0] == (
        "whole system per decision: 10.4 ms "
        "(web 7.2, worker+beat 0.65, PostgreSQL 2.14, Redis 0.39)"
    )
    assert lines[1] == (
        "  PostgreSQL: 0.01 s of the load's database's live backends, 0.20 s of ended ones:"
    )
    assert "reaped children, which holds the ended backends of every" in lines[2]
    assert lines[-1] == "  sessions opened in the window: 57"

    groups["PostgreSQL"] = None
    lines = whole_system_lines("echo round", 50, groups, Postgres(None, None, "no /proc"))
    assert lines[0] == (
        "whole system per echo round: at least 16.5 ms "
        "(web 14.4, worker+beat 1.3, PostgreSQL not measured, Redis 0.78)"
    )
    assert lines[1:] == [
        "  PostgreSQL not measured: no /proc",
        "  sessions opened in the window: not measured",
    ]


def test_the_groups_are_the_daphnes_the_worker_and_beat_and_redis():
    seconds = {
        "daphne-1": 3.0,
        "daphne-2": 2.0,
        "celery-worker": 0.5,
        "celery-beat": 0.25,
        "client-1": 40.0,
        "redis-server (shared)": 0.75,
    }
    args = argparse.Namespace(server="daphne")
    assert _groups(args, seconds, Postgres(1.5, 9)) == {
        "web": 5.0,
        "worker+beat": 0.75,
        "PostgreSQL": 1.5,
        "Redis": 0.75,
    }
    seconds["daphne-2"] = None  # could not be read
    del seconds["redis-server (shared)"]  # no redis-server on this machine
    groups = _groups(args, seconds, Postgres(None, None, "x"))
    assert groups == {"web": None, "worker+beat": 0.75, "PostgreSQL": None, "Redis": None}


def test_the_report_prints_the_whole_system_right_after_the_daphnes_cpu_per_decision(capsys):
    args = argparse.Namespace(
        echo=False, tables=2, players=4, pace=3.0, server="daphne", daphnes=1, clients=1,
        duration=10.0, warmup=1.0,
    )  # fmt: skip
    result = {
        "latencies": [10.0],
        "decided": 40,
        "errors": [],
        "error_count": 0,
        "resyncs": 0,
        "late": 0,
    }
    cpu = {"daphne-1": 20.0, "celery-worker": None}
    peak = {"daphne-1": 2**20, "celery-worker": 2**20}
    groups = {"web": 2.0, "worker+beat": None, "PostgreSQL": 0.4, "Redis": 0.2}
    system = (groups, Postgres(0.4, 7, live=0.1))
    _report(args, [result], cpu, peak, (10.0, 0.0), (0, 0, 0), (0, 0, 0), [], system)
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("    daphnes' CPU per decision: 50.00 ms")
    assert lines[at + 1] == (
        "    whole system per decision: at least 65 ms "
        "(web 50, worker+beat not measured, PostgreSQL 10, Redis 5)"
    )
    assert lines[at + 5] == "      sessions opened in the window: 7"
    assert "    celery-worker            not measured      1.0 MiB" in lines


@pytest.mark.postgres
def test_a_session_opened_and_closed_in_the_window_is_counted_with_its_cpu():
    import psycopg
    from django.db import connection

    from bench.load import _sql

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL on this machine (set DATABASE_URL=postgres://...)")
    params = connection.settings_dict
    sampler = PostgresSampler(_sql)
    sampler.start()
    with psycopg.connect(
        dbname=params["NAME"], host=params["HOST"], port=params["PORT"], user=params["USER"]
    ) as conn:
        pid = conn.info.backend_pid
        sampler.poll()
        conn.execute("SELECT sum(i) FROM generate_series(1, 3000000) AS i").fetchone()
        spent = system_cpu.read_stat(pid).own
    # The backend exits and is reaped, and its count reaches the statistics, soon after.
    deadline = time.monotonic() + 10
    while system_cpu.read_stat(pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    reading = sampler.finish()
    assert reading.why == ""
    assert reading.sessions == 1
    assert reading.live < spent  # it was not counted while it lived: it had ended
    # Its whole time, from the postmaster's reaped children (a shared cluster's other
    # databases can only add to it).
    assert spent > 0.05
    # Both are whole clock ticks, the reading a difference of two sums of them in floating
    # point (0.23 read as 0.2299999...): compared in ticks.
    ticks = system_cpu.CLOCK_TICKS
    assert round(reading.seconds * ticks) >= round(spent * ticks)


def test_the_tool_s_page_keeps_what_a_push_leaves_out_and_refuses_one_it_cannot_show():
    """bench.load.Page, the tool's copy of what table.js keeps (the whole path is checked
    against fresh pages in tests/games/push/test_changes.py)."""
    whole = (
        '<section data-v="aa" id="table-status" data-seq="7"></section>'
        '<section data-v="bb" id="table-hand" data-seq="7"><form id="hand-form" data-mode="play"'
        ' data-need="0"></form></section>'
        '<section data-v="cc" id="table-seats"><ol data-v="dd" id="discard-cards">'
        '<li class="mini">Red 1</li><li class="mini">Red 2</li></ol></section>'
    )
    page = Page()
    page.load(whole, 7)
    assert (page.seq, page.discard, page.versions["table-hand"]) == (7, 2, "bb")
    push = {
        "seq": 8,
        "html": '<section data-v="a2" id="table-status" data-seq="8"></section>'
        '<ol hx-swap-oob="beforeend:#discard-cards"><li class="mini">Red 3</li></ol>',
        "log_after": 7,
        "keep": {"table-hand": "bb", "table-seats": "cc"},
        "append": {"discard-cards": {"after": 2, "added": 1, "v": "d2"}},
    }
    assert page.holds(push)
    page.apply(push)
    assert 'data-mode="play"' in page.hand  # the hand it was not sent again
    assert (page.seq, page.discard, page.versions["discard-cards"]) == (8, 3, "d2")
    assert page.versions["table-status"] == "a2"
    # A push for a page that missed one: an event it does not show, a piece it holds at
    # another version, a list of another length.
    later = {"seq": 10, "html": "", "log_after": 9, "keep": {}, "append": {}}
    assert not page.holds(later)
    assert not page.holds({**push, "seq": 9, "log_after": 8, "keep": {"table-hand": "b0"}})
    assert not page.holds({**push, "seq": 9, "log_after": 8})  # the list holds 3, not 2
