"""One seat's state at its table: the one reader and writer of the game row's seat columns.

A seat's clock, time-outs, stand-in and presence are JSON on the Game row, keyed by the
seat number as a string (JSON keys are strings), beside two lists of seat numbers
(docs/clocks.md, "Fields on Game"):

    clocks     {"<seat>": {since, kind, started, due, remind_at, reminded}}
    timeouts   {"<seat>": n}
    stand_ins  {"<seat>": {"reason": "timeouts" | "away", "since": ISO time}}
    presence   {"<seat>": {"sockets": n, "away_since": ISO or null, "hold_until": ISO or null}}
    bot_seats  [seat, ...]  every seat a bot moves for now: bot seats and stand-ins
    waiting_on [seat, ...]  every seat with a decision pending

The readers take a game and a seat number and answer one question. A writer changes a
`SeatChanges` (working copies of the columns of one locked game); its `columns()` are the
changed ones, with `deadline_at` and `wake_at` worked out again (games.deadlines), for the
store or the decision door to write. Nothing else parses these columns.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Any, cast

from django.conf import settings

from games import deadlines
from games.deadlines import Clock, DeadlineColumns, Presence, StandIn
from games.models import Game, Seat

FOR_GOOD = "timeouts"  # a bot plays the seat to the end of the game
AWAY = "away"  # a bot plays the seat until its player is back

_NO_PRESENCE: Presence = {"sockets": 0, "away_since": None, "hold_until": None}


def _key(seat: int) -> str:
    return str(seat)


# --- readers ----------------------------------------------------------------------------


def clock(game: Game, seat: int) -> Clock | None:
    """The seat's running clock (a dict, see docs/clocks.md), or None: no person's decision."""
    return (game.clocks or {}).get(_key(seat))


def clocks(game: Game) -> list[tuple[int, Clock]]:
    """Every running clock as (seat, clock), in seat order."""
    return sorted((int(k), c) for k, c in (game.clocks or {}).items())


def due(game: Game, seat: int) -> datetime | None:
    """When the seat's clock runs out, or None."""
    running = clock(game, seat)
    return None if running is None else deadlines.at(running["due"])


def timeouts_of(game: Game, seat: int) -> int:
    """How many time-outs the seat has had in this game."""
    return int((game.timeouts or {}).get(_key(seat), 0))


def stand_in(game: Game, seat: int) -> StandIn | None:
    """The seat's stand-in entry ({"reason", "since"}) while a bot plays for its person, or None."""
    return (game.stand_ins or {}).get(_key(seat))


def for_good(game: Game, seat: int) -> bool:
    """A bot plays this person's seat for the rest of the game (its time-outs)."""
    entry = stand_in(game, seat)
    return entry is not None and entry.get("reason") == FOR_GOOD


def away(game: Game, seat: int) -> bool:
    """A bot plays this person's seat until its player comes back."""
    entry = stand_in(game, seat)
    return entry is not None and entry.get("reason") == AWAY


def bot_moves(game: Game, seat: int) -> bool:
    """A bot makes this seat's decisions now: a bot's seat, or a person's it stands in for."""
    return seat in (game.bot_seats or [])


def bot_seat(game: Game, seat: int) -> bool:
    """The seat is a bot's own (not a person's a bot stands in for)."""
    return bot_moves(game, seat) and stand_in(game, seat) is None


def waiting(game: Game) -> list[int]:
    """The seats with a decision pending (a person's or a bot's), in seat order."""
    return sorted(game.waiting_on or [])


def waited_on(game: Game, seat: int) -> bool:
    return seat in (game.waiting_on or [])


def person_waited_on(
    waiting_on: Iterable[int] | None, bot_seats: Iterable[int] | None, seat: int
) -> bool:
    """From the two list columns as a query read them: the seat's person must decide (it
    has a decision pending and no bot makes it)."""
    return seat in (waiting_on or []) and seat not in (bot_seats or [])


def person_to_move(game: Game, seat: int) -> bool:
    """The seat's person must decide now: a decision pending, and no bot makes it."""
    return person_waited_on(game.waiting_on, game.bot_seats, seat)


def people_waited_on(game: Game) -> list[int]:
    """The seats whose people must decide now, in seat order."""
    return [s for s in waiting(game) if not bot_moves(game, s)]


def presence(game: Game, seat: int) -> Presence:
    """The seat's presence entry (a copy: sockets, away_since, hold_until)."""
    return cast(Presence, dict((game.presence or {}).get(_key(seat)) or _NO_PRESENCE))


def present(game: Game, seat: int) -> bool:
    """The seat's player has a socket open at the table."""
    return presence(game, seat)["sockets"] > 0


def bot_level(game: Game, seat: int) -> str | None:
    """The level of the bot that moves for `seat` now, or None when no bot does: the seat's
    own level, or STAND_IN_BOT_LEVEL for a person's seat a bot plays for. One query."""
    level = (
        Seat.objects.filter(game_id=game.pk, number=seat)
        .exclude(bot_level="")
        .values_list("bot_level", flat=True)
        .first()
    )
    if level is None and bot_moves(game, seat):
        return str(settings.STAND_IN_BOT_LEVEL)
    return None if level is None else str(level)


def bot_seed(game: Game, seat: int, seq: int) -> int:
    """The seed of the bot that decides for `seat` after event `seq`: the same position
    gets the same move whoever asks (a bot's task, a missed deadline's stand-in)."""
    return (game.seed + seq * 131 + seat) & (2**63 - 1)


def deadline_columns(
    game: Game,
    *,
    clocks: dict[str, Clock] | None = None,
    presence: dict[str, Presence] | None = None,
    stand_ins: dict[str, StandIn] | None = None,
) -> DeadlineColumns:
    """`deadline_at` and `wake_at` for the game's seats, with the columns given in place of
    the game's."""
    return deadlines.columns(
        game.clocks if clocks is None else clocks,
        game.presence if presence is None else presence,
        game.stand_ins if stand_ins is None else stand_ins,
    )


# --- writers ----------------------------------------------------------------------------


class SeatChanges:
    """Changes to the seats of one game, held under its row lock until they are written.

    Works on copies: `game` is unchanged until `apply()`. `columns()` is what to write:
    each seat column that changed, and `deadline_at`/`wake_at` where they differ from the
    game's (a sweep that changed nothing writes nothing)."""

    _NAMES = ("clocks", "timeouts", "stand_ins", "presence", "bot_seats")

    def __init__(self, game: Game) -> None:
        self.game = game
        # Copies of the JSON columns (django-stubs types a JSONField as Any).
        self.clocks = {k: cast(Clock, dict(v)) for k, v in (game.clocks or {}).items()}
        self.timeouts: dict[str, int] = dict(game.timeouts or {})
        self.stand_ins = {k: cast(StandIn, dict(v)) for k, v in (game.stand_ins or {}).items()}
        self.presence = {k: cast(Presence, dict(v)) for k, v in (game.presence or {}).items()}
        self.bot_seats: list[int] = list(game.bot_seats or [])
        self._changed: set[str] = set()

    # clocks
    def start_clock(self, seat: int, since: int, kind: str, now: datetime) -> Clock:
        self.clocks[_key(seat)] = deadlines.new_clock(self.game, since, kind, now)
        self._changed.add("clocks")
        return self.clocks[_key(seat)]

    def drop_clock(self, seat: int) -> bool:
        """Ends the seat's clock; True if it had one."""
        if self.clocks.pop(_key(seat), None) is None:
            return False
        self._changed.add("clocks")
        return True

    def due(self, seat: int) -> datetime | None:
        """When the seat's clock (as changed) runs out, or None."""
        running = self.clocks.get(_key(seat))
        return None if running is None else deadlines.at(running["due"])

    def reminders_due(self, now: datetime) -> list[tuple[int, int]]:
        """Marks every clock whose half-time reminder is due as reminded; returns
        (seat, since) of each."""
        due = []
        for key, running in self.clocks.items():
            remind_at = deadlines.at(running.get("remind_at"))
            if remind_at and remind_at <= now and not running.get("reminded"):
                running["reminded"] = True
                due.append((int(key), running["since"]))
        if due:
            self._changed.add("clocks")
        return due

    # time-outs and stand-ins
    def count_timeout(self, seat: int) -> int:
        """One more time-out of the seat; returns its total."""
        self.timeouts[_key(seat)] = self.timeouts.get(_key(seat), 0) + 1
        self._changed.add("timeouts")
        return self.timeouts[_key(seat)]

    def hand_to_bot(self, seat: int, reason: str, now: datetime) -> None:
        """A bot plays for the seat's person (`reason`: FOR_GOOD or AWAY)."""
        self.stand_ins[_key(seat)] = {"reason": reason, "since": deadlines.iso(now)}
        if seat not in self.bot_seats:
            self.bot_seats = sorted({*self.bot_seats, seat})
        self._changed.update(("stand_ins", "bot_seats"))

    def hand_back(self, seat: int) -> None:
        """The seat's person plays again: its stand-in stands down."""
        self.stand_ins.pop(_key(seat), None)
        self.bot_seats = [s for s in self.bot_seats if s != seat]
        self._changed.update(("stand_ins", "bot_seats"))

    def stand_in(self, seat: int) -> StandIn | None:
        return self.stand_ins.get(_key(seat))

    def become_bot(self, seat: int) -> None:
        """The seat is a bot's own from now on (a moderator's hand-over): no clock, no hold,
        no stand-in entry; a bot neither times out nor is held."""
        self.drop_clock(seat)
        if self.presence.pop(_key(seat), None) is not None:
            self._changed.add("presence")
        self.stand_ins.pop(_key(seat), None)
        self.bot_seats = sorted({*self.bot_seats, seat})
        self._changed.update(("stand_ins", "bot_seats"))

    # presence
    def presence_of(self, seat: int) -> Presence:
        return cast(Presence, dict(self.presence.get(_key(seat)) or _NO_PRESENCE))

    def set_presence(self, seat: int, entry: Presence) -> None:
        self.presence[_key(seat)] = entry
        self._changed.add("presence")

    def holds_ended(self, now: datetime) -> list[int]:
        """The seats whose hold ended by `now` and that no bot stands in for yet."""
        return [
            int(key)
            for key, entry in self.presence.items()
            if (hold_until := deadlines.at(entry.get("hold_until")))
            and hold_until <= now
            and key not in self.stand_ins
        ]

    def columns(self) -> dict[str, Any]:
        columns = {name: getattr(self, name) for name in self._NAMES if name in self._changed}
        columns.update(
            (name, value)
            for name, value in deadlines.columns(self.clocks, self.presence, self.stand_ins).items()
            if getattr(self.game, name) != value
        )
        return columns

    def apply(self) -> None:
        """Sets the changed columns on `game` (once they are, or will be, written)."""
        for name, value in self.columns().items():
            setattr(self.game, name, value)
