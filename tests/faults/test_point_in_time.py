"""Continuous archiving restores to a chosen moment (docs/deploy.md, "Backups of the event
table"): a PostgreSQL cluster of the test's own archives its WAL while a worker plays a game;
a base backup is taken during play; play goes on past a named restore point, then a mistake
wipes the game's events and the cluster is lost. A new cluster made from the base backup
replays the archived WAL up to the restore point: the game stands exactly as it stood there
(further than the base backup, so the archive was replayed, not only the backup), the
restore check passes, and a worker and beat on it finish the game.

Every part is real: initdb, pg_basebackup, archive_command and restore_command of Debian's
PostgreSQL, Celery as subprocesses (tests/faults/support.py); run as root, the cluster is
the postgres user's (bench/soak.py's OwnPostgres).
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from bench.soak import OwnPostgres, _pg_bin
from games.models import Game
from tests.faults.support import ROOT, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RESTORE_POINT = "before-the-mistake"

# A table whose every seat is a bot, made by the site's own code in the cluster under test.
SETUP = """
import django
django.setup()
from games.models import Game
from games.moderation import actions as moderation
from tests.conftest import make_started_game, make_user
ana = make_user("ana")
boss = make_user("boss", is_staff=True, is_superuser=True)
game = make_started_game([ana], bots=["easy"], pace=Game.Pace.REALTIME, target_score=None)
moderation.replace_with_bot(game.pk, 0, boss, "a table that plays itself", "easy")
print(game.pk)
"""


def _site(env, *args):
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _row(url, game_id):
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT status, last_seq FROM games_game WHERE id = %s", [game_id]
        ).fetchone()


def _events(url, game_id):
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT seq FROM games_gameevent WHERE game_id = %s ORDER BY seq", [game_id]
        ).fetchall()
    return [seq for (seq,) in rows]


def _mark_restore_point(url, game_id):
    """Names the moment to come back to, and the game's last event at it: the game's row is
    locked against writers while both are read, so no move commits in between."""
    with psycopg.connect(url) as conn, conn.transaction():
        conn.execute("LOCK TABLE games_game IN SHARE MODE")
        (seq,) = conn.execute("SELECT last_seq FROM games_game WHERE id = %s", [game_id]).fetchone()
        conn.execute("SELECT pg_create_restore_point(%s)", [RESTORE_POINT])
    return seq


@pytest.fixture
def work():
    """A directory the postgres user may reach (pytest's own are root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="wct-pitr-"))
    try:
        yield path
    finally:
        for cluster in ("lost", "restored"):
            OwnPostgres(path / cluster).stop()
        shutil.rmtree(path, ignore_errors=True)


def test_the_archive_restores_the_game_as_it_stood_at_a_restore_point(stack, work):
    if not (_pg_bin("initdb") and _pg_bin("pg_basebackup")):
        pytest.skip("needs PostgreSQL's server programs (Debian's postgresql)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("as root, needs runuser to run PostgreSQL as the postgres user")
    archive = work / "wal"
    lost = OwnPostgres(
        work / "lost",
        database="wildcards",
        conf=[
            "wal_level = replica",
            "archive_mode = on",
            f"archive_command = 'test ! -f {archive}/%f && cp %p {archive}/%f'",
        ],
    )
    lost.own(archive)
    lost.start()
    env = {**stack.env, "DATABASE_URL": lost.url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    _site(env, "manage.py", "migrate", "--no-input")
    game_id = int(_site(env, "-c", SETUP).split()[-1])

    stack.worker(env={"DATABASE_URL": lost.url, "BOT_PACE_MS": "300"})

    def at_least(seq):
        wait_until(
            lambda: _row(lost.url, game_id)[1] >= seq,
            120,
            f"the game to reach event {seq}",
            lambda: stack.log("worker")[-3000:],
        )

    at_least(10)
    lost.base_backup(work / "base")
    (_, at_backup) = _row(lost.url, game_id)
    at_least(at_backup + 10)
    at_point = _mark_restore_point(lost.url, game_id)
    at_least(at_point + 5)
    stack.kill("worker")
    # The mistake: the game's events wiped; the archive has it too, after the restore point.
    with psycopg.connect(lost.url, autocommit=True) as conn:
        conn.execute("DELETE FROM games_gameevent WHERE game_id = %s", [game_id])
        # The segment holding the restore point and the mistake is closed and archived.
        (segment,) = conn.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()
    wait_until(lambda: (archive / segment).exists(), 60, f"WAL segment {segment} archived")
    assert _events(lost.url, game_id) == []
    lost.stop()
    shutil.rmtree(lost.data)  # the cluster is lost: only the base backup and the archive are left

    restored = OwnPostgres(work / "restored", database="wildcards")
    restored.recover(work / "base", f"cp {archive}/%f %p", RESTORE_POINT)
    wait_until(
        lambda: _in_recovery(restored.url) is False,
        120,
        "the restored cluster to reach the restore point and be promoted",
        lambda: (restored.dir / "log").read_text(errors="replace")[-3000:],
    )
    status, last_seq = _row(restored.url, game_id)
    assert status == Game.Status.ACTIVE
    assert at_backup < last_seq == at_point  # the archive was replayed, to the point and no further
    assert _events(restored.url, game_id) == list(range(1, at_point + 1))
    on_restored = {**stack.env, "DATABASE_URL": restored.url}
    said = _site(on_restored, "manage.py", "verify_games")
    assert "; 0 broken" in said, said

    # The site goes on from the restored cluster: beat re-sends the bot moves queued for the
    # lost one, and the worker plays the game to its end.
    sweeps = {
        "DATABASE_URL": restored.url,
        "BOT_PACE_MS": "0",
        "BOT_SWEEP_SECONDS": "1",
        "BOT_STALL_SECONDS": "1",
    }
    stack.worker(name="restored-worker", env=sweeps)
    stack.beat(env=sweeps)
    wait_until(
        lambda: _row(restored.url, game_id)[0] == Game.Status.FINISHED,
        180,
        "the restored game to finish",
        lambda: stack.log("restored-worker")[-3000:] + stack.log("beat")[-2000:],
    )
    finished_at = _row(restored.url, game_id)[1]
    assert _events(restored.url, game_id) == list(range(1, finished_at + 1))
    said = _site(on_restored, "manage.py", "verify_games")
    assert "; 0 broken" in said, said


def _in_recovery(url):
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            return conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]
    except psycopg.OperationalError:
        return None  # not accepting connections yet
