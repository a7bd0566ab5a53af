"""The bot account's page: a new account becomes a bot account with its password; tokens
are created (shown once), listed and revoked there; the mark shows on the profile."""

import pytest
from django.urls import reverse

from accounts.models import ApiToken
from lobby import services as lobby
from tests.conftest import PASSWORD, make_user
from tests.games.api.conftest import Api, make_bot

pytestmark = pytest.mark.django_db


def test_a_new_account_becomes_a_bot_account_with_its_password(client):
    user = make_user("newbot")
    client.force_login(user)
    page = client.get(reverse("accounts:bot"))
    assert b"cannot be undone" in page.content
    wrong = client.post(reverse("accounts:bot"), {"password": "nope", "understood": "on"})
    assert wrong.status_code == 400 and b"not your password" in wrong.content
    unticked = client.post(reverse("accounts:bot"), {"password": PASSWORD})
    assert unticked.status_code == 400
    user.refresh_from_db()
    assert not user.is_bot
    done = client.post(reverse("accounts:bot"), {"password": PASSWORD, "understood": "on"})
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.is_bot


def test_an_account_that_sat_at_a_table_cannot_become_a_bot(client):
    ana = make_user("ana")
    lobby.create_table(ana, players=4)
    client.force_login(ana)
    assert b"cannot become a bot account" in client.get(reverse("accounts:bot")).content
    refused = client.post(reverse("accounts:bot"), {"password": PASSWORD, "understood": "on"})
    assert refused.status_code == 403
    ana.refresh_from_db()
    assert not ana.is_bot


def test_a_token_is_shown_once_then_listed_by_its_prefix_and_revoked(client):
    bot = make_bot("robo")
    client.force_login(bot)
    created = client.post(reverse("accounts:bot_token_create"), {"name": "laptop"})
    assert created.status_code == 200 and created["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=bot)
    raw = (
        created.content.decode().split('id="raw-token"', 1)[1].split('value="', 1)[1].split('"')[0]
    )
    assert raw.startswith(token.prefix) and raw.startswith("wct_")
    assert Api(raw).get("/account").status_code == 200
    listing = client.get(reverse("accounts:bot")).content.decode()
    assert token.prefix in listing and "laptop" in listing and raw not in listing
    revoked = client.post(reverse("accounts:bot_token_revoke", args=[token.pk]))
    assert revoked.status_code == 302
    assert Api(raw).get("/account").status_code == 401
    assert "revoked" in client.get(reverse("accounts:bot")).content.decode()


def test_a_person_gets_no_token_and_nobody_revokes_anothers(client):
    ana = make_user("ana")
    bot = make_bot("robo")
    client.force_login(bot)
    client.post(reverse("accounts:bot_token_create"), {"name": "laptop"})
    token = ApiToken.objects.get(user=bot)
    client.force_login(ana)
    refused = client.post(reverse("accounts:bot_token_create"), {"name": "mine"})
    assert refused.status_code == 403 and not ApiToken.objects.filter(user=ana).exists()
    assert client.post(reverse("accounts:bot_token_revoke", args=[token.pk])).status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_the_profile_marks_a_bot_account(client):
    make_bot("robo")
    make_user("ana")
    client.force_login(make_user("ed"))
    assert b"bot-account" in client.get(reverse("history:profile", args=["robo"])).content
    assert b"bot-account" not in client.get(reverse("history:profile", args=["ana"])).content
