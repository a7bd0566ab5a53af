"""Who is calling the Bot API: a bearer token of a bot account (accounts.bot_tokens), counted
against its account's rate limit (all its tokens and streams together); and how every
refusal is answered: JSON `{"detail": "..."}`."""

from django.http import Http404
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer

from accounts import bot_tokens
from accounts.models import ApiToken
from games.api import quota


class RateLimited(Exception):
    def __init__(self, wait):
        super().__init__(wait)
        self.wait = wait


class BotToken(HttpBearer):
    """`Authorization: Bearer wct_...`. A session cookie is no credential here: the API has
    no CSRF defence to need, because a browser never attaches a bearer token by itself."""

    openapi_scheme = "bearer"

    def authenticate(self, request, token):
        found = bot_tokens.authenticate(token)
        if found is None:
            return None
        user, api_token = found
        if api_token.scope != ApiToken.Scope.PLAY:
            return None
        charged = bot_tokens.charge_quota(user.pk)
        # Its numbers go out as X-RateLimit-* headers, a 429's too (games.api.quota).
        quota.keep(request, charged)
        if charged.wait:
            raise RateLimited(charged.wait)
        request.bot_token = api_token
        return user


def refusal(api, request, status, detail, **extra):
    return api.create_response(request, {"detail": detail, **extra}, status=status)


def install_error_handlers(api):
    @api.exception_handler(AuthenticationError)
    def unauthorised(request, exc):
        response = refusal(
            api,
            request,
            401,
            "A valid bot token is needed: send 'Authorization: Bearer <token>' "
            "(see /bots/docs/#accounts).",
        )
        response["WWW-Authenticate"] = "Bearer"
        return response

    @api.exception_handler(RateLimited)
    def rate_limited(request, exc):
        response = refusal(
            api,
            request,
            429,
            f"Too many requests for this bot account (all "
            f"its tokens and streams count together): try "
            f"again in {exc.wait} seconds.",
        )
        response["Retry-After"] = str(exc.wait)
        return response

    @api.exception_handler(ValidationError)
    def invalid(request, exc):
        # 400, not ninja's 422: the site answers every malformed request the same way.
        first = exc.errors[0] if exc.errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "path"))
        message = first.get("msg", "invalid input")
        detail = f"{where}: {message}" if where else message
        errors = [
            {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))}
            for e in exc.errors
        ]
        return refusal(
            api,
            request,
            400,
            f"That request is not valid: {detail}. See /bots/docs/api/.",
            errors=errors,
        )

    @api.exception_handler(HttpError)
    def http_error(request, exc):
        return refusal(api, request, exc.status_code, str(exc))

    @api.exception_handler(Http404)
    def not_found(request, exc):
        return refusal(api, request, 404, str(exc) or "Not found.")
