"""The time zone: taken from the browser at sign-up (UTC without it), and chosen on the
profile from a searchable list that accepts only known zones."""

import re

import pytest
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db

SIGNUP = {
    "username": "zoe",
    "email": "zoe@example.com",
    "display_name": "",
    "password1": "wild-cards-correct-horse-9",
    "password2": "wild-cards-correct-horse-9",
}


@pytest.mark.parametrize(
    "sent, kept",
    [("Europe/Paris", "Europe/Paris"), ("", "UTC"), ("Mars/Olympus_Mons", "UTC"), (None, "UTC")],
)
def test_sign_up_keeps_the_zone_the_browser_sent_if_it_is_a_real_one(client, sent, kept):
    data = dict(SIGNUP) if sent is None else {**SIGNUP, "time_zone": sent}
    response = client.post(reverse("accounts:signup"), data)
    assert response.status_code == 302
    assert User.objects.get(username="zoe").time_zone == kept


def test_the_profile_searches_the_zones_and_refuses_an_unknown_one(client, ana):
    client.force_login(ana)
    page = client.get(reverse("accounts:profile")).content.decode()
    box = re.search(r'<input[^>]*name="time_zone"[^>]*>', page).group(0)
    assert 'list="time-zones"' in box and 'type="text"' in box
    assert '<option value="America/New_York">America/New York</option>' in page
    response = client.post(
        reverse("accounts:profile"),
        {"display_name": "Ana", "email": ana.email, "time_zone": "Europe/Atlantis"},
    )
    assert response.status_code == 400
    assert "Choose a time zone from the list" in response.content.decode()
    ana.refresh_from_db()
    assert ana.time_zone != "Europe/Atlantis"
