"""A browser's Web Push subscription, as the site keeps it (docs/notifications.md): what
`POST /accounts/push/subscribe/` checks and stores, and the device's name on the profile.

The site later POSTs to the endpoint a browser gave (games.actions.webpush), so the
address is checked like any URL a user hands a server: https only (http only with
WEBPUSH_ALLOW_HTTP, the tests' local push service), no user or password in it, and a host
of a known push service (WEBPUSH_HOSTS) so that no account can make the site post to an
address of its choosing. The keys must be what RFC 8291 encrypts to: a P-256 public key as
an uncompressed point and a 16-byte auth secret.
"""

import re
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.db.models.functions import Coalesce

from .models import PushSubscription, User
from .vapid import b64url_decode

BASE64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")


class Refused(ValueError):
    """A subscription the site does not take; the message says why, to the browser."""


def _key(value: object, name: str) -> bytes:
    if not isinstance(value, str) or not value or len(value) > 200 or not BASE64URL.match(value):
        raise Refused(f"keys.{name} must be base64url")
    return b64url_decode(value.rstrip("="))


def _host_allowed(host: str) -> bool:
    allowed = settings.WEBPUSH_HOSTS
    if not allowed:
        return True
    return any(host == suffix or host.endswith("." + suffix) for suffix in allowed)


def check_endpoint(endpoint: object) -> str:
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > 1000:
        raise Refused("endpoint must be a URL of at most 1000 characters")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as exc:
        raise Refused("endpoint is not a URL") from exc
    schemes = ("https", "http") if settings.WEBPUSH_ALLOW_HTTP else ("https",)
    if parts.scheme not in schemes:
        raise Refused("endpoint must be an https URL")
    if not parts.hostname or parts.username or parts.password or port == 0:
        raise Refused("endpoint must name a host, and no user or password")
    if not _host_allowed(parts.hostname.lower()):
        raise Refused("endpoint is not a known push service")
    return endpoint


def check(data: object) -> tuple[str, str, str]:
    """(endpoint, p256dh, auth) of a `PushSubscription.toJSON()`, or Refused."""
    if not isinstance(data, dict):
        raise Refused("expected the subscription's JSON")
    endpoint = check_endpoint(data.get("endpoint"))
    keys = data.get("keys")
    if not isinstance(keys, dict):
        raise Refused("keys missing")
    point = _key(keys.get("p256dh"), "p256dh")
    if len(point) != 65 or point[0] != 4:
        raise Refused("keys.p256dh must be an uncompressed P-256 point")
    try:
        # Refuses a point that is not on the curve (an invalid-curve attack on the ECDH).
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as exc:
        raise Refused("keys.p256dh is not a point of P-256") from exc
    if len(_key(keys.get("auth"), "auth")) != 16:
        raise Refused("keys.auth must be 16 bytes")
    return endpoint, keys["p256dh"].rstrip("="), keys["auth"].rstrip("=")


# (what the User-Agent holds, the name shown), in the order they are tried: Edge, Opera and
# Samsung's browser say "Chrome" too, and Chrome says "Safari".
BROWSERS = (
    ("Edg", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Macintosh", "macOS"),
    ("Linux", "Linux"),
)


def label(user_agent: str) -> str:
    """ "Chrome on Android": the browser and the system a User-Agent names, as far as it
    says; the profile's name for a device, nothing more is read from it."""
    browser = next((name for mark, name in BROWSERS if mark in user_agent), "A browser")
    system = next((name for mark, name in SYSTEMS if mark in user_agent), "")
    return f"{browser} on {system}" if system else browser


def subscribe(user: User, data: object, user_agent: str = "") -> tuple[PushSubscription, bool]:
    """Stores the browser's subscription for `user`: (row, created). The same endpoint
    again updates its keys; an endpoint another account holds moves to `user` (one browser,
    one account: the person now logged in on it). Past WEBPUSH_MAX_DEVICES the account's
    device least recently reached goes."""
    endpoint, p256dh, auth = check(data)
    with transaction.atomic():
        row = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        created = row is None or row.user_id != user.pk
        if row is None:
            row = PushSubscription(endpoint=endpoint)
        if created:
            row.user = user
            row.last_success_at = None
            row.failures = 0
        row.p256dh, row.auth, row.label = p256dh, auth, label(user_agent)[:80]
        row.save()
        mine = PushSubscription.objects.filter(user=user).order_by(
            Coalesce("last_success_at", "created_at").desc(), "-pk"
        )
        extra = list(
            mine.exclude(pk=row.pk).values_list("pk", flat=True)[settings.WEBPUSH_MAX_DEVICES - 1 :]
        )
        if extra:
            PushSubscription.objects.filter(pk__in=extra).delete()
    return row, created
