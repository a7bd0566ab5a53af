import re

import pytest
from django.core import mail
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another-wild-card-77"


def test_a_player_changes_their_password(client, ana):
    client.force_login(ana)

    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    ana.refresh_from_db()
    assert ana.check_password(NEW_PASSWORD)


def test_the_password_change_needs_the_old_password(client, ana):
    client.force_login(ana)

    client.post(
        reverse("accounts:password_change"),
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    ana.refresh_from_db()
    assert ana.check_password(PASSWORD)


def test_a_player_resets_a_forgotten_password_by_email(client, ana):
    client.post(reverse("accounts:password_reset"), {"email": "ana@example.com"})

    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["ana@example.com"]
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    form_page = client.get(link.group(1), follow=True)
    assert form_page.context["validlink"]
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    ana.refresh_from_db()
    assert ana.check_password(NEW_PASSWORD)


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_nothing(client, ana):
    response = client.post(reverse("accounts:password_reset"), {"email": "who@example.com"})

    assert response.status_code == 302
    assert mail.outbox == []
