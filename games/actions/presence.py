"""Who is at the table: the websocket consumer reports each seat's sockets here.

The rule book ("If you disconnect"): in a real-time game a dropped seat is held
for two minutes, then a bot plays for the player until they return; coming
back hands the seat straight back. The hold's end is a time on the game
(`presence[seat].hold_until`, folded into `wake_at`) that the clock sweep acts
on (games.actions.timeouts.handle); these functions only record sockets and, on return,
take the seat back. Both are synchronous: call them through
`database_sync_to_async`. See docs/clocks.md.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import deadlines, effects, store
from games.actions import account_events, clock
from games.deadlines import Presence
from games.models import Game
from games.store import seats

log = logging.getLogger(__name__)

_DONE = (Game.Status.FINISHED, Game.Status.ABORTED)


def _locked(game_id: int) -> Game | None:
    return Game.objects.select_for_update().filter(pk=game_id).first()


def seat_connected(game_id: int, seat: int) -> Presence | None:
    """A socket of `seat`'s player opened. Returns the seat's presence entry, or None.

    Locks the game row. Ends a hold; if a bot was playing for the player while
    away, the seat is theirs again at once (out of `bot_seats`), and a decision
    pending for it that the bot has not made yet becomes the player's, with a
    fresh clock. A seat handed to a bot for its time-outs stays the bot's.
    """
    now = timezone.now()
    with transaction.atomic():
        game = _locked(game_id)
        if game is None or game.status in _DONE or seats.bot_seat(game, seat):
            return None
        changes = seats.SeatChanges(game)
        entry = changes.presence_of(seat)
        entry["sockets"] += 1
        entry["away_since"] = entry["hold_until"] = None
        changes.set_presence(seat, entry)
        countdown: dict[str, datetime] = {}
        if seats.away(game, seat):
            changes.hand_back(seat)
            account_events.stand_in_ended(game, seat)
            effects.log_on_commit(
                log,
                "game %s: seat %s is back, its bot stands down",
                game.pk,
                seat,
                game=game.pk,
                seat=seat,
            )
            if seats.waited_on(game, seat):
                kind = store.load_state(game).view(None).get("decision")
                if kind is not None:  # always: there is none only once the game is over
                    changes.start_clock(seat, game.last_seq, kind, now)
                    if game.pace == Game.Pace.REALTIME:
                        countdown = clock.countdown_columns(game, now + game.decision_window(), now)
        store.save_columns(game, {**changes.columns(), **countdown})
    return entry


def seat_disconnected(game_id: int, seat: int) -> Presence | None:
    """A socket of `seat`'s player closed. Returns the seat's presence entry, or None.

    Locks the game row. When the seat's last socket closes in an active
    real-time game, the two-minute hold starts (the sweep hands the seat to a
    bot when it ends). Turn-by-turn games only count sockets.
    """
    now = timezone.now()
    with transaction.atomic():
        game = _locked(game_id)
        if game is None or game.status in _DONE or seats.bot_seat(game, seat):
            return None
        changes = seats.SeatChanges(game)
        entry = changes.presence_of(seat)
        entry["sockets"] = max(entry["sockets"] - 1, 0)
        if (
            entry["sockets"] == 0
            and game.status == Game.Status.ACTIVE
            and game.pace == Game.Pace.REALTIME
            and entry["hold_until"] is None
            and seats.stand_in(game, seat) is None
        ):
            hold = timedelta(seconds=settings.DISCONNECT_HOLD_SECONDS)
            entry["away_since"] = deadlines.iso(now)
            entry["hold_until"] = deadlines.iso(now + hold)
        changes.set_presence(seat, entry)
        store.save_columns(game, changes.columns())
    return entry
