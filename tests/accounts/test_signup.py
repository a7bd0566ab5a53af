import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import User
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def signup_data(**overrides):
    data = {
        "username": "newbie",
        "email": "newbie@example.com",
        "display_name": "New Bee",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data.update(overrides)
    return data


def test_it_creates_the_account_logs_in_and_sends_a_confirmation_link(client):
    response = client.post(reverse("accounts:signup"), signup_data())

    assert response.status_code == 302
    user = User.objects.get(username="newbie")
    assert user.email == "newbie@example.com"
    assert not user.email_confirmed
    assert client.get(reverse("accounts:profile")).status_code == 200
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["newbie@example.com"]
    assert "/accounts/confirm/" in mail.outbox[0].body


@pytest.mark.parametrize(
    "password, message",
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("8472619305731", "entirely numeric"),
        ("newbie12", "too similar"),
    ],
)
def test_it_applies_the_password_validators(client, password, message):
    response = client.post(
        reverse("accounts:signup"), signup_data(password1=password, password2=password)
    )

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not User.objects.filter(username="newbie").exists()


def test_it_refuses_an_email_address_already_in_use(client, ana):
    response = client.post(reverse("accounts:signup"), signup_data(email="ANA@example.com"))

    assert "already exists" in response.content.decode()
    assert not User.objects.filter(username="newbie").exists()


def test_it_refuses_mismatched_passwords(client):
    response = client.post(reverse("accounts:signup"), signup_data(password2=PASSWORD + "x"))

    assert response.status_code == 400
    assert not User.objects.filter(username="newbie").exists()


def test_sign_ups_from_one_address_are_rate_limited(client, settings):
    settings.SIGNUP_RATE_LIMIT = 2
    for n in range(2):
        client.post(reverse("accounts:signup"), signup_data(username=f"u{n}", email=f"u{n}@e.org"))
        client.post(reverse("accounts:logout"))

    response = client.post(reverse("accounts:signup"), signup_data())

    assert response.status_code == 429
    assert "Too many sign-ups" in response.content.decode()
    assert not User.objects.filter(username="newbie").exists()
    assert User.objects.count() == 2
