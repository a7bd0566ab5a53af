"""The refusals of bad paths on the wire: raw requests and socket handshakes to a real Daphne
serving config.asgi (as in production, DEBUG off), which decodes paths its own way (bytes
that are not UTF-8 become U+FFFD) and turns an application's exception into a 500.

test_bad_paths.py and test_socket_paths.py test the same rules in-process; this shows what
a client gets: a 400 or 414 page for a page, a 403 handshake answer (the application closed
it unaccepted) for a socket, never a 500, and no traceback in the server's log.
"""

import os
import socket
import subprocess
import sys
import time
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from config.middleware import TOO_LONG, UNREADABLE

pytestmark = pytest.mark.django_db(transaction=True)


def database_url():
    db = connection.settings_dict
    return (
        f"postgres://{quote(db['USER'] or '')}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def daphne(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://... (Daphne shares this test's database)")
    port = free_port()
    log = tmp_path / "daphne.log"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "false",
        "SECRET_KEY": "bad-paths-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "LOG_LEVEL": "INFO",
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "config.asgi:application",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.3).close()
                break
            except OSError:
                assert proc.poll() is None, log.read_text(errors="replace")
                assert time.monotonic() < deadline, "Daphne did not start"
                time.sleep(0.1)
        yield port, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def exchange(port, request_head):
    """Sends a raw request head; returns (status, whole answer as text), (None, "") when the
    server closed the connection without an answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request_head.encode("ascii") + b"\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
            if answer.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in answer:
                break  # an accepted socket stays open
    text = answer.decode(errors="replace")
    return (int(text.split(" ", 2)[1]) if text else None), text


def get(port, path):
    return exchange(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n")


def handshake(port, path):
    return exchange(
        port,
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
        ),
    )


def test_bad_paths_are_refused_on_the_wire_and_the_server_logs_no_error(daphne):
    port, log = daphne
    for path in (
        "/invite/%00/",
        "/players/%00/history/",
        "/players/%FF/",
        "/tables/1%C3%28/",
        "/accounts/confirm/%0A/",
    ):
        status, answer = get(port, path)
        assert status == 400 and UNREADABLE in answer, (path, answer[:300])
    status, answer = get(port, "/invite/" + "a" * 10_000 + "/")
    assert status == 414 and TOO_LONG in answer
    # Beyond Twisted's own limit on a request line (16 KB) the connection is closed
    # without an answer, before Django.
    assert get(port, "/invite/" + "a" * 20_000 + "/") == (None, "")
    # A handshake closed before it is accepted is answered 403 by Daphne: where no socket
    # lives (4404 to the application), a path no route can hold (4400).
    for path in (
        "/ws/nowhere/",
        "/ws/games/abc/",
        "/ws/games/%00/",
        "/ws/games/%FF/",
        "/ws/games/" + "9" * 5_000 + "/",
    ):
        status, answer = handshake(port, path)
        assert status == 403, (path, answer[:300])
    # The socket's own route still answers (a made-up game: 403 from the game socket).
    assert handshake(port, "/ws/games/999999/")[0] == 403
    assert get(port, "/accounts/login/")[0] == 200
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and " 500" not in text, text[-3000:]
