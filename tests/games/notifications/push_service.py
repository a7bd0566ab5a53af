"""A push service of our own for the tests: a real HTTP server in a thread that speaks the
Web Push protocol (RFC 8030) the way the browsers' push services do, and a browser's side
of a subscription (its P-256 key pair and auth secret) so that it can read each message.

For every POST to a subscription's endpoint it checks what a real push service checks
(RFC 8292's VAPID: an ES256 JWT signed by the key in `k`, for the endpoint's origin, not
expired, with a contact; `k` the key the subscription was made with) and what the
protocol needs (a TTL header, Content-Encoding: aes128gcm), then decrypts the body as the
browser would (RFC 8291, with http_ece and the subscription's private key and auth secret)
and records the JSON it carries. It answers 201 Created, or for an endpoint it was told
to: 404, 410 (the subscription is gone), 429, 500.
"""

import base64
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One browser's subscription: the keys only it holds, and its endpoint."""

    endpoint: str
    server_key: str  # the applicationServerKey it subscribed with (the site's VAPID key)
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    id: int = 0  # the site's row for it, once subscribed

    @property
    def p256dh(self) -> str:
        return b64url(
            self.key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )

    def to_json(self) -> dict:
        """What `PushSubscription.toJSON()` gives in a browser."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }


@dataclass
class Received:
    endpoint: str
    message: dict  # the decrypted JSON
    headers: dict
    claims: dict  # the VAPID JWT's


class Refusal(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


class PushService:
    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.received: list[Received] = []
        self.refused: list[tuple[str, int, str]] = []  # (endpoint, status, why)
        self.answers: dict[str, list[int]] = {}  # endpoint -> statuses to answer, in turn
        self.requests = 0
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                service._handle(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "PushService":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def browser(self, server_key: str) -> Browser:
        """A new browser subscribing with the site's VAPID public key `server_key`."""
        browser = Browser(f"{self.origin}/push/{secrets.token_urlsafe(12)}", server_key)
        self.browsers[browser.endpoint] = browser
        return browser

    def answer(self, browser: Browser, *statuses: int) -> None:
        """The next messages to `browser` are answered these statuses (then 201)."""
        self.answers[browser.endpoint] = list(statuses)

    def messages(self, browser: Browser | None = None) -> list[dict]:
        return [
            r.message for r in self.received if browser is None or r.endpoint == browser.endpoint
        ]

    # --- The protocol ------------------------------------------------------------------

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        endpoint = self.origin + request.path
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        with self.lock:
            self.requests += 1
        try:
            browser = self.browsers.get(endpoint)
            if browser is None:
                raise Refusal(404, "no such subscription")
            claims = self._check(request, browser)
            queued = self.answers.get(endpoint)
            if queued:
                status = queued.pop(0)
                raise Refusal(status, "told to")
            message = json.loads(
                http_ece.decrypt(
                    body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
                )
            )
        except Refusal as refusal:
            with self.lock:
                self.refused.append((endpoint, refusal.status, str(refusal)))
            request.send_response(refusal.status)
            request.send_header("Content-Length", "0")
            request.end_headers()
            return
        with self.lock:
            headers = {k.lower(): v for k, v in request.headers.items()}
            self.received.append(Received(endpoint, message, headers, claims))
        request.send_response(201)
        request.send_header("Location", f"{self.origin}/message/{len(self.received)}")
        request.send_header("Content-Length", "0")
        request.end_headers()

    def _check(self, request: BaseHTTPRequestHandler, browser: Browser) -> dict:
        """The headers a push service requires, and the VAPID signature (RFC 8292)."""
        headers = request.headers
        if not (headers.get("TTL") or "").isdigit():
            raise Refusal(400, "TTL header missing")
        if headers.get("Content-Encoding") != "aes128gcm":
            raise Refusal(415, "not aes128gcm")
        scheme, _, params = (headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "vapid":
            raise Refusal(401, "no vapid authorization")
        fields = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        token, key = fields.get("t", ""), fields.get("k", "")
        if key.rstrip("=") != browser.server_key.rstrip("="):
            # The subscription was made for another application server key.
            raise Refusal(403, "k is not the subscription's key")
        try:
            head, payload, signature = token.split(".")
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
            raw = unb64url(signature)
            if len(raw) != 64:
                raise Refusal(401, "ES256 signature must be 64 bytes")
            der = encode_dss_signature(
                int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
            )
            public.verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
        except (ValueError, InvalidSignature) as exc:
            raise Refusal(401, f"bad JWT: {exc!r}") from exc
        if json.loads(unb64url(head)).get("alg") != "ES256":
            raise Refusal(401, "alg must be ES256")
        claims = json.loads(unb64url(payload))
        if claims.get("aud") != self.origin:
            raise Refusal(403, f"aud {claims.get('aud')} is not {self.origin}")
        now = time.time()
        if not now < int(claims.get("exp", 0)) <= now + 24 * 3600:
            raise Refusal(403, "exp missing, past, or more than 24 hours ahead")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise Refusal(403, "sub must be a mailto: or https: contact")
        return claims
