"""The `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` headers of every
Bot API answer to a request its account was charged for (docs/bot-api.md, "Limits").

The token check (games.api.auth.BotToken) charges the account and leaves the numbers on
the request; this middleware writes them on whatever answers it, a route's result or an
error handler's refusal (a 429 included), so that no route and no handler has to. A
request with no valid token is charged to no account and gets none.
"""

from accounts import bot_tokens


def keep(request, quota):
    """Notes the account's `quota` (accounts.bot_tokens.Quota) for this request's answer."""
    request.bot_quota = quota


def give_back(request):
    """Gives the request back to its account (accounts.bot_tokens.refund) and says so in
    its answer's headers."""
    quota = getattr(request, "bot_quota", None)
    user = getattr(request, "auth", None)
    if quota is None or user is None:
        return
    bot_tokens.refund(user.pk)
    request.bot_quota = quota.given_back()


class RateLimitHeaders:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        quota = getattr(request, "bot_quota", None)
        if quota is not None:
            for name, value in quota.headers().items():
                response[name] = value
        return response
