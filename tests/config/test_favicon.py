"""Every page names the site's icon, and /favicon.ico leads to it (no 404 in the console)."""

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_pages_name_the_icon_and_favicon_ico_leads_to_it(client):
    page = client.get("/accounts/login/").content.decode()
    assert 'rel="icon"' in page and "img/favicon.svg" in page
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"].endswith("img/favicon.svg")
    assert finders.find("img/favicon.svg")
