"""History pages read from a read replica (games/replica.py), with real PostgreSQL databases.

The "replica" is a second PostgreSQL database made from this test's database with pg_dump at
one moment, then left behind: a standby that lags. A subprocess runs the site with
DATABASE_URL (the primary) and DATABASE_REPLICA_URL (the copy) and shows which one each page
read: the history list, replay and export of a game finished after the copy come from the
copy (so they do not know it yet), the table page and a report from the primary, and the
report is written to the primary only.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid

import psycopg
import pytest
from django.db import connection

from games.actions import decisions
from games.models import Game, GameEvent
from games.moderation.models import Report
from tests.conftest import make_started_game, make_user
from tests.faults.support import _NOT_INHERITED, ROOT, database_url, require_real_parts

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

SITE = r"""
import json, os, re, sys
import django
django.setup()
from django.test import Client
from accounts.models import User

old, new = int(sys.argv[1]), int(sys.argv[2])
client = Client()
client.force_login(User.objects.get(username="ana"))
listed = client.get("/history/").content.decode()
print(json.dumps({
    "history": sorted({int(n) for n in re.findall(r"/games/(\d+)/replay/", listed)}),
    "replay_old": client.get(f"/games/{old}/replay/").status_code,
    "replay_new": client.get(f"/games/{new}/replay/").status_code,
    "export_new": client.get(f"/games/{new}/export.json").status_code,
    "table_new": client.get(f"/games/{new}/").status_code,
    "report": client.post(f"/games/{new}/report/",
                          {"reason": "other", "text": "through the primary"}).status_code,
}))
"""


def finished_game(users):
    game = make_started_game(users)
    decisions.apply_decision(game.pk, 1, {"type": "concede"}, GameEvent.Actor.PERSON, user=users[1])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.fixture
def replica_copy():
    """A database made from this test's database as it is now; dropped afterwards."""
    require_real_parts()
    if shutil.which("pg_dump") is None or shutil.which("psql") is None:
        pytest.skip("needs PostgreSQL's client programs (pg_dump, psql)")
    db = connection.settings_dict
    name = f"{db['NAME']}_replica_{uuid.uuid4().hex[:6]}"
    admin = dict(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    )

    def make():
        with psycopg.connect(**admin) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
        where = ["-h", admin["host"], "-p", str(admin["port"]), "-U", db["USER"]]
        dump = subprocess.run(
            ["pg_dump", *where, "--no-owner", db["NAME"]], env=env, capture_output=True, check=True
        ).stdout
        subprocess.run(
            ["psql", *where, "-q", "-v", "ON_ERROR_STOP=1", name],
            input=dump,
            env=env,
            capture_output=True,
            check=True,
        )
        return database_url().rsplit("/", 1)[0] + "/" + name

    yield make
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_history_pages_read_the_replica_and_everything_else_the_primary(replica_copy):
    users = [make_user(n) for n in ("ana", "bo", "cy", "di")]
    old = finished_game(users)
    replica_url = replica_copy()
    new = finished_game(users)  # after the copy: the lagging replica does not have it yet

    env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
    env.update(
        DATABASE_URL=database_url(),
        DATABASE_REPLICA_URL=replica_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", SITE, str(old.pk), str(new.pk)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])

    assert seen["history"] == [old.pk]  # the list: the replica's games only
    assert seen["replay_old"] == 200
    assert seen["replay_new"] == 404  # not on the replica yet
    assert seen["export_new"] == 404
    assert seen["table_new"] == 200  # the table page reads the primary
    assert seen["report"] in (200, 302)  # a write: to the primary, never the replica
    assert Report.objects.filter(game=new, text="through the primary").count() == 1
    with psycopg.connect(replica_url.replace("postgres://", "postgresql://")) as conn:
        assert conn.execute("SELECT count(*) FROM lobby_report").fetchone()[0] == 0

    # Without DATABASE_REPLICA_URL the same pages read the primary: the new game is there.
    env.pop("DATABASE_REPLICA_URL")
    done = subprocess.run(
        [sys.executable, "-c", SITE, str(old.pk), str(new.pk)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["history"] == sorted([old.pk, new.pk])
    assert seen["replay_new"] == 200 and seen["export_new"] == 200
