"""`make run`'s command says the address it really serves: the embedded site on a port the
system picked answers there, its emails link there, and a port already in use is refused
in words."""

import email
import email.policy
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
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


def test_email_links_point_at_the_address_served(embedded_env, smtp_server):
    """Without SITE_URL, the site's emails link to the host and port it serves (here a
    port the system picked), not to a default that may be another site."""
    port, received = smtp_server
    env = {k: v for k, v in embedded_env.items() if k != "SITE_URL"}
    env.update(EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(port), SIGNUP_RATE_LIMIT="100")
    site = subprocess.Popen([sys.executable, "manage.py", "runsite", "--port", "0"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = site.stdout.readline().strip().rsplit(" ", 1)[1]
        assert site.stdout.readline().strip() == f"Links in emails point at {address.rstrip('/')}"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(address + "accounts/signup/", timeout=30) as page:
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                              page.read().decode()).group(1)
        form = urllib.parse.urlencode({
            "csrfmiddlewaretoken": token, "username": "newcomer",
            "email": "newcomer@example.com", "display_name": "",
            "password1": "wild-cards-correct-horse-9", "password2": "wild-cards-correct-horse-9",
        }).encode()
        request = urllib.request.Request(address + "accounts/signup/", data=form,
                                         headers={"Referer": address + "accounts/signup/"})
        with opener.open(request, timeout=30) as answer:
            assert answer.status == 200
        deadline = time.monotonic() + 30
        while not received and time.monotonic() < deadline:
            time.sleep(0.1)
        (envelope,) = received
        body = email.message_from_bytes(envelope.content, policy=email.policy.default)
        text = body.get_body(preferencelist=("plain",)).get_content()
        assert f"{address}accounts/confirm/" in text, text
    finally:
        site.terminate()
        site.wait(timeout=30)
