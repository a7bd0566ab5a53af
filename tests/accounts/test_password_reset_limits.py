"""Password-reset emails are limited per email address (silently: the answer is the same
whether or not a mail went out, or an account uses the address) and per client address."""

import pytest
import time_machine
from django.core import mail
from django.urls import reverse

pytestmark = pytest.mark.django_db

DONE = reverse("accounts:password_reset_done")


def use_a_cache_whose_clock_moves(settings):
    # The windows are measured by the cache's clock: Redis keeps real time, the
    # in-process cache follows time-machine.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "password-reset-limits",
        }
    }


def ask(client, address, ip="203.0.113.7"):
    return client.post(reverse("accounts:password_reset"), {"email": address}, REMOTE_ADDR=ip)


def answer(response):
    return response.status_code, response.get("Location")


def test_ten_anonymous_posts_for_one_address_send_it_only_the_limit(client, ana, settings):
    """The attack: ten posts in a row for ana's address sent her ten emails."""
    settings.PASSWORD_RESET_RATE_LIMIT = 3
    answers = [answer(ask(client, "ana@example.com")) for _ in range(10)]

    assert answers == [(302, DONE)] * 10
    assert len(mail.outbox) == 3
    assert all(m.to == ["ana@example.com"] for m in mail.outbox)


def test_the_limit_answers_alike_for_an_address_with_an_account_and_one_without(
    client, ana, settings
):
    """No account enumeration: past the limit or not, used or not, the same redirect."""
    settings.PASSWORD_RESET_RATE_LIMIT = 2
    settings.PASSWORD_RESET_IP_LIMIT = 100
    used = [answer(ask(client, "ana@example.com")) for _ in range(5)]
    unused = [answer(ask(client, "nobody@example.com")) for _ in range(5)]

    assert used == unused == [(302, DONE)] * 5
    assert len(mail.outbox) == 2
    # Counted by address as the form reads it: case and spaces do not make another one.
    assert answer(ask(client, "  ANA@Example.com ")) == (302, DONE)
    assert len(mail.outbox) == 2


def test_the_address_gets_a_link_again_once_its_window_is_over(client, ana, settings):
    use_a_cache_whose_clock_moves(settings)
    settings.PASSWORD_RESET_RATE_LIMIT = 1
    settings.PASSWORD_RESET_RATE_WINDOW = 3600
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        ask(client, "ana@example.com")
        ask(client, "ana@example.com")
        assert len(mail.outbox) == 1
        clock.shift(3601)
        ask(client, "ana@example.com")
    assert len(mail.outbox) == 2


def test_one_client_asking_for_many_addresses_is_refused_past_its_limit(client, ana, settings):
    """Another way to flood: a new address on every post, from one client."""
    settings.PASSWORD_RESET_IP_LIMIT = 4
    answers = [ask(client, f"someone{n}@example.com") for n in range(4)]
    assert [a.status_code for a in answers] == [302] * 4

    refused = ask(client, "ana@example.com")

    assert refused.status_code == 429
    assert "Too many password reset requests from your network address" in (
        refused.content.decode()
    )
    assert mail.outbox == []
    # Another client is not refused for it.
    assert answer(ask(client, "ana@example.com", ip="198.51.100.9")) == (302, DONE)
    assert [m.to for m in mail.outbox] == [["ana@example.com"]]
