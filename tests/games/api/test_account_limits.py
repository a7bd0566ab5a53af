"""The Bot API's limits belong to the bot account, not to a token: its requests over HTTP
and its streams' act frames share one budget whatever token made them; it creates only so
many tokens a day; it holds only so many streams open (docs/bot-api.md, "Limits")."""

import pytest
import time_machine
from django.urls import reverse

from accounts import bot_tokens
from accounts.models import ApiToken
from tests.conftest import race
from tests.games.api.conftest import Api, make_bot

pytestmark = pytest.mark.django_db


def use_a_cache_whose_clock_moves(settings):
    # The windows are measured by the cache's clock: Redis keeps real time, the
    # in-process cache follows time-machine.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "bot-account-limits",
        }
    }


def create_token(client, name):
    return client.post(reverse("accounts:bot_token_create"), {"name": name})


def revoke_newest(client, bot):
    token = ApiToken.objects.filter(user=bot).order_by("-pk").first()
    assert client.post(reverse("accounts:bot_token_revoke", args=[token.pk])).status_code == 302


def test_minting_and_revoking_tokens_gets_no_more_requests_than_the_limit(settings, robo):
    """The attack: one account minted a token, used it to its limit, revoked it and went on
    with a new one (3,600 answered requests in 45 s against 120 a minute)."""
    settings.API_RATE_LIMIT = 5
    answered = 0
    for n in range(4):
        token, raw = bot_tokens.issue(robo, f"token {n}")
        api = Api(raw)
        for _ in range(3):
            answered += api.get("/account").status_code == 200
        bot_tokens.revoke(token)

    assert answered == 5
    response = Api(bot_tokens.issue(robo, "fresh")[1]).get("/account")
    assert response.status_code == 429
    assert "this bot account" in response.json()["detail"]
    # Another bot account has its own budget.
    assert Api(bot_tokens.issue(make_bot("rita"), "hers")[1]).get("/account").status_code == 200


def test_stream_act_frames_and_http_requests_share_the_accounts_budget(settings, robo, robo_api):
    """The stream's act frames counted nothing: a bot acted 600 times in 1.9 s. The stream
    charges each frame (bot_tokens.charge); HTTP then finds the budget spent."""
    settings.API_RATE_LIMIT = 4
    assert robo_api.get("/account").status_code == 200
    assert [bot_tokens.charge(robo.pk) for _ in range(3)] == [0, 0, 0]

    assert bot_tokens.charge(robo.pk) > 0  # a fifth act frame is refused
    response = robo_api.get("/account")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= settings.API_RATE_WINDOW


def test_a_bot_that_keeps_acting_while_refused_waits_no_longer_than_the_window(
    settings, robo, robo_api
):
    use_a_cache_whose_clock_moves(settings)
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW = 60
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        assert [bot_tokens.charge(robo.pk) for _ in range(3)] == [0, 0, 0]
        clock.shift(30)
        waits = [bot_tokens.charge(robo.pk) for _ in range(50)]
        assert waits == [30] * 50
        clock.shift(31)
        assert robo_api.get("/account").status_code == 200


def test_token_creation_is_limited_per_day_revoked_tokens_included(settings, client, robo):
    """Minting was free: the account may create API_TOKENS_PER_DAY in any 24 hours, however
    many it revoked."""
    settings.API_TOKENS_PER_DAY = 3
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        client.force_login(robo)
        for n in range(3):
            assert create_token(client, f"token {n}").status_code == 200
            revoke_newest(client, robo)
            clock.shift(60)

        refused = create_token(client, "one more")

        assert refused.status_code == 429
        page = refused.content.decode()
        assert "at most 3 tokens in 24 hours" in page
        assert "you can create another in 24 hours" in page
        assert ApiToken.objects.filter(user=robo).count() == 3
        clock.shift(24 * 3600 - 180 + 1)  # the first one is a day old
        assert create_token(client, "next day").status_code == 200
        assert ApiToken.objects.filter(user=robo).count() == 4


def test_an_account_holds_at_most_so_many_streams(settings, robo):
    settings.API_STREAMS_PER_BOT = 2
    rita = make_bot("rita")
    assert bot_tokens.stream_opened(robo.pk, "chan-a")
    assert bot_tokens.stream_opened(robo.pk, "chan-b")
    assert bot_tokens.stream_opened(robo.pk, "chan-a")  # the same stream again: one slot

    assert not bot_tokens.stream_opened(robo.pk, "chan-c")
    assert bot_tokens.open_streams(robo.pk) == 2  # the refused one registered nothing
    assert bot_tokens.stream_opened(rita.pk, "chan-r")  # another account's own slots
    assert not bot_tokens.stream_alive(robo.pk, "chan-c")

    bot_tokens.stream_closed(robo.pk, "chan-a")
    assert bot_tokens.stream_opened(robo.pk, "chan-c")
    assert bot_tokens.stream_alive(robo.pk, "chan-b")


def test_streams_opening_at_once_cannot_pass_the_limit(settings, robo):
    """Many streams opened at the same moment (several processes share the cache): the
    slots are taken atomically, so exactly the limit get in."""
    settings.API_STREAMS_PER_BOT = 3
    results = race([lambda n=n: bot_tokens.stream_opened(robo.pk, f"chan-{n}") for n in range(12)])
    assert sorted(results) == [False] * 9 + [True] * 3
    assert bot_tokens.open_streams(robo.pk) == 3


def test_the_streams_of_a_crashed_process_stop_counting_by_themselves(settings, robo):
    """A process that died never calls stream_closed: its streams' registrations lapse
    API_STREAM_TTL seconds after their last refresh; a live stream refreshes its own."""
    use_a_cache_whose_clock_moves(settings)
    settings.API_STREAMS_PER_BOT = 2
    settings.API_STREAM_TTL = 60
    with time_machine.travel("2030-01-01 12:00", tick=False) as clock:
        assert bot_tokens.stream_opened(robo.pk, "crashed")
        assert bot_tokens.stream_opened(robo.pk, "alive")
        for _ in range(5):
            clock.shift(20)
            assert bot_tokens.stream_alive(robo.pk, "alive")
        assert bot_tokens.open_streams(robo.pk) == 1

        assert bot_tokens.stream_opened(robo.pk, "new")
        assert not bot_tokens.stream_opened(robo.pk, "one too many")


def test_the_bot_docs_page_states_the_accounts_limits(settings, client):
    settings.API_RATE_LIMIT, settings.API_RATE_WINDOW = 90, 30
    settings.API_STREAMS_PER_BOT, settings.API_TOKENS_PER_DAY = 7, 4
    page = " ".join(client.get(reverse("api_docs")).content.decode().split())
    assert "The limits are the account's, whichever of its tokens is used" in page
    assert "90 requests per 30 seconds" in page
    assert "7 streams open at once; 4 tokens created in any 24 hours" in page
