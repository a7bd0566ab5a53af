import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import User
from accounts.tokens import make_email_token
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def profile_data(user, **overrides):
    data = {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": user.time_zone,
        "turn_email": "immediate",
        "digest_hour": "8",
        "notify_reminder_email": "on",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_a_player_sets_display_name_time_zone_and_notifications(client, ana):
    client.force_login(ana)

    response = client.post(
        reverse("accounts:profile"),
        profile_data(
            ana,
            display_name="Ana B.",
            time_zone="Europe/Lisbon",
            notify_reminder_email=None,
            turn_email="digest",
            digest_hour="19",
        ),
    )

    assert response.status_code == 302
    ana.refresh_from_db()
    assert ana.display_name == "Ana B."
    assert ana.time_zone == "Europe/Lisbon"
    assert (ana.turn_email, ana.digest_hour) == ("digest", 19)
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


def confirmation_path(message):
    return re.search(r"http://[^/\s]+(/accounts/confirm/\S+/)", message.body).group(1)


def test_a_new_address_is_attached_only_once_its_link_is_followed(client, ana):
    ana.email_confirmed = True
    ana.save()
    old_token = make_email_token(ana)
    client.force_login(ana)

    client.post(reverse("accounts:profile"), profile_data(ana, email="ana.new@example.com"))

    ana.refresh_from_db()
    assert (ana.email, ana.email_confirmed) == ("ana@example.com", True)
    assert ana.pending_email == "ana.new@example.com"
    assert mail.outbox[-1].to == ["ana.new@example.com"]
    # A link sent for the old address attaches nothing new.
    client.get(reverse("accounts:confirm_email", args=[old_token]))
    ana.refresh_from_db()
    assert ana.email == "ana@example.com"

    response = client.get(confirmation_path(mail.outbox[-1]))

    assert response.status_code == 200
    ana.refresh_from_db()
    assert (ana.email, ana.email_confirmed, ana.pending_email) == ("ana.new@example.com", True, "")
    assert client.get(reverse("accounts:confirm_email", args=[old_token])).status_code == 400


def change_email(client, user, address):
    """Posts the profile with a new address; returns the answer and the page it leads to."""
    response = client.post(reverse("accounts:profile"), profile_data(user, email=address))
    return response, client.get(response["Location"])


def comparable(page, *words):
    """The page without its CSRF tokens (they vary) and with `words` blanked."""
    html = re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]*"', r"\1", page)
    for word in words:
        html = html.replace(word, "WORD")
    return html


def test_it_answers_a_change_to_a_taken_address_exactly_like_one_to_a_free_address(client, ana, bo):
    client.force_login(ana)

    taken_answer, taken_page = change_email(client, ana, "BO@example.com")
    User.objects.filter(pk=ana.pk).update(pending_email="")
    free_answer, free_page = change_email(client, ana, "ana.new@example.com")

    assert taken_answer.status_code == free_answer.status_code == 302
    assert taken_answer["Location"] == free_answer["Location"]
    assert "Please confirm bo@example.com" in taken_page.content.decode()
    assert comparable(taken_page.content.decode(), "bo@example.com") == comparable(
        free_page.content.decode(), "ana.new@example.com"
    )


def test_it_tells_the_owner_of_a_taken_address_once_and_attaches_nothing(client, ana, bo):
    before = User.objects.filter(pk=bo.pk).values().get()
    client.force_login(ana)

    change_email(client, ana, "bo@example.com")

    assert User.objects.filter(pk=bo.pk).values().get() == before
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["bo@example.com"]
    assert "another Wild Cards Teams account" in mail.outbox[0].body
    assert "/accounts/confirm/" not in mail.outbox[0].body
    assert "ana" not in mail.outbox[0].body.lower()
    ana.refresh_from_db()
    assert ana.email == "ana@example.com"


def test_a_link_for_an_address_attached_elsewhere_meanwhile_attaches_nothing(client, ana):
    client.force_login(ana)
    change_email(client, ana, "shared@example.com")
    make_user("zed", email="shared@example.com")

    response = client.get(confirmation_path(mail.outbox[-1]))

    assert response.status_code == 400
    ana.refresh_from_db()
    assert ana.email == "ana@example.com"


def test_it_refuses_email_changes_past_the_limit(client, ana, settings):
    settings.EMAIL_CHANGE_RATE_LIMIT = 2
    client.force_login(ana)
    for n in range(2):
        assert change_email(client, ana, f"ana{n}@example.com")[0].status_code == 302

    response = client.post(
        reverse("accounts:profile"),
        profile_data(ana, email="ana9@example.com", display_name="Changed"),
    )

    assert response.status_code == 429
    assert (
        "You have changed your email address too many times. You can change it again in 24 hours."
    ) in response.content.decode()
    ana.refresh_from_db()
    assert (ana.email, ana.pending_email, ana.display_name) == (
        "ana@example.com",
        "ana1@example.com",
        "Ana",
    )
    assert len(mail.outbox) == 2
    # The rest of the profile can still be saved.
    response = client.post(
        reverse("accounts:profile"),
        profile_data(ana, email="ana1@example.com", display_name="Changed"),
    )
    assert response.status_code == 302


def test_the_profile_needs_a_log_in(client):
    response = client.get(reverse("accounts:profile"))

    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]
