"""The subscribe and remove endpoints: what a browser may register, and what an account
may remove. The site POSTs to whatever endpoint it keeps, so the checks guard against an
account turning the site into a client of an address of its choosing (SSRF), against keys
the encryption cannot use (an off-curve point: the invalid-curve attack on ECDH), and one
account reading or removing another's devices."""

import base64

import pytest
from django.test import Client
from django.urls import reverse

from accounts import push, vapid
from accounts.models import PushSubscription
from tests.games.notifications.push_service import Browser

pytestmark = pytest.mark.django_db

SUBSCRIBE = "/accounts/push/subscribe/"
CHROME_ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def device(push_service):
    return push_service.browser(vapid.public_key())


def client_of(user, csrf=True):
    client = Client(enforce_csrf_checks=csrf, HTTP_USER_AGENT=CHROME_ANDROID)
    client.force_login(user)
    client.get(reverse("accounts:profile"))
    return client


def post(client, data, **extra):
    token = client.cookies["csrftoken"].value if "csrftoken" in client.cookies else ""
    return client.post(
        SUBSCRIBE,
        data,
        content_type="application/json",
        headers={"X-CSRFToken": token},
        **extra,
    )


def test_the_urls_are_the_ones_the_web_app_uses():
    assert reverse("accounts:push_subscribe") == SUBSCRIBE
    assert reverse("accounts:push_remove", args=[7]) == "/accounts/push/7/remove/"


def test_a_subscription_is_kept_once_with_its_device_name(ana, device):
    client = client_of(ana)
    first = post(client, device.to_json())
    assert first.status_code == 201
    again = post(client, device.to_json())  # the page sends it again: same row
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    (row,) = PushSubscription.objects.filter(user=ana)
    assert (row.endpoint, row.p256dh, row.label) == (
        device.endpoint,
        device.p256dh,
        "Chrome on Android",
    )
    assert base64.urlsafe_b64decode(row.auth + "==") == device.auth


def test_a_shared_browser_moves_to_the_account_logged_in_now(ana, bo, device):
    """Ana logged out, Bo logged in on the same browser: the device is Bo's, not both."""
    assert post(client_of(ana), device.to_json()).status_code == 201
    answer = post(client_of(bo), device.to_json())
    assert answer.status_code == 201
    assert list(PushSubscription.objects.values_list("user__username", flat=True)) == ["bo"]


def bad(device, **change):
    data = device.to_json()
    keys = data["keys"]
    for name, value in change.items():
        if name in ("p256dh", "auth"):
            keys[name] = value
        else:
            data[name] = value
    return data


@pytest.mark.parametrize(
    "change, why",
    [
        ({"endpoint": "https://evil.example/push/1"}, "not a known push service"),  # SSRF
        ({"endpoint": "https://127.0.0.1.evil.example/x"}, "not a known push service"),
        ({"endpoint": "ftp://127.0.0.1/x"}, "https"),
        ({"endpoint": "https://user:pw@127.0.0.1/x"}, "no user or password"),
        ({"endpoint": "https://127.0.0.1/" + "x" * 1000}, "at most 1000"),
        ({"endpoint": 42}, "URL"),
        ({"p256dh": b64(b"\x04" + b"\x01" * 64)}, "not a point of P-256"),  # off the curve
        ({"p256dh": b64(b"\x02" + b"\x01" * 32)}, "uncompressed"),  # compressed
        ({"p256dh": "not base64!"}, "base64url"),
        ({"auth": b64(b"\x00" * 15)}, "16 bytes"),
        ({"auth": ""}, "base64url"),
        ({"keys": None}, "keys missing"),
    ],
)
def test_a_subscription_the_site_cannot_use_is_refused(ana, device, change, why):
    answer = post(client_of(ana), bad(device, **change))
    assert answer.status_code == 400
    assert why in answer.json()["detail"]
    assert not PushSubscription.objects.exists()


def test_not_json_is_refused(ana, device):
    client = client_of(ana)
    answer = client.post(
        SUBSCRIBE,
        "endpoint=x",
        content_type="application/json",
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )
    assert answer.status_code == 400


def test_http_only_when_allowed(ana, device, settings):
    """A push service's address is https; the tests' local one is the one exception."""
    settings.WEBPUSH_ALLOW_HTTP = False
    assert post(client_of(ana), device.to_json()).status_code == 400
    settings.WEBPUSH_ALLOW_HTTP = True
    assert post(client_of(ana), device.to_json()).status_code == 201


def test_a_real_push_service_address_is_taken(settings):
    settings.WEBPUSH_ALLOW_HTTP = False
    settings.WEBPUSH_HOSTS = ["fcm.googleapis.com", "push.apple.com"]
    assert push.check_endpoint("https://fcm.googleapis.com/fcm/send/abc")
    assert push.check_endpoint("https://web.push.apple.com/QO")
    with pytest.raises(push.Refused):
        push.check_endpoint("https://fcm.googleapis.com.evil.example/x")


def test_the_subscribe_needs_a_login_and_the_csrf_token(ana, device):
    anonymous = Client()
    answer = anonymous.post(SUBSCRIBE, device.to_json(), content_type="application/json")
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    client = client_of(ana)
    forged = client.post(SUBSCRIBE, device.to_json(), content_type="application/json")
    assert forged.status_code == 403  # a cross-site post without the token
    assert not PushSubscription.objects.exists()


def test_an_account_keeps_at_most_its_limit_of_devices(ana, push_service, settings):
    settings.WEBPUSH_MAX_DEVICES = 3
    client = client_of(ana)
    ids = [
        post(client, push_service.browser(vapid.public_key()).to_json()).json()["id"]
        for _ in range(5)
    ]
    kept = set(PushSubscription.objects.filter(user=ana).values_list("pk", flat=True))
    assert kept == set(ids[-3:])


def test_one_removes_ones_own_device_and_not_another_accounts(ana, bo, device, push_service):
    """Another account's device id is not found (404): no removal, and no telling it exists."""
    ana_client = client_of(ana)
    ana_id = post(ana_client, device.to_json()).json()["id"]
    bo_client = client_of(bo)
    bo_id = post(bo_client, push_service.browser(vapid.public_key()).to_json()).json()["id"]
    token = {"X-CSRFToken": bo_client.cookies["csrftoken"].value}
    refused = bo_client.post(reverse("accounts:push_remove", args=[ana_id]), headers=token)
    assert refused.status_code == 404
    assert PushSubscription.objects.filter(pk=ana_id).exists()
    missing = bo_client.post(reverse("accounts:push_remove", args=[ana_id + 999]), headers=token)
    assert missing.status_code == 404
    done = bo_client.post(reverse("accounts:push_remove", args=[bo_id]), headers=token)
    assert done.status_code == 302 and done["Location"] == reverse("accounts:profile")
    assert not PushSubscription.objects.filter(pk=bo_id).exists()
    assert bo_client.get(reverse("accounts:push_remove", args=[ana_id])).status_code == 405


def test_the_profile_lists_ones_own_devices_only(ana, bo, device, push_service):
    post(client_of(ana), device.to_json())
    post(client_of(bo), push_service.browser(vapid.public_key()).to_json())
    page = client_of(ana).get(reverse("accounts:profile"))
    devices = page.context["push_devices"]
    assert [(d.user_id, d.label) for d in devices] == [(ana.pk, "Chrome on Android")]
    assert page.context["VAPID_PUBLIC_KEY"] == vapid.public_key()


def test_the_profile_form_keeps_push_choices_a_post_does_not_carry(ana):
    """A profile post without the push fields (an old page) changes none of them; one
    with them sets them."""
    from accounts.forms import ProfileForm

    ana.turn_push, ana.notify_reminder_push = "digest", True
    ana.save()
    base = {"display_name": "", "email": ana.email, "time_zone": "UTC", "turn_email": "none"}
    base["digest_hour"] = 8
    form = ProfileForm(base, instance=ana)
    assert form.is_valid(), form.errors
    form.save()
    ana.refresh_from_db()
    assert (ana.turn_push, ana.notify_reminder_push) == ("digest", True)
    form = ProfileForm({**base, "turn_push": "none"}, instance=ana)
    assert form.is_valid(), form.errors
    form.save()
    ana.refresh_from_db()
    assert (ana.turn_push, ana.notify_reminder_push) == ("none", False)


@pytest.mark.parametrize(
    "agent, name",
    [
        (CHROME_ANDROID, "Chrome on Android"),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            "Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Firefox on Windows",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like "
            "Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Chrome on macOS",
        ),
        ("curl/8.5", "A browser"),
        ("", "A browser"),
    ],
)
def test_device_names(agent, name):
    assert push.label(agent) == name


def test_a_browser_subscribed_to_an_old_key_is_refused_by_the_push_service(
    ana, push_service, subscribe, four
):
    """What the local push service checks is real: a message signed with another VAPID key
    than the subscription's is refused (403), as a real push service refuses it."""
    stale = Browser(push_service.origin + "/push/stale", server_key=b64(b"\x04" + b"\x00" * 64))
    push_service.browsers[stale.endpoint] = stale
    PushSubscription.objects.create(
        user=ana, endpoint=stale.endpoint, p256dh=stale.p256dh, auth=b64(stale.auth)
    )
    from games.actions import webpush

    delivery = webpush.send(ana.pk, {"title": "t", "body": "b", "url": "u", "tag": "g"})
    assert (delivery.sent, delivery.failed) == (0, 1)
    assert push_service.refused == [(stale.endpoint, 403, "k is not the subscription's key")]
