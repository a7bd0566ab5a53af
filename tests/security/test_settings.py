"""Production settings: `manage.py check --deploy` finds nothing with the production
environment, the site redirects to HTTPS behind its proxy, and it refuses to start
without what production needs. Each check runs the real settings module in a fresh
process with that environment (the test process itself runs the development defaults)."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "cards.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://cards.example.org",
    "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/wildcards",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def run(args, **env):
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests' support (tests/browser_support.py)
    # for the test process only; a deployment never has it, and check --deploy rightly refuses it.
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in PRODUCTION
        and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
        and not k.startswith(("SECURE_", "SESSION_", "CSRF_"))
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_deploy_check_finds_nothing_with_the_production_environment():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.parametrize(
    "override,warning",
    [
        ({"SESSION_COOKIE_SECURE": "false"}, "security.W012"),
        ({"SECURE_HSTS_SECONDS": "0"}, "security.W004"),
        ({"SECURE_SSL_REDIRECT": "false"}, "security.W008"),
        ({"DEBUG": "true"}, "security.W018"),
    ],
)
def test_the_check_is_real_each_setting_off_is_reported(override, warning):
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **{**PRODUCTION, **override}
    )
    assert result.returncode != 0
    assert warning in result.stdout + result.stderr


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS"])
def test_production_refuses_to_start_without(missing):
    env = {k: v for k, v in PRODUCTION.items() if k != missing}
    result = run(["manage.py", "check"], **env)
    assert result.returncode != 0
    assert f"Set {missing}" in result.stderr


PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.test import Client
client = Client()
plain = client.get("/accounts/login/", HTTP_HOST="cards.example.org")
proxied = client.get("/accounts/login/", HTTP_HOST="cards.example.org",
                     HTTP_X_FORWARDED_PROTO="https")
foreign = client.get("/accounts/login/", HTTP_HOST="evil.example", HTTP_X_FORWARDED_PROTO="https")
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location")],
    "proxied": proxied.status_code,
    "hsts": proxied.get("Strict-Transport-Security"),
    "csrf_cookie": str(proxied.cookies.get("csrftoken")),
    "foreign": foreign.status_code,
    "debug": settings.DEBUG,
}))
"""


def test_behind_the_proxy_http_is_redirected_and_https_served_with_hsts():
    result = run(["-c", PROBE], DJANGO_SETTINGS_MODULE="config.settings", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://cards.example.org/accounts/login/"]
    assert seen["proxied"] == 200
    assert seen["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert "Secure" in seen["csrf_cookie"] and "SameSite=Lax" in seen["csrf_cookie"]
    assert seen["foreign"] == 400  # a Host not in ALLOWED_HOSTS
    assert seen["debug"] is False


def test_the_development_default_stays_plain_http():
    result = run(
        [
            "-c",
            "import django; django.setup(); from django.conf import settings as s; "
            "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
            "s.SECURE_HSTS_SECONDS)",
        ],
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "False", "0"]
