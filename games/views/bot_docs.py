"""The page for people writing bots: bot accounts, tokens, the Bot API's routes, its stream
and the time limits, with the example client's code (docs/bot-accounts.md)."""

from functools import lru_cache

from django.conf import settings
from django.shortcuts import render

EXAMPLE = settings.BASE_DIR / "examples" / "random_bot.py"


@lru_cache(maxsize=1)
def example_code():
    # Read from the repository's file, so that the page always shows the code that CI runs.
    return EXAMPLE.read_text()


def bot_docs(request):
    return render(
        request,
        "api/docs.html",
        {
            "example": example_code(),
            "timeouts": settings.TIMEOUTS_BEFORE_BOT,
            "rate_limit": settings.API_RATE_LIMIT,
            "rate_window": settings.API_RATE_WINDOW,
            "streams_limit": settings.API_STREAMS_PER_BOT,
            "tokens_per_day": settings.API_TOKENS_PER_DAY,
        },
    )
