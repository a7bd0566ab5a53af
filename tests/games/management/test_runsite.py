"""`make run`'s command says the address it really serves: the embedded site on a port the
system picked answers there, its emails link there, and a port already in use is refused
in words."""

import email
import email.policy
import json
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

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def embedded_env(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL")
    }
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}", PYTHONUNBUFFERED="1")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300
    )
    return env


def test_the_printed_address_is_the_one_served(embedded_env):
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--port", "0"],
        cwd=ROOT,
        env=embedded_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
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
        result = subprocess.run(
            [sys.executable, "manage.py", "runsite", "--port", str(port)],
            cwd=ROOT,
            env=embedded_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
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
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = site.stdout.readline().strip().rsplit(" ", 1)[1]
        assert site.stdout.readline().strip() == f"Links in emails point at {address.rstrip('/')}"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(address + "accounts/signup/", timeout=30) as page:
            token = re.search(
                r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode()
            ).group(1)
        form = urllib.parse.urlencode(
            {
                "csrfmiddlewaretoken": token,
                "username": "newcomer",
                "email": "newcomer@example.com",
                "display_name": "",
                "password1": "wild-cards-correct-horse-9",
                "password2": "wild-cards-correct-horse-9",
            }
        ).encode()
        request = urllib.request.Request(
            address + "accounts/signup/",
            data=form,
            headers={"Referer": address + "accounts/signup/"},
        )
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


def _sign_up(address, username):
    """Signs `username` up on the site at `address` as a browser would (form, CSRF cookie)."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(address + "accounts/signup/", timeout=30) as page:
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode()
        ).group(1)
    form = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token,
            "username": username,
            "email": f"{username}@example.com",
            "display_name": "",
            "password1": "wild-cards-correct-horse-9",
            "password2": "wild-cards-correct-horse-9",
        }
    ).encode()
    request = urllib.request.Request(
        address + "accounts/signup/", data=form, headers={"Referer": address + "accounts/signup/"}
    )
    with opener.open(request, timeout=30) as answer:
        assert answer.status == 200


def test_without_an_smtp_server_each_email_is_printed_under_a_banner_with_its_link_whole(
    embedded_env,
):
    """`make run` on a fresh machine: the confirmation email is easy to find among the
    logs, under a banner naming who it is for, its link on a line of its own."""
    env = {
        k: v
        for k, v in embedded_env.items()
        if k not in ("SITE_URL", "EMAIL_HOST", "EMAIL_BACKEND")
    }
    env.update(SIGNUP_RATE_LIMIT="100")
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = site.stdout.readline().strip().rsplit(" ", 1)[1]
        said = [site.stdout.readline().strip() for _ in range(2)]
        assert said[1].startswith("No EMAIL_HOST: each email is printed here"), said
        _sign_up(address, "newcomer")
        lines = []
        for line in site.stdout:  # up to the end of the first email printed
            lines.append(line.rstrip("\n"))
            if "END OF EMAIL" in line or line.startswith("-" * 79):  # ours, or Django's
                break
        start = next(i for i, line in enumerate(lines) if "EMAIL (not sent" in line)
        email_lines = lines[start:]
        assert email_lines[0] == " EMAIL (not sent: no EMAIL_HOST is set) ".center(78, "=")
        assert email_lines[1:3] == [
            "To:      newcomer@example.com",
            "Subject: Confirm your email address for Wild Cards Teams",
        ], email_lines
        links = [line for line in email_lines if line.startswith(f"{address}accounts/confirm/")]
        assert len(links) == 1 and links[0].endswith("/"), email_lines
        assert email_lines[-1] == " END OF EMAIL ".center(78, "=")
        with urllib.request.urlopen(links[0], timeout=30) as confirmed:  # works as printed
            assert confirmed.status == 200
    finally:
        site.terminate()
        site.wait(timeout=30)


def test_log_format_json_makes_every_line_the_site_logs_a_json_object(embedded_env):
    """The embedded site's every log line (Daphne's, Celery's worker and beat, the site's
    own) is one JSON object; the confirmation email's line names its user."""
    env = dict(embedded_env, LOG_FORMAT="json", SIGNUP_RATE_LIMIT="100", LOG_LEVEL="INFO")
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        address = site.stdout.readline().strip().rsplit(" ", 1)[1]
        _sign_up(address, "newcomer")  # answered once its email is sent and logged
    finally:
        site.terminate()
        _, logged = site.communicate(timeout=30)

    parsed = [json.loads(line) for line in logged.splitlines()]
    assert {"time", "level", "logger", "message"} <= set(parsed[0])
    (sent,) = [d for d in parsed if d["message"].startswith("email confirm sent to user ")]
    assert sent["logger"] == "accounts.emails" and sent["user"] == int(sent["message"].split()[-1])
    assert not [d for d in parsed if "sweep" in d["message"]], "a sweep said something at INFO"
