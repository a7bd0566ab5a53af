"""`make run`'s command says the address it really serves: the embedded site on a port the
system picked answers there, and a port already in use is refused in words."""

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def embedded_env(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}", PYTHONUNBUFFERED="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                   check=True, timeout=300)
    return env


def test_the_printed_address_is_the_one_served(embedded_env):
    site = subprocess.Popen([sys.executable, "manage.py", "runsite", "--port", "0"], cwd=ROOT,
                            env=embedded_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        first = site.stdout.readline().strip()
        assert first.startswith("Wild Cards Teams at http://127.0.0.1:"), first
        address = first.rsplit(" ", 1)[1]
        assert not address.endswith(":0/") and not address.endswith(":8000/")
        with urllib.request.urlopen(address, timeout=30) as page:
            assert page.status == 200
    finally:
        site.terminate()
        site.wait(timeout=30)


def test_a_port_in_use_is_refused_in_words(embedded_env):
    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    try:
        result = subprocess.run([sys.executable, "manage.py", "runsite", "--port", str(port)],
                                cwd=ROOT, env=embedded_env, capture_output=True, text=True,
                                timeout=120)
    finally:
        taken.close()
    assert result.returncode != 0
    assert f"Cannot serve on 127.0.0.1:{port}" in result.stderr
