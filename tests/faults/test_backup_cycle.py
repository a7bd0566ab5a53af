"""A backup taken during play restores whole, and the site goes on from it (docs/deploy.md,
"Backups of the event table"): `pg_dump` of the database while a worker plays a game, the
worker then killed, the dump restored into a new database, `manage.py verify_games` run on
it, then a worker, beat and a Daphne started on the restored database, which finish the game
that was running when the backup was taken; the restore check passes again at the end, and
the restored site shows that every deal of the game matches its commitments.

Every part is real: pg_dump and pg_restore of the machine's PostgreSQL, Celery and Daphne as
subprocesses (tests/faults/support.py).
"""

import re
import shutil
import subprocess
import sys
import urllib.request
import uuid

import psycopg
import pytest
from django.db import connection

from games.models import Game
from games.moderation import actions as moderation
from tests.conftest import make_started_game, make_user
from tests.faults.support import ROOT, database_url, session_cookie, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _server_url(name="postgres"):
    return re.sub(r"/[^/]*$", f"/{name}", database_url())


def _game_row(url, game_id):
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT status, last_seq FROM games_game WHERE id = %s", [game_id]
        ).fetchone()


def _verify(env):
    """manage.py verify_games against the database of `env`: (exit code, what it printed)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "verify_games"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def restored_database():
    """A new, empty database to restore into, dropped after the test."""
    name = f"{connection.settings_dict['NAME']}_restored_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(_server_url(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _server_url(name)
    finally:
        with psycopg.connect(_server_url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_backup_taken_during_play_restores_verifies_and_finishes_the_game(
    stack, tmp_path, restored_database
):
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("needs pg_dump and pg_restore (Debian's postgresql-client)")
    ana = make_user("ana")
    boss = make_user("boss", is_staff=True, is_superuser=True)
    game = make_started_game([ana], bots=["easy"], pace=Game.Pace.REALTIME, target_score=None)
    # Ana's seat too is played by a bot, so that the game plays itself to its end.
    moderation.replace_with_bot(game.pk, 0, boss, "a table that plays itself", "easy")
    cookie = session_cookie(ana)  # a session stored in the database, restored with it

    # Play, at a pace that leaves the game running when the backup is taken.
    stack.worker(env={"BOT_PACE_MS": "300"})
    wait_until(
        lambda: Game.objects.get(pk=game.pk).last_seq >= 20,
        90,
        "the game to be under way",
        lambda: stack.log("worker")[-3000:],
    )
    dump = tmp_path / "site.dump"
    subprocess.run(["pg_dump", "-Fc", "-f", str(dump), database_url()], check=True, timeout=120)
    stack.kill("worker")  # the site is lost after the backup

    subprocess.run(
        ["pg_restore", "--no-owner", "-d", restored_database, str(dump)], check=True, timeout=120
    )
    status, at_backup = _game_row(restored_database, game.pk)
    assert status == Game.Status.ACTIVE and at_backup >= 20
    restored = {**stack.env, "DATABASE_URL": restored_database}
    code, said = _verify(restored)
    assert code == 0 and "; 0 broken" in said, said

    # The site on the restored database: beat finds the bot moves that were queued for the
    # lost site and sends them again; the worker plays them to the end.
    on_restored = {
        "DATABASE_URL": restored_database,
        "BOT_PACE_MS": "0",
        "BOT_SWEEP_SECONDS": "1",
        "BOT_STALL_SECONDS": "1",
    }
    stack.worker(name="restored-worker", env=on_restored)
    stack.beat(env=on_restored)
    site = stack.daphne(name="restored-daphne", env=on_restored)
    wait_until(
        lambda: _game_row(restored_database, game.pk)[0] == Game.Status.FINISHED,
        180,
        "the restored game to finish",
        lambda: stack.log("restored-worker")[-3000:] + stack.log("beat")[-2000:],
    )
    status, finished_at = _game_row(restored_database, game.pk)
    assert finished_at > at_backup
    code, said = _verify(restored)
    assert code == 0 and "; 0 broken" in said, said

    # Ana, logged in before the backup, checks the finished game's deals on the restored site.
    request = urllib.request.Request(
        f"{site}/games/{game.pk}/verify/", headers={"Cookie": f"sessionid={cookie}"}
    )
    with urllib.request.urlopen(request, timeout=60) as page:
        html = page.read().decode()
    assert page.status == 200
    assert "Every deal matches." in html
