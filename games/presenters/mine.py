"""A player's running games and which of them wait on them: the "My games" page, the home
page's panel, the header's count (games.context) and the site socket's message
(games.consumers.SiteConsumer). docs/my-games.md.

Only the game's public columns (`waiting_on`, `bot_seats`, `deadline_at`, the pace) and the
seats' names are read, never a state or a view: nothing here can name a card.

"Waiting on you": the reader's seat is in `waiting_on` and no bot plays it (`bot_seats`: a
stand-in while they are away, or for good). Those games come first, the soonest deadline
first (a real-time game's deadline is seconds away, so it leads), then the others the same way.
"""

import zoneinfo
from datetime import UTC, datetime, tzinfo
from typing import Any

from django.db.models import Prefetch
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Game, Seat
from games.presenters.describe import seat_names
from games.store import seats

PANEL_ROWS = 5  # the home page's panel; the page lists every game
_LAST = datetime.max.replace(tzinfo=UTC)

# One running game waiting on its reader (`waiting`): (game id, last_seq, deadline_at,
# players, pace, move_seconds, turn_hours).
Waiting = tuple[int, int, datetime | None, int, str, int, int]


def _order(
    waits_on_reader: bool, deadline: datetime | None, game_id: int
) -> tuple[bool, bool, datetime, int]:
    return (not waits_on_reader, deadline is None, deadline or _LAST, game_id)


def waiting(user_id: int) -> list[Waiting]:
    """[(game id, last_seq, deadline_at, players, pace, move_seconds, turn_hours)] of the
    running games waiting on `user_id`, in the page's order. One query."""
    found: list[Waiting] = []
    seated = Seat.objects.filter(user_id=user_id, game__status=Game.Status.ACTIVE)
    for (
        game_id,
        number,
        waiting_on,
        bots,
        seq,
        deadline,
        players,
        pace,
        seconds,
        hours,
    ) in seated.values_list(
        "game_id",
        "number",
        "game__waiting_on",
        "game__bot_seats",
        "game__last_seq",
        "game__deadline_at",
        "game__players",
        "game__pace",
        "game__move_seconds",
        "game__turn_hours",
    ):
        if seats.person_waited_on(waiting_on, bots, number):
            found.append((game_id, seq, deadline, players, pace, seconds, hours))
    found.sort(key=lambda row: _order(True, row[2], row[0]))
    return found


def waiting_count(user_id: int) -> int:
    return len(waiting(user_id))


def _pace_label(pace: str, seconds: int, hours: int) -> str:
    if pace == Game.Pace.REALTIME:
        return f"Real time, {seconds} s a move"
    return f"Turn by turn, {hours} h a turn"


def _zone(name: str) -> tzinfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return UTC


def socket_message(user: User) -> dict[str, Any]:
    """What the site socket sends `user`: how many games wait on them and, for each, what
    a browser notification says. Absolute times only (in the user's zone), so the message
    changes when a game does, not as the clock runs."""
    zone = _zone(user.time_zone)
    games: list[dict[str, Any]] = []
    for game_id, seq, deadline, players, pace, seconds, hours in waiting(user.pk):
        if pace == Game.Pace.REALTIME or deadline is None:
            body = f"{players} players. {_pace_label(pace, seconds, hours)}."
        else:
            body = (
                f"{players} players, turn by turn. Answer by "
                f"{deadline.astimezone(zone):%a %d %b, %H:%M}."
            )
        games.append(
            {
                "id": game_id,
                "seq": seq,
                "url": reverse("games:play", args=[game_id]),
                "title": f"Your turn at table {game_id}",
                "body": body,
            }
        )
    return {"type": "waiting", "count": len(games), "games": games}


def until(moment: datetime, now: datetime) -> str:
    """ "in 5 h", "in 40 min", "in 2 days": a rough distance for a deadline."""
    seconds = (moment - now).total_seconds()
    if seconds <= 60:
        return "now"
    minutes = seconds / 60
    if minutes < 60:
        return f"in {int(minutes)} min"
    hours = minutes / 60
    if hours < 48:
        return f"in {int(hours)} h"
    return f"in {int(hours // 24)} days"


def _names_list(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _row(game: Game, user: User, now: datetime) -> dict[str, Any]:
    rows = list(game.seats.all())
    names = seat_names(rows)
    mine = next(s.number for s in rows if s.user_id == user.pk)
    waiting_on = seats.waiting(game)
    teams = [
        {
            "players": [names[s.number] for s in rows if s.number % game.teams == t],
            "mine": t == mine % game.teams,
        }
        for t in range(game.teams)
    ]
    # The reader first, as "you", then the others in seat order.
    waited = (["you"] if mine in waiting_on else []) + [
        names[s] for s in waiting_on if s != mine and s in names
    ]
    realtime = game.pace == Game.Pace.REALTIME
    # As the table shows it: a deadline only while a person must decide.
    deadline = game.deadline_at if (not realtime and seats.people_waited_on(game)) else None
    stand_in = seats.stand_in(game, mine)
    return {
        "game": game,
        "url": reverse("games:play", args=[game.pk]),
        "teams": teams,
        "yours": seats.person_to_move(game, mine),
        "waiting_text": _names_list(waited),
        "stand_in": None if stand_in is None else stand_in.get("reason", "away"),
        "realtime": realtime,
        "pace": _pace_label(game.pace, game.move_seconds, game.turn_hours),
        "deadline": deadline,
        "deadline_in": until(deadline, now) if deadline else "",
    }


def rows(user: User, now: datetime | None = None) -> list[dict[str, Any]]:
    """One dict per running game `user` sits at, in the page's order. Two queries (the games,
    then their seats with their users)."""
    now = now or timezone.now()
    games = (
        Game.objects.active()
        .filter(seats__user=user)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
    )
    found = [_row(game, user, now) for game in games]
    found.sort(
        key=lambda r: _order(
            r["yours"], r["deadline"] if not r["realtime"] else r["game"].deadline_at, r["game"].pk
        )
    )
    return found


def panel(user: User, now: datetime | None = None) -> dict[str, Any]:
    """The home page's panel: the first PANEL_ROWS rows, and how many there are in all."""
    found = rows(user, now)
    return {
        "rows": found[:PANEL_ROWS],
        "total": len(found),
        "more": max(0, len(found) - PANEL_ROWS),
    }
