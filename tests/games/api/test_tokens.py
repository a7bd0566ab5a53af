"""Bot API tokens: stored hashed, shown once, refused at once when revoked, rate-limited,
scoped to playing, and only for bot accounts."""

import hashlib
import json

import pytest
from django.db import connection

from accounts import bot_tokens
from accounts.models import ApiToken
from tests.games.api.conftest import Api, make_bot

pytestmark = pytest.mark.django_db


def test_the_raw_token_is_nowhere_in_the_database(robo):
    token, raw = bot_tokens.issue(robo, "laptop")
    assert raw.startswith("wct_") and len(raw) > 40
    assert token.digest == hashlib.sha256(raw.encode()).hexdigest()
    assert token.prefix == raw[:12]
    secret_part = raw[12:]
    # Every row of every table, in SQL that SQLite and PostgreSQL both run.
    rows = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            rows += [repr(row) for row in cursor.fetchall()]
    assert any(token.digest in row for row in rows)
    assert not any(secret_part in row for row in rows)


def test_a_token_lets_its_bot_in_and_says_who_it_is(robo, robo_api):
    response = robo_api.get("/account")
    assert response.status_code == 200
    assert response.json() == {"username": "robo", "name": "Robo", "is_bot": True}


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer wct_nonsense", "Basic abc", "Bearer " + "x" * 5000, "Bearer wct_\x00"],
)
def test_no_token_or_a_wrong_one_is_a_401_in_words(robo, header, client):
    headers = {"Authorization": header} if header is not None else {}
    response = client.get("/api/bot/account", headers=headers)
    assert response.status_code == 401
    assert "token" in response.json()["detail"]


def test_a_session_cookie_alone_is_no_credential(robo, client):
    client.force_login(robo)
    assert client.get("/api/bot/account").status_code == 401
    assert (
        client.post(
            "/api/bot/games/1/decisions",
            {"action": {"type": "draw"}, "key": "k"},
            content_type="application/json",
        ).status_code
        == 401
    )


def test_a_revoked_token_is_refused_at_once(robo, django_capture_on_commit_callbacks):
    token, raw = bot_tokens.issue(robo, "laptop")
    api = Api(raw)
    assert api.get("/account").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        bot_tokens.revoke(token)
    assert api.get("/account").status_code == 401
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_revoking_tells_the_tokens_open_streams(
    robo, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []

    class Layer:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr(bot_tokens, "get_channel_layer", lambda: Layer())
    token, _ = bot_tokens.issue(robo, "laptop")
    with django_capture_on_commit_callbacks(execute=True):
        bot_tokens.revoke(token)
    assert sent == [(f"api-token-{token.pk}", {"type": "token.revoked"})]
    with django_capture_on_commit_callbacks(execute=True):
        bot_tokens.revoke(token)  # already revoked: nothing more to tell
    assert len(sent) == 1


def test_a_banned_or_suspended_or_inactive_bot_is_refused(robo, robo_api):
    from datetime import timedelta

    from django.utils import timezone

    assert robo_api.get("/account").status_code == 200
    robo.suspended_until = timezone.now() + timedelta(days=1)
    robo.save()
    assert robo_api.get("/account").status_code == 401
    robo.suspended_until = None
    robo.is_active = False
    robo.save()
    assert robo_api.get("/account").status_code == 401


def test_only_a_bot_account_gets_tokens_and_at_most_so_many(settings, ana):
    with pytest.raises(bot_tokens.TokenRefused):
        bot_tokens.issue(ana, "mine")
    settings.API_TOKENS_PER_BOT = 2
    bot = make_bot("robo")
    first, _ = bot_tokens.issue(bot, "a")
    bot_tokens.issue(bot, "b")
    with pytest.raises(bot_tokens.TokenRefused):
        bot_tokens.issue(bot, "c")
    bot_tokens.revoke(first)
    bot_tokens.issue(bot, "c")


def test_a_persons_account_turned_bot_later_still_needs_a_token(ana):
    """A person's token cannot exist, and a person's session is refused (above); an
    account that sat at a table may not become a bot account at all."""
    from lobby import services as lobby

    lobby.create_table(ana, players=4)
    assert not bot_tokens.may_become_bot(ana)
    with pytest.raises(bot_tokens.TokenRefused):
        bot_tokens.make_bot_account(ana)


def test_a_token_of_another_scope_is_refused(robo):
    token, raw = bot_tokens.issue(robo, "laptop")
    ApiToken.objects.filter(pk=token.pk).update(scope="read")
    assert Api(raw).get("/account").status_code == 401


def test_the_rate_limit_answers_429_with_retry_after(settings, robo, robo_api):
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW = 60
    assert [robo_api.get("/account").status_code for _ in range(3)] == [200] * 3
    response = robo_api.get("/account")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many requests" in response.json()["detail"]
    # Per account: the same bot's other token is refused too (test_account_limits.py).
    other = Api(bot_tokens.issue(robo, "other")[1])
    assert other.get("/account").status_code == 429


def test_last_used_is_written_at_most_once_a_minute(robo, time_machine):
    time_machine.move_to("2026-01-01 12:00:00Z", tick=False)
    token, raw = bot_tokens.issue(robo, "laptop")
    api = Api(raw)
    api.get("/account")
    token.refresh_from_db()
    first = token.last_used_at
    assert first is not None
    time_machine.move_to("2026-01-01 12:00:30Z", tick=False)
    api.get("/account")
    token.refresh_from_db()
    assert token.last_used_at == first
    time_machine.move_to("2026-01-01 12:01:30Z", tick=False)
    api.get("/account")
    token.refresh_from_db()
    assert token.last_used_at > first


def test_the_schema_is_served_and_the_docs_page_is_not(client):
    response = client.get("/api/bot/openapi.json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert {"/api/bot/account", "/api/bot/games/{game_id}/decisions"} <= set(schema["paths"])
    assert schema["components"]["securitySchemes"]["BotToken"]["scheme"] == "bearer"
    assert client.get("/api/bot/docs").status_code == 404
