"""The notification tests' set-up: the site's VAPID key, the local push service, and
browsers subscribed through the site's own subscribe endpoint."""

from datetime import timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.test import Client
from django.urls import reverse

from accounts import vapid
from tests.games.clock_support import START, travel
from tests.games.notifications.push_service import PushService

SITE = "https://cards.example"
# One key for the whole run: made here, never kept in the repository.
KEY = (
    ec.generate_private_key(ec.SECP256R1())
    .private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    .decode()
)


@pytest.fixture
def push_service(settings):
    """The local push service, and the site set to send to it (http, its host)."""
    settings.SITE_URL = SITE
    settings.VAPID_PRIVATE_KEY = KEY
    settings.VAPID_SUBJECT = "mailto:admin@cards.example"
    settings.WEBPUSH_ALLOW_HTTP = True
    settings.WEBPUSH_HOSTS = ["127.0.0.1"]
    with PushService() as service:
        yield service


@pytest.fixture
def subscribe(push_service):
    """subscribe(user) -> a Browser whose subscription the site took, posted to the
    subscribe endpoint as static/js/push.js does (JSON, the CSRF header). By default a day
    before the tests' frozen clock starts: the visit is long over when their games begin."""

    def subscribe(
        user, user_agent="Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile", moment=None
    ):
        with travel(moment or START - timedelta(days=1)):
            return _subscribe(user, user_agent)

    def _subscribe(user, user_agent):
        browser = push_service.browser(vapid.public_key())
        client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=user_agent)
        client.force_login(user)
        client.get(reverse("accounts:profile"))
        answer = client.post(
            reverse("accounts:push_subscribe"),
            browser.to_json(),
            content_type="application/json",
            headers={"X-CSRFToken": client.cookies["csrftoken"].value},
        )
        assert answer.status_code == 201, answer.content
        browser.id = answer.json()["id"]
        return browser

    return subscribe
