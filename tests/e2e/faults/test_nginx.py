"""The reverse proxy of docs/deploy.md, run as the doc has it: Debian's nginx, its site
configuration read from the doc's `nginx` block (only its `${NAME}` placeholders filled
in, so that the doc cannot drift from what is tested), on free ports in front of two
Daphnes in production settings, with a Celery worker and beat, on PostgreSQL and Redis.

A person logs in and plays a whole game in Chromium through it (HTTPS, static files, the
table's websocket), `/readyz` answers through it, and an `X-Forwarded-For` a client made
up is not the address its failed log-ins count against.
"""

import http.client
import os
import re
import shutil
import ssl
import subprocess
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command

from games.models import Game
from tests.conftest import PASSWORD, make_user
from tests.e2e.test_table_browser import play_to_the_end
from tests.faults.support import ROOT, free_port, port_open, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DOC = ROOT / "docs" / "deploy.md"
SECTION = "### nginx: TLS, static files and the websocket upgrade"
PLACEHOLDERS = (
    "SERVER_NAME",
    "HTTPS_LISTEN",
    "HTTP_LISTEN",
    "DAPHNE_1",
    "DAPHNE_2",
    "STATIC_ROOT",
    "TLS_CERTIFICATE",
    "TLS_KEY",
)
# Only nginx could serve this file: it is in the test's own collectstatic output, which the
# Daphnes (their STATIC_ROOT, WhiteNoise's finders) know nothing of.
ONLY_NGINX_HAS = "only-nginx-serves-this.txt"
SEVEN_DAYS = "max-age=604800"  # the doc's `expires 7d` (WhiteNoise would say 60 s)


def site_config(values):
    """The doc's nginx block with its placeholders filled in from `values`."""
    section = DOC.read_text().split(SECTION, 1)[1]
    block = re.search(r"```nginx\n(.*?)```", section, re.S).group(1)
    for name in PLACEHOLDERS:
        placeholder = f"${{{name}}}"
        assert placeholder in block, f"the doc's nginx block no longer uses {placeholder}"
        block = block.replace(placeholder, values[name])
    assert "${" not in block, "the doc's nginx block has a placeholder this test does not fill"
    return block


def main_config(directory, site):
    """What Debian's /etc/nginx/nginx.conf does, in a directory of the test's own."""
    # As root, nginx's workers would run as nobody, who may not enter pytest's directories.
    user = "user root;" if os.geteuid() == 0 else ""
    return f"""{user}
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log;
events {{ worker_connections 512; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {directory}/access.log;
    client_body_temp_path {directory}/client_body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {site};
}}
"""


def insecure():
    """The test's certificate is self-signed."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@dataclass
class ProxiedSite:
    host: str  # localhost:<port>, as a browser sends it
    https_port: int
    http_port: int
    directory: Path

    @property
    def base(self):
        return f"https://{self.host}"

    def request(self, method, path, *, source="127.0.0.1", headers=None, body=None, https=True):
        """One request through nginx from `source` (any 127.x address: all are this
        machine's, and nginx sees each as a client of its own); returns (status, headers,
        body)."""
        if https:
            conn = http.client.HTTPSConnection(
                "127.0.0.1",
                self.https_port,
                timeout=30,
                context=insecure(),
                source_address=(source, 0),
            )
        else:
            conn = http.client.HTTPConnection(
                "127.0.0.1", self.http_port, timeout=30, source_address=(source, 0)
            )
        try:
            conn.request(method, path, body=body, headers={"Host": self.host, **(headers or {})})
            answer = conn.getresponse()
            return answer.status, answer.msg, answer.read().decode(errors="replace")
        finally:
            conn.close()


@pytest.fixture
def proxied_site(stack, tmp_path, settings):
    """nginx, configured from the doc, in front of two Daphnes of the test's `stack`."""
    nginx, openssl = shutil.which("nginx") or "/usr/sbin/nginx", shutil.which("openssl")
    if not os.access(nginx, os.X_OK):
        pytest.skip("needs Debian's nginx (apt-get install nginx); .ci/run installs it")
    if openssl is None:
        pytest.skip("needs openssl to make the test's certificate")
    https_port, http_port = free_port(), free_port()
    site = ProxiedSite(f"localhost:{https_port}", https_port, http_port, tmp_path / "nginx")
    site.directory.mkdir()

    key, certificate = site.directory / "key.pem", site.directory / "cert.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(certificate),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", interactive=False, verbosity=0)
    (settings.STATIC_ROOT / ONLY_NGINX_HAS).write_text("served by nginx\n")

    # A cache space of this test's own for every process it starts (the heartbeats that
    # /readyz reads, the log-in counts), so that no earlier run's counts answer for it.
    stack.env["CACHE_KEY_PREFIX"] = f"nginx-{uuid.uuid4().hex[:12]}"
    # Production settings behind a proxy (docs/deploy.md, "Environment"), for this address.
    env = dict(
        SECURE_SSL_REDIRECT="true",
        SESSION_COOKIE_SECURE="true",
        CSRF_COOKIE_SECURE="true",
        SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https",
        ALLOWED_HOSTS="localhost",
        CSRF_TRUSTED_ORIGINS=site.base,
        SITE_URL=site.base,
        LOGIN_RATE_IP_LIMIT="3",
        LOGIN_RATE_LIMIT="100",
    )

    def daphne(name):
        port = free_port()
        # The doc's command, with Daphne's access log left on (its default) so that the
        # test can tell which Daphne served what.
        proc = stack.start(
            name,
            "daphne",
            ["--proxy-headers", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            env,
        )
        wait_until(
            lambda: port_open(port) or proc.poll() is not None,
            30,
            f"{name} to listen",
            lambda: stack.log(name)[-3000:],
        )
        assert proc.poll() is None, stack.log(name)[-3000:]
        return f"127.0.0.1:{port}"

    daphnes = [daphne("daphne-1"), daphne("daphne-2")]

    conf = site.directory / "wildcards.conf"
    conf.write_text(
        site_config(
            {
                "SERVER_NAME": "localhost",
                "HTTPS_LISTEN": f"127.0.0.1:{https_port}",
                "HTTP_LISTEN": f"127.0.0.1:{http_port}",
                "DAPHNE_1": daphnes[0],
                "DAPHNE_2": daphnes[1],
                "STATIC_ROOT": str(settings.STATIC_ROOT),
                "TLS_CERTIFICATE": str(certificate),
                "TLS_KEY": str(key),
            }
        )
    )
    main = site.directory / "nginx.conf"
    main.write_text(main_config(site.directory, conf))
    errors = site.directory / "error.log"
    proxy = subprocess.Popen(
        [nginx, "-p", str(site.directory), "-c", str(main), "-e", str(errors), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(
            lambda: port_open(https_port) or proxy.poll() is not None,
            30,
            "nginx to listen",
            lambda: errors.read_text() if errors.exists() else "",
        )
        assert proxy.poll() is None, errors.read_text()
        yield site
    finally:
        proxy.terminate()  # nginx's fast shutdown: the master stops its workers
        proxy.wait(timeout=30)


def _served_requests(log):
    """Daphne's access lines (HTTP requests and websocket handshakes) in its log."""
    return re.findall(r'"(?:GET|POST|HEAD|WSCONNECT) [^"]*"', log)


def test_a_whole_game_played_in_chromium_through_nginx(
    proxied_site, stack, chromium_browser, settings
):
    stack.worker()
    stack.beat()
    # Hashed as the Daphnes check it (the tests' fast hasher is not in their list).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    make_user("ana", display_name="Ana")
    site = proxied_site
    context = chromium_browser.new_context(
        ignore_https_errors=True, viewport={"width": 1100, "height": 850}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)  # a busy machine: each wait is for something to show
    responses = []
    page.on("response", lambda r: responses.append((r.url, r.status, r.headers)))

    page.goto(site.base + "/accounts/login/")
    page.get_by_label("Username").fill("ana")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Play now against three bots").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    # The table's socket, wss:// through nginx's upgrade, is live.
    page.locator("#connection[data-state=live]").wait_for()

    play_to_the_end(page)

    game = Game.objects.get()
    assert game.status == Game.Status.FINISHED
    assert page.get_by_role("heading", name="Final ranking").is_visible()
    # The page's CSS came from nginx's /static/ (its Cache-Control, not WhiteNoise's).
    css = [
        (url, headers)
        for url, status, headers in responses
        if "/static/" in url and url.endswith(".css") and status == 200
    ]
    assert css and all(SEVEN_DAYS in headers.get("cache-control", "") for _, headers in css), css
    status, _, body = site.request("GET", f"/static/{ONLY_NGINX_HAS}")
    assert (status, body) == (200, "served by nginx\n")
    # Both Daphnes answered (nginx spreads requests and sockets over its upstream).
    for name in ("daphne-1", "daphne-2"):
        assert _served_requests(stack.log(name)), stack.log(name)[-2000:]
    # Ready through nginx once the worker's and beat's heartbeats are in (docs/deploy.md).
    wait_until(
        lambda: site.request("GET", "/readyz")[0] == 200,
        90,
        "/readyz through nginx",
        lambda: site.request("GET", "/readyz")[2],
    )
    assert site.request("GET", "/healthz")[:1] == (200,)
    # Plain HTTP is sent to HTTPS.
    status, headers, _ = site.request("GET", "/", https=False)
    assert status == 301 and headers["Location"] == "https://localhost/"


def _failed_login(site, source, username, forged):
    """A log-in with a wrong password from `source`, claiming to be `forged` in its
    X-Forwarded-For; the status of the answer."""
    claimed = {"X-Forwarded-For": forged}
    status, headers, page = site.request("GET", "/accounts/login/", source=source, headers=claimed)
    assert status == 200, page[:500]
    cookie = next(
        c.split(";", 1)[0] for c in headers.get_all("Set-Cookie") if c.startswith("csrftoken=")
    )
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": "not-the-password"}
    )
    status, _, _ = site.request(
        "POST",
        "/accounts/login/",
        source=source,
        body=form,
        headers={
            **claimed,
            "Cookie": cookie,
            "Origin": site.base,
            "Referer": site.base + "/accounts/login/",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    return status


def test_a_made_up_x_forwarded_for_does_not_choose_the_address_log_ins_count_against(proxied_site):
    """A client guessing passwords writes a new X-Forwarded-For on each attempt. Daphne
    (--proxy-headers) takes the first address of that header; nginx replaces it with the
    client's own, so the attempts all count against the sender (LOGIN_RATE_IP_LIMIT, 3
    here), and another client's address is its own, whatever it claims."""
    site = proxied_site
    for n in (1, 2, 3):
        assert _failed_login(site, "127.0.0.3", f"guess{n}", f"10.0.0.{n}") == 400

    assert _failed_login(site, "127.0.0.3", "guess4", "10.0.0.4") == 429
    # Another client claiming to be the blocked one is counted as itself.
    assert _failed_login(site, "127.0.0.4", "guess5", "127.0.0.3") == 400
