import pytest
import time_machine
from django.urls import reverse

from tests.conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def log_in(client, username, password):
    return client.post(reverse("accounts:login"), {"username": username, "password": password})


def test_a_player_logs_in_and_out(client, ana):
    response = log_in(client, "ana", PASSWORD)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(ana.pk)

    client.post(reverse("accounts:logout"))
    assert "_auth_user_id" not in client.session


def test_a_wrong_password_does_not_log_in(client, ana):
    response = log_in(client, "ana", "nope")

    assert response.status_code == 400
    assert "_auth_user_id" not in client.session


def test_log_ins_are_refused_after_too_many_failures_even_with_the_right_password(
    client, ana, settings
):
    settings.LOGIN_RATE_LIMIT = 3
    for _ in range(3):
        log_in(client, "ana", "wrong")

    response = log_in(client, "ana", PASSWORD)

    assert response.status_code == 429
    assert "Too many log-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_limit_counts_attempts_from_one_address_across_usernames(client, ana, settings):
    settings.LOGIN_RATE_IP_LIMIT = 4
    for n in range(4):
        log_in(client, f"nobody{n}", "wrong")

    assert log_in(client, "ana", PASSWORD).status_code == 429


def test_the_limit_lifts_after_the_window(client, ana, settings):
    # The window is measured by the cache's clock: use the in-process cache,
    # whose clock time-machine can move.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "window-test",
        }
    }
    settings.LOGIN_RATE_LIMIT = 2
    settings.LOGIN_RATE_WINDOW = 600
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        log_in(client, "ana", "wrong")
        log_in(client, "ana", "wrong")
        assert log_in(client, "ana", PASSWORD).status_code == 429
        clock.shift(601)
        assert log_in(client, "ana", PASSWORD).status_code == 302


def test_a_successful_log_in_resets_the_count_for_that_user(client, ana, settings):
    settings.LOGIN_RATE_LIMIT = 3
    log_in(client, "ana", "wrong")
    log_in(client, "ana", "wrong")
    assert log_in(client, "ana", PASSWORD).status_code == 302
    client.post(reverse("accounts:logout"))

    log_in(client, "ana", "wrong")
    log_in(client, "ana", "wrong")
    assert log_in(client, "ana", PASSWORD).status_code == 302


def lock_out(client, username, settings):
    settings.LOGIN_RATE_LIMIT = 3
    for _ in range(3):
        assert log_in(client, username, "wrong").status_code == 400


# Every spelling the log-in form turns into "hank" (it strips, and applies NFKC), and
# one the database would not match but that must still count as the same name.
SPELLINGS = [" hank", "hank ", "\thank\n", "HANK", "Hank", "\uff48\uff41\uff4e\uff4b"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_it_refuses_a_locked_name_in_any_spelling_and_keeps_the_lock(client, settings, spelling):
    make_user("hank")
    lock_out(client, "hank", settings)

    response = log_in(client, spelling, PASSWORD)

    assert response.status_code == 429
    assert "Too many log-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert log_in(client, "hank", PASSWORD).status_code == 429


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_it_counts_failures_in_any_spelling_against_the_one_name(client, settings, spelling):
    make_user("hank")
    lock_out(client, spelling, settings)

    response = log_in(client, "hank", PASSWORD)

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_it_keeps_the_lock_when_an_account_named_alike_in_other_case_logs_in(client, settings):
    # Sign-up refuses such a name; the admin can still make one.
    make_user("hank")
    make_user("HANK")
    settings.LOGIN_RATE_LIMIT = 3
    log_in(client, "hank", "wrong")
    log_in(client, "hank", "wrong")
    assert log_in(client, "HANK", PASSWORD).status_code == 302
    client.post(reverse("accounts:logout"))

    log_in(client, "hank", "wrong")

    assert log_in(client, "hank", PASSWORD).status_code == 429
