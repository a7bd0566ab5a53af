import pytest
from django.core import mail
from django.urls import reverse

from accounts.tokens import make_email_token

pytestmark = pytest.mark.django_db


def profile_data(user, **overrides):
    data = {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": user.time_zone,
        "notify_turn_email": "on",
        "notify_reminder_email": "on",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_a_player_sets_display_name_time_zone_and_notifications(client, ana):
    client.force_login(ana)

    response = client.post(
        reverse("accounts:profile"),
        profile_data(ana, display_name="Ana B.", time_zone="Europe/Lisbon",
                     notify_reminder_email=None),
    )

    assert response.status_code == 302
    ana.refresh_from_db()
    assert ana.display_name == "Ana B."
    assert ana.time_zone == "Europe/Lisbon"
    assert ana.notify_turn_email is True
    assert ana.notify_reminder_email is False


def test_it_refuses_an_unknown_time_zone(client, ana):
    client.force_login(ana)

    response = client.post(reverse("accounts:profile"), profile_data(ana, time_zone="Mars/Olympus"))

    assert response.status_code == 400
    ana.refresh_from_db()
    assert ana.time_zone == "UTC"


def test_the_confirmation_link_confirms_the_address(client, ana):
    response = client.get(reverse("accounts:confirm_email", args=[make_email_token(ana)]))

    assert response.status_code == 200
    ana.refresh_from_db()
    assert ana.email_confirmed


def test_a_tampered_confirmation_link_confirms_nothing(client, ana):
    token = make_email_token(ana)

    response = client.get(reverse("accounts:confirm_email", args=[token[:-2] + "xx"]))

    assert response.status_code == 400
    ana.refresh_from_db()
    assert not ana.email_confirmed


def test_changing_the_email_needs_a_new_confirmation(client, ana):
    ana.email_confirmed = True
    ana.save()
    old_token = make_email_token(ana)
    client.force_login(ana)

    client.post(reverse("accounts:profile"), profile_data(ana, email="ana.new@example.com"))

    ana.refresh_from_db()
    assert ana.email == "ana.new@example.com"
    assert not ana.email_confirmed
    assert mail.outbox[-1].to == ["ana.new@example.com"]
    # A link sent for the old address no longer confirms anything.
    assert client.get(reverse("accounts:confirm_email", args=[old_token])).status_code == 400
    ana.refresh_from_db()
    assert not ana.email_confirmed


def test_the_profile_needs_a_log_in(client):
    response = client.get(reverse("accounts:profile"))

    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]
