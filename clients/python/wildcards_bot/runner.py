"""Plays a bot account's seats over their game streams: the author writes `Bot.decide`, the
runner does the rest.

What it guarantees, per seat:
- **One decision in flight.** An `act` frame waits for its `ok` or `error` before the next
  is sent; states that come meanwhile are kept, and only the newest is acted on.
- **Deterministic keys.** A decision's idempotency key is made of the game, the seat and
  the `seq` of the state it was decided at (`g12-s1-q345`): sent again after a reconnect,
  or by a restarted program, it is answered `replayed` and moves nothing twice.
- **Reconnect and resume.** A dropped stream, or one closed 4503 (the site lost Redis) or
  4429 (too many streams, for a moment), is opened again after a backoff (0.5 s doubling
  to 10 s); the decision in flight, if any, is sent again with its key, and the stream's
  first state says where the game is. A close 4401 (token), 4404 (no seat) or 4410 (the
  seat is no longer the bot's) ends the seat: nothing a retry could mend.
- **After a refusal, a newer state.** A refused decision is not sent again at the same
  state: the seat waits for a state whose `seq` is greater (the game moved), then decides
  again. A refusal for the account's rate limit waits as told and sends the same frame.
- **Several seats at once**, each a task of one asyncio loop (`play_account`, `play_seat`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.typing import Origin

from wildcards_bot import models
from wildcards_bot.client import ApiError, Client

log = logging.getLogger("wildcards_bot")

DONE = ("finished", "aborted")
# Closes after which the seat is over for this program: the token, no seat, seat lost.
FINAL_CLOSES = (4401, 4404, 4410)
BACKOFF_START, BACKOFF_MAX = 0.5, 10.0
# The stream's refusal of an act frame over the account's rate limit.
RATE_LIMITED = re.compile(r"try again in (\d+) seconds")

# What `decide` returns: one of models' action shapes, or any mapping of the same.
Action = Mapping[str, Any]


class Bot:
    """A strategy: subclass it and write `decide`. One Bot object may play several seats;
    `decide` is given each seat's state, never another seat's."""

    def decide(self, state: models.GameOut) -> Action | None | Awaitable[Action | None]:
        """The decision for `state` (a state with `your_turn`): one of `state["legal"]`, or a
        give of `state["view"]["must_give"]` cards of the hand. None: no decision now. May be
        a coroutine function."""
        raise NotImplementedError

    def game_over(self, state: models.GameOut) -> None:
        """Called once with a seat's last state (`status` finished or aborted)."""


def key_for(game: int, seat: int, seq: int) -> str:
    """The idempotency key of the seat's decision at the state numbered `seq`."""
    return f"g{game}-s{seat}-q{seq}"


@dataclass
class SeatResult:
    """How a seat's game went, for the program (and its author's measurements)."""

    game: int
    seat: int
    status: str = "playing"  # finished, aborted, or closed (the stream ended the seat)
    close_code: int | None = None
    final: models.GameOut | None = None
    decisions: int = 0  # accepted (a `replayed` answer counts once, as the first)
    replayed: int = 0
    refused: list[str] = field(default_factory=list)
    reconnects: int = 0
    round_trips: list[float] = field(default_factory=list)  # seconds, send to `ok`

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.round_trips) * 1000 if self.round_trips else None


@dataclass
class _Pending:
    key: str
    seq: int
    frame: str
    sent: float


class SeatRunner:
    """One seat of one game, played over its stream to the game's end."""

    def __init__(self, client: Client, bot: Bot, game: int, seat: int) -> None:
        self.client, self.bot, self.game, self.seat = client, bot, game, seat
        self.result = SeatResult(game, seat)
        self.pending: _Pending | None = None  # the decision sent and not answered
        self.latest: models.GameOut | None = None  # the newest state not acted on
        self.decided_at = -1  # the seq of the last state a decision was made at
        self.made = -1  # the seq of the last decision the game took
        self.refused_at = -1  # a refusal at this seq: wait for a greater one
        self.socket: Any = None

    async def run(self) -> SeatResult:
        backoff = BACKOFF_START
        while True:
            try:
                async with websockets.connect(
                    self.client.stream_url(self.game),
                    additional_headers={"Authorization": f"Bearer {self.client.token}"},
                    # The site takes sockets from its own origin only.
                    origin=Origin(self.client.url),
                ) as socket:
                    self.socket = socket
                    if self.pending is not None:
                        # Sent before the drop, answer lost: the same frame, the same key.
                        self.pending.sent = time.monotonic()
                        await socket.send(self.pending.frame)
                    async for text in socket:
                        backoff = BACKOFF_START
                        if await self.receive(json.loads(text)):
                            return self.result
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code in FINAL_CLOSES:
                    log.warning("game %s seat %s: stream closed (%s)", self.game, self.seat, code)
                    self.result.status, self.result.close_code = "closed", code
                    return self.result
                log.info("game %s: stream closed (%s), reconnecting", self.game, code)
            except (OSError, websockets.InvalidHandshake, TimeoutError) as error:
                log.info("game %s: stream lost (%s), reconnecting", self.game, error)
            finally:
                self.socket = None
            self.result.reconnects += 1
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_MAX)

    async def receive(self, message: dict[str, Any]) -> bool:
        """Takes one message of the stream; True once the game is over."""
        kind = message.get("type")
        if kind == "state":
            state: models.GameOut = message  # type: ignore[assignment]
            view: Mapping[str, Any] = state.get("view") or {}
            if state["status"] in DONE or view.get("game_over"):
                self.result.status, self.result.final = state["status"], state
                if self.result.status not in DONE:
                    self.result.status = "finished"
                self.bot.game_over(state)
                return True
            # Older than our last decision: sent before it reached the game.
            newest = self.latest["seq"] if self.latest else -1
            if state["seq"] >= max(self.made, newest):
                self.latest = state
        elif kind == "ok":
            self.answered(message, ok=True)
        elif kind == "error":
            if await self.refused(message):
                return False
        await self.maybe_decide()
        return False

    def answered(self, message: dict[str, Any], ok: bool) -> None:
        pending = self.pending
        if pending is None or message.get("key") != pending.key:
            return
        self.pending = None
        self.result.round_trips.append(time.monotonic() - pending.sent)
        if ok:
            self.made = max(self.made, int(message.get("seq", -1)))
            self.result.decisions += 1
            self.result.replayed += bool(message.get("replayed"))

    async def refused(self, message: dict[str, Any]) -> bool:
        """An error frame. Returns True when it resent the pending frame (rate limit)."""
        text = str(message.get("message"))
        pending = self.pending
        if pending is None or message.get("key") != pending.key:
            log.warning("game %s seat %s: %s", self.game, self.seat, text)
            return False
        if (wait := RATE_LIMITED.search(text)) is not None:
            # Not a judgement of the decision: the same frame once the budget allows.
            log.warning("game %s seat %s: rate-limited, waiting %ss", self.game, self.seat, wait[1])
            await asyncio.sleep(int(wait[1]))
            pending.sent = time.monotonic()
            await self.socket.send(pending.frame)
            return True
        self.answered(message, ok=False)
        self.result.refused.append(text)
        self.refused_at = max(self.refused_at, pending.seq)
        log.warning("game %s seat %s: refused at %s: %s", self.game, self.seat, pending.seq, text)
        return False

    async def maybe_decide(self) -> None:
        state = self.latest
        if self.pending is not None or state is None or self.socket is None:
            return
        seq = state["seq"]
        if not state.get("your_turn") or seq <= self.decided_at or seq <= self.refused_at:
            return
        self.latest = None
        self.decided_at = seq
        try:
            action = self.bot.decide(state)
            if inspect.isawaitable(action):
                action = await action
        except Exception:
            # The author's bug must not end the seat: this state gets no decision (the move
            # timer decides if no newer state comes), the next one is asked again.
            log.exception("game %s seat %s: decide failed at %s", self.game, self.seat, seq)
            return
        if action is None:
            return
        key = key_for(self.game, self.seat, seq)
        frame = json.dumps({"type": "act", "action": action, "key": key, "seq": seq})
        self.pending = _Pending(key, seq, frame, time.monotonic())
        await self.socket.send(frame)


async def play_seat(client: Client, bot: Bot, game: int, seat: int) -> SeatResult:
    """Plays `seat` of `game` to the game's end (or until the stream ends the seat)."""
    return await SeatRunner(client, bot, game, seat).run()


async def play_account(
    client: Client,
    bot: Bot,
    *,
    accept: Callable[[models.Invitation], bool] = lambda invitation: True,
    wait: float = 60,
    poll: float = 2,
    poll_playing: float = 30,
    games: int | None = None,
) -> dict[int, SeatResult]:
    """Accepts the account's invitations (those `accept` approves; the others are left),
    plays every seat it holds, each in a task, and returns the seats' results once every
    game it sat at is over: after `games` games if given, else as soon as none is under way.
    Gives up with no game after `wait` seconds. Invitations and seats are read every `poll`
    seconds while no game is under way, every `poll_playing` while one is: every HTTP call
    counts against the account's rate limit, which the decisions need."""
    playing: dict[int, asyncio.Task[SeatResult]] = {}
    give_up = time.monotonic() + wait
    looked: float | None = None
    while True:
        running = [task for task in playing.values() if not task.done()]
        every = poll_playing if running else poll
        if looked is None or time.monotonic() - looked >= every:
            looked = time.monotonic()
            await _look_around(client, bot, accept, playing)
        if playing and all(task.done() for task in playing.values()):
            if games is None or len(playing) >= games:
                return {game: task.result() for game, task in playing.items()}
        if not playing and time.monotonic() > give_up:
            return {}
        await asyncio.sleep(min(poll, 0.5))


async def _look_around(
    client: Client,
    bot: Bot,
    accept: Callable[[models.Invitation], bool],
    playing: dict[int, asyncio.Task[SeatResult]],
) -> None:
    try:
        for invitation in await asyncio.to_thread(client.invitations):
            if accept(invitation):
                await asyncio.to_thread(client.accept, invitation["id"])
                log.info("accepted invitation %s to game %s", invitation["id"], invitation["game"])
        seats = await asyncio.to_thread(client.seats)
    except ApiError as error:  # a refusal here is retried at the next look
        log.warning("%s", error)
        return
    for seat in seats:
        if seat["game"] not in playing:
            log.info("game %s: seated at %s", seat["game"], seat["seat"])
            playing[seat["game"]] = asyncio.create_task(
                play_seat(client, bot, seat["game"], seat["seat"])
            )
