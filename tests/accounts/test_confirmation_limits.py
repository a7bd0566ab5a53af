"""Confirmation links: one per interval and a few a day per account, whoever asks for
them (the resend button, an email change, sign-up)."""

import pytest
import time_machine
from django.core import mail
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

STRANGER = "stranger@example.com"


def use_a_cache_whose_clock_moves(settings):
    # The windows are measured by the cache's clock: Redis keeps real time, the
    # in-process cache follows time-machine.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "confirmation-limits",
        }
    }


def point_profile_at(client, user, address):
    data = {
        "display_name": user.display_name,
        "email": address,
        "time_zone": user.time_zone,
        "turn_email": "immediate",
        "digest_hour": "8",
        "notify_reminder_email": "on",
    }
    assert client.post(reverse("accounts:profile"), data).status_code == 302


def resend(client):
    return client.post(reverse("accounts:resend_confirmation"))


def mails_to(address):
    return [m for m in mail.outbox if m.to == [address]]


def test_it_refuses_resends_within_the_interval_and_sends_nothing(client, ana, settings):
    use_a_cache_whose_clock_moves(settings)
    with time_machine.travel("2030-01-01 12:00", tick=False):
        client.force_login(ana)
        point_profile_at(client, ana, STRANGER)

        answers = [resend(client) for _ in range(10)]

    assert [a.status_code for a in answers] == [429] * 10
    assert len(mails_to(STRANGER)) == 1  # the one the change itself sent
    assert "We sent you a confirmation link less than 5 minutes ago" in answers[0].content.decode()
    assert "You can ask for another in 5 minutes." in answers[0].content.decode()


def test_it_sends_one_more_link_once_the_interval_is_over(client, ana, settings):
    use_a_cache_whose_clock_moves(settings)
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        client.force_login(ana)
        point_profile_at(client, ana, STRANGER)
        clock.shift(200)
        assert "in 2 minutes" in resend(client).content.decode()
        clock.shift(101)

        assert resend(client).status_code == 302
        assert resend(client).status_code == 429

    assert len(mails_to(STRANGER)) == 2


def test_it_holds_the_daily_cap_across_intervals(client, ana, settings):
    use_a_cache_whose_clock_moves(settings)
    settings.CONFIRM_RESEND_DAILY = 3
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        client.force_login(ana)
        point_profile_at(client, ana, STRANGER)
        statuses = []
        for _ in range(5):
            clock.shift(301)
            statuses.append(resend(client).status_code)
        refused = resend(client).content.decode()
        assert len(mails_to(STRANGER)) == 3
        assert statuses == [302, 302, 429, 429, 429]
        assert "We have sent you 3 confirmation emails today" in refused
        assert "You can ask for another in 24 hours." in refused

        clock.shift(24 * 3600)
        assert resend(client).status_code == 302

    assert len(mails_to(STRANGER)) == 4


def test_the_sign_up_link_counts_too(client, settings):
    use_a_cache_whose_clock_moves(settings)
    with time_machine.travel("2030-01-01 12:00", tick=False):
        client.post(
            reverse("accounts:signup"),
            {
                "username": "newbie",
                "email": STRANGER,
                "display_name": "",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )

        response = resend(client)

    assert response.status_code == 429
    assert len(mails_to(STRANGER)) == 1


def test_a_resend_to_an_address_in_use_answers_like_any_and_mails_its_owner_no_more(
    client, ana, bo, settings
):
    use_a_cache_whose_clock_moves(settings)
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        client.force_login(ana)
        point_profile_at(client, ana, "bo@example.com")
        clock.shift(301)

        response = resend(client)
        page = client.get(response["Location"]).content.decode()
        refused = resend(client)

    assert response.status_code == 302
    assert "We sent a new confirmation link to bo@example.com." in page
    assert refused.status_code == 429  # the interval runs as for a free address
    assert len(mails_to("bo@example.com")) == 1  # the notice, once
