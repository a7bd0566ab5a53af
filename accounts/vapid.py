"""The site's VAPID key (RFC 8292): what signs every Web Push request, and the public key
a browser subscribes with (docs/notifications.md).

From VAPID_PRIVATE_KEY (a PEM, or the base64url of the raw 32-byte private number) when
set. Without it, and only with DEBUG on, a key is generated once into
var/vapid_private.pem and kept there, as the embedded SECRET_KEY is for development: a
browser's subscription is tied to the public key, so a key made again at each start would
orphan every device. With DEBUG off and no key, Web Push is off: no key is offered to the
pages and nothing is sent (a key per web process would break every subscription).
"""

import base64
import os
import secrets
from functools import cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _parse(text: str) -> ec.EllipticCurvePrivateKey:
    """A PEM private key, or the base64url of the raw private number (what `vapid
    --gen` and most guides print)."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
    else:
        raw = b64url_decode(text)
        if len(raw) != 32:
            # A DER key in base64url, as py-vapid also accepts.
            key = serialization.load_der_private_key(raw, password=None)
        else:
            key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ValueError("VAPID_PRIVATE_KEY must be a P-256 (prime256v1) private key")
    return key


def _generated(path: Path) -> ec.EllipticCurvePrivateKey:
    """The development key in `path`, made the first time: written aside, then linked into
    place, so two processes starting at once keep one key and neither reads half a file."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        # A name of this call's own: threads of one process share its pid, and one's
        # truncating write under a shared name could change the file another just linked.
        aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}")
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(pem)
        try:
            os.link(aside, path)
        except FileExistsError:
            pass
        finally:
            aside.unlink()
    return _parse(path.read_text())


@cache
def _load(private: str, key_file: str) -> ec.EllipticCurvePrivateKey | None:
    if private:
        return _parse(private)
    if key_file:  # set only with DEBUG on (config/settings.py)
        return _generated(Path(key_file))
    return None


def private_key() -> ec.EllipticCurvePrivateKey | None:
    """The site's VAPID private key, or None when Web Push is off (read once per
    setting's value)."""
    return _load(settings.VAPID_PRIVATE_KEY, settings.VAPID_KEY_FILE)


def private_pem() -> bytes | None:
    key = private_key()
    if key is None:
        return None
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_key() -> str:
    """The base64url of the public key's uncompressed point (65 bytes), the
    `applicationServerKey` a browser subscribes with; "" when Web Push is off."""
    key = private_key()
    if key is None:
        return ""
    return b64url(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


def enabled() -> bool:
    return private_key() is not None
