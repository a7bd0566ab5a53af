"""A client for the Wild Cards Teams Bot API (the site's /bots/docs/).

    from wildcards_bot import Bot, Client, play_account

`Client` is the HTTP API, `Bot` the strategy an author writes (`decide(state) -> action`),
`play_account` and `play_seat` play seats over their game streams (wildcards_bot.runner
says what they guarantee), `models` the API's data model as TypedDicts, generated from
the site's OpenAPI schema.
"""

from wildcards_bot import models
from wildcards_bot.client import ApiError, Client
from wildcards_bot.runner import (
    Action,
    Bot,
    SeatResult,
    SeatRunner,
    key_for,
    play_account,
    play_seat,
)

__all__ = [
    "Action",
    "ApiError",
    "Bot",
    "Client",
    "SeatResult",
    "SeatRunner",
    "key_for",
    "models",
    "play_account",
    "play_seat",
]
