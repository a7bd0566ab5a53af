"""The site's VAPID key: read from VAPID_PRIVATE_KEY in either form people hand it over,
made once and kept for development (a key made again would orphan every device), and no
push at all when a deployment has none."""

import base64
import threading

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from accounts import vapid
from games.actions import webpush
from tests.conftest import make_user


def pem_of(key):
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def test_a_pem_and_the_raw_base64url_key_are_the_same_key(settings):
    key = ec.generate_private_key(ec.SECP256R1())
    raw = key.private_numbers().private_value.to_bytes(32, "big")
    settings.VAPID_PRIVATE_KEY = pem_of(key)
    from_pem = vapid.public_key()
    settings.VAPID_PRIVATE_KEY = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    assert vapid.public_key() == from_pem
    point = base64.urlsafe_b64decode(from_pem + "=")
    assert len(point) == 65 and point[0] == 4  # what applicationServerKey takes


def test_a_key_of_another_curve_is_refused(settings):
    settings.VAPID_PRIVATE_KEY = pem_of(ec.generate_private_key(ec.SECP384R1()))
    with pytest.raises(ValueError, match="P-256"):
        vapid.public_key()


def test_the_development_key_is_made_once_and_kept(settings, tmp_path):
    """Several processes starting at once keep one key, and the next start reads it."""
    settings.VAPID_PRIVATE_KEY = ""
    path = tmp_path / "var" / "vapid_private.pem"
    keys = []

    def make():
        keys.append(vapid._generated(path))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    publics = {k.public_key().public_numbers() for k in keys}
    assert len(publics) == 1
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in path.parent.iterdir()] == ["vapid_private.pem"]
    settings.VAPID_KEY_FILE = str(path)
    assert vapid.private_key().public_key().public_numbers() in publics


@pytest.mark.django_db
def test_without_a_key_outside_debug_web_push_is_off(settings, client):
    settings.VAPID_PRIVATE_KEY = ""
    settings.VAPID_KEY_FILE = ""  # what config/settings.py sets with DEBUG off
    assert vapid.public_key() == "" and not vapid.enabled()
    ana = make_user("ana")
    client.force_login(ana)
    assert client.get("/accounts/profile/").context["VAPID_PUBLIC_KEY"] == ""
    assert webpush.send(ana.pk, {"title": "", "body": "", "url": "", "tag": ""}).sent == 0
