import re

import pytest
from django.core import mail
from django.test import Client
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


def sign_up(data):
    """Signs up from a fresh browser; returns its answer and the page it leads to."""
    client = Client()
    response = client.post(reverse("accounts:signup"), data)
    return client, response, client.get(response["Location"])


def comparable(page, *words):
    """The page without what varies from one request to the next (CSRF tokens) and with
    `words` (names, addresses) blanked."""
    html = re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]*"', r"\1", page)
    for word in words:
        html = html.replace(word, "WORD")
    return html


def test_it_answers_a_sign_up_with_a_taken_address_exactly_like_one_with_a_free_address(ana):
    free = sign_up(signup_data(username="newbie", email="newbie@example.com"))
    taken = sign_up(signup_data(username="rookie", email="ANA@example.com"))

    (free_client, free_answer, free_page), (taken_client, taken_answer, taken_page) = free, taken
    assert taken_answer.status_code == free_answer.status_code == 302
    assert taken_answer["Location"] == free_answer["Location"]
    assert "We sent a confirmation link to ana@example.com" in taken_page.content.decode()
    assert comparable(taken_page.content.decode(), "ana@example.com") == comparable(
        free_page.content.decode(), "newbie@example.com"
    )
    # The profile, where the address shows, tells them apart no more.
    free_profile = free_client.get(reverse("accounts:profile")).content.decode()
    taken_profile = taken_client.get(reverse("accounts:profile")).content.decode()
    assert comparable(taken_profile, "ana@example.com", "rookie") == comparable(
        free_profile, "newbie@example.com", "newbie"
    )


def test_it_tells_the_owner_of_a_taken_address_once_and_leaves_their_account_alone(ana):
    before = User.objects.filter(pk=ana.pk).values().get()

    sign_up(signup_data(email="ANA@example.com"))

    assert User.objects.filter(pk=ana.pk).values().get() == before
    assert len(mail.outbox) == 1
    notice = mail.outbox[0]
    assert notice.to == ["ana@example.com"]
    assert "tried to sign up" in notice.body
    assert "/accounts/confirm/" not in notice.body
    assert "newbie" not in notice.body
    newbie = User.objects.get(username="newbie")
    assert newbie.email is None
    assert newbie.pending_email == "ana@example.com"
    assert not newbie.email_confirmed


def test_the_new_account_cannot_get_a_taken_address_attached(client, ana, settings):
    settings.CONFIRM_RESEND_INTERVAL = 0
    client.post(reverse("accounts:signup"), signup_data(email="ana@example.com"))

    response = client.post(reverse("accounts:resend_confirmation"))

    assert response.status_code == 302
    assert [m.to for m in mail.outbox] == [["ana@example.com"]]  # the notice, and no link
    assert "/accounts/confirm/" not in mail.outbox[0].body
    assert User.objects.get(username="newbie").email is None


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
