"""The HTTP half of the Bot API: JSON over urllib, the token in the Authorization header.

Every call is synchronous (a bot's loop runs it in a thread: `asyncio.to_thread`). A call
that the site answers 429 sleeps its `Retry-After` and goes again; one answered 503 (the
site lost its database or Redis for a moment) or lost on the way goes again after a short
backoff with the same body, so a decision is retried with the same idempotency key and
moves nothing twice. Any other refusal raises ApiError with the site's reason.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any, cast

from wildcards_bot import models

# Seconds slept before each retry of a 503 or a lost connection; then the error is raised.
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
# A Retry-After longer than this is a limit the bot should not sleep through blindly.
MAX_RETRY_AFTER = 120.0


class ApiError(Exception):
    """The site refused a call: `status` is the HTTP status, `detail` its reason."""

    def __init__(self, status: int, detail: str, method: str = "", path: str = "") -> None:
        super().__init__(f"{method} {path}: {status} {detail}".strip())
        self.status, self.detail = status, detail


def _detail(body: bytes) -> str:
    try:
        found = json.loads(body or b"null")
    except ValueError:
        return body[:200].decode("utf-8", "replace")
    if isinstance(found, dict) and isinstance(detail := found.get("detail"), str):
        return detail
    return json.dumps(found)


class Client:
    """The Bot API's routes for one token, e.g. `Client("https://wildcards.example", "wct_...")`.

    Methods return the site's JSON as the TypedDicts of wildcards_bot.models."""

    def __init__(self, url: str, token: str, *, timeout: float = 30, sleep: Any = time.sleep):
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout
        self._sleep = sleep  # tests pass their own clock
        # What the last answer said of the token's budget (X-RateLimit-*), if it said so.
        self.rate_limit: dict[str, str] = {}

    # -- the one door -------------------------------------------------------------------

    def _request(self, method: str, path: str, body: object | None) -> urllib.request.Request:
        return urllib.request.Request(
            f"{self.url}/api/bot{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": "wildcards-bot/0.1",
            },
        )

    def call(self, method: str, path: str, body: object | None = None) -> Any:
        """`method path` under /api/bot with a JSON body; the answer's JSON. Retries 429
        (after Retry-After), 503 and lost connections (after BACKOFF) with the same body."""
        backoff = iter(BACKOFF)
        while True:
            try:
                with urllib.request.urlopen(
                    self._request(method, path, body), timeout=self.timeout
                ) as response:
                    self._keep_limits(response.headers)
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                self._keep_limits(error.headers)
                detail = _detail(error.read())
                if error.code == 429:
                    wait = float(error.headers.get("Retry-After") or 1)
                    if wait > MAX_RETRY_AFTER:
                        raise ApiError(429, detail, method, path) from None
                    self._sleep(wait)
                    continue
                if error.code == 503 and (pause := next(backoff, None)) is not None:
                    self._sleep(pause)
                    continue
                raise ApiError(error.code, detail, method, path) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                # Lost on the way: the same body again (a decision keeps its key).
                if (pause := next(backoff, None)) is None:
                    raise
                self._sleep(pause)

    def _keep_limits(self, headers: Any) -> None:
        if headers is None:
            return
        for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"):
            if headers.get(name) is not None:
                self.rate_limit[name] = headers[name]

    # -- the account and its seats ------------------------------------------------------

    def account(self) -> models.Account:
        return cast("models.Account", self.call("GET", "/account"))

    def invitations(self) -> list[models.Invitation]:
        return cast("list[models.Invitation]", self.call("GET", "/invitations"))

    def accept(self, invitation: int) -> models.SeatOut:
        """Takes the invited seat (accepting twice answers the same seat)."""
        return cast("models.SeatOut", self.call("POST", f"/invitations/{invitation}/accept"))

    def decline(self, invitation: int) -> models.InvitationOut:
        return cast("models.InvitationOut", self.call("POST", f"/invitations/{invitation}/decline"))

    def tables(self) -> list[models.OpenTable]:
        """Open public tables that take bot accounts and have a free seat."""
        return cast("list[models.OpenTable]", self.call("GET", "/tables"))

    def join(self, game: int, seat: int | None = None) -> models.SeatOut:
        body = {} if seat is None else {"seat": seat}
        return cast("models.SeatOut", self.call("POST", f"/tables/{game}/join", body))

    def seats(self, finished: bool = False) -> list[models.SeatOut]:
        """The account's seats at open and running tables (with `finished`: finished games
        too, with their result)."""
        path = "/seats?finished=true" if finished else "/seats"
        return cast("list[models.SeatOut]", self.call("GET", path))

    # -- a seat's game ------------------------------------------------------------------

    def game(self, game: int) -> models.GameOut:
        """What the seat sees now: the same JSON as the stream's state message."""
        return cast("models.GameOut", self.call("GET", f"/games/{game}"))

    def decide(
        self, game: int, action: Mapping[str, Any], key: str, seq: int | None = None
    ) -> models.DecisionOut:
        """One decision with its idempotency key (and, if given, the seq it was decided at:
        refused if the seat's decision has moved on)."""
        body: dict[str, Any] = {"action": action, "key": key}
        if seq is not None:
            body["seq"] = seq
        return cast("models.DecisionOut", self.call("POST", f"/games/{game}/decisions", body))

    def export(self, game: int) -> Any:
        return self.call("GET", f"/games/{game}/export")

    # -- tables the bot makes -----------------------------------------------------------

    def create_table(self, **options: Any) -> models.TableOut:
        """A new open table hosted by this account, which sits at seat 0, with the lobby's
        rule options (players, pace, move_seconds, ...: models.TableOptions)."""
        return cast("models.TableOut", self.call("POST", "/tables", options))

    def table(self, game: int) -> models.TableOut:
        return cast("models.TableOut", self.call("GET", f"/tables/{game}"))

    def close_table(self, game: int) -> models.TableOut:
        return cast("models.TableOut", self.call("DELETE", f"/tables/{game}"))

    def invite(self, game: int, seat: int, username: str) -> models.InvitationOut:
        body = {"seat": seat, "username": username}
        return cast("models.InvitationOut", self.call("POST", f"/tables/{game}/invitations", body))

    def add_site_bot(self, game: int, seat: int, level: str = "normal") -> models.TableOut:
        body = {"seat": seat, "level": level}
        return cast("models.TableOut", self.call("POST", f"/tables/{game}/site-bots", body))

    def remove_seat(self, game: int, seat: int) -> models.TableOut:
        return cast("models.TableOut", self.call("DELETE", f"/tables/{game}/seats/{seat}"))

    def start(self, game: int) -> models.TableOut:
        """Deals: every seat must be taken (409 until then)."""
        return cast("models.TableOut", self.call("POST", f"/tables/{game}/start"))

    # -- the account's events -----------------------------------------------------------

    def events(self, since: int | None = None) -> Iterator[dict[str, Any]]:
        """The account's events as they come (NDJSON over HTTP), from after `since`. Ends
        when the site closes the answer; pass the last id seen to resume."""
        path = "/events" + (f"?since={since}" if since is not None else "")
        request = self._request("GET", path, None)
        request.add_header("Accept", "application/x-ndjson")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                for line in response:
                    if line.strip():
                        yield json.loads(line)
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, _detail(error.read()), "GET", path) from None

    # -- the stream's address -----------------------------------------------------------

    def stream_url(self, game: int) -> str:
        parts = urllib.parse.urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urllib.parse.urlunsplit(
            (scheme, parts.netloc, f"{parts.path}/api/bot/games/{game}/stream", "", "")
        )
