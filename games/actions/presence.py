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
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import deadlines, effects, store
from games.actions import clock
from games.models import Game

log = logging.getLogger(__name__)

_DONE = (Game.Status.FINISHED, Game.Status.ABORTED)


def _locked(game_id):
    return Game.objects.select_for_update().filter(pk=game_id).first()


def _entry(game, seat):
    return dict((game.presence or {}).get(str(seat)) or
                {"sockets": 0, "away_since": None, "hold_until": None})


def _real_bot(game, seat):
    return seat in game.bot_seats and str(seat) not in (game.stand_ins or {})


def _save(game, presence, **more):
    """Writes the seat's `presence` and the `more` columns that changed with it, and the
    deadline columns that follow from them."""
    clocks = more.get("clocks", game.clocks)
    stand_ins = more.get("stand_ins", game.stand_ins)
    columns = {"presence": presence, **more, **deadlines.columns(clocks, presence, stand_ins)}
    Game.objects.filter(pk=game.pk).update(**columns)


def seat_connected(game_id, seat):
    """A socket of `seat`'s player opened. Returns the seat's presence entry, or None.

    Locks the game row. Ends a hold; if a bot was playing for the player while
    away, the seat is theirs again at once (out of `bot_seats`), and a decision
    pending for it that the bot has not made yet becomes the player's, with a
    fresh clock. A seat handed to a bot for its time-outs stays the bot's.
    """
    now = timezone.now()
    with transaction.atomic():
        game = _locked(game_id)
        if game is None or game.status in _DONE or _real_bot(game, seat):
            return None
        presence = dict(game.presence or {})
        entry = _entry(game, seat)
        entry.update(sockets=entry["sockets"] + 1, away_since=None, hold_until=None)
        presence[str(seat)] = entry
        more = {}
        stand_in = (game.stand_ins or {}).get(str(seat))
        if stand_in and stand_in["reason"] == "away":
            more["stand_ins"] = {k: v for k, v in game.stand_ins.items() if k != str(seat)}
            more["bot_seats"] = [s for s in game.bot_seats if s != seat]
            effects.log_on_commit(log, "game %s: seat %s is back, its bot stands down",
                                  game.pk, seat, game=game.pk, seat=seat)
            if seat in game.waiting_on:
                kind = store.load_state(game).view(None).get("decision")
                more["clocks"] = {**game.clocks,
                                  str(seat): deadlines.new_clock(game, game.last_seq, kind, now)}
                if game.pace == Game.Pace.REALTIME:
                    more.update(clock.countdown_columns(game, now + game.decision_window(), now))
        _save(game, presence, **more)
    return entry


def seat_disconnected(game_id, seat):
    """A socket of `seat`'s player closed. Returns the seat's presence entry, or None.

    Locks the game row. When the seat's last socket closes in an active
    real-time game, the two-minute hold starts (the sweep hands the seat to a
    bot when it ends). Turn-by-turn games only count sockets.
    """
    now = timezone.now()
    with transaction.atomic():
        game = _locked(game_id)
        if game is None or game.status in _DONE or _real_bot(game, seat):
            return None
        presence = dict(game.presence or {})
        entry = _entry(game, seat)
        entry["sockets"] = max(entry["sockets"] - 1, 0)
        if (entry["sockets"] == 0 and game.status == Game.Status.ACTIVE
                and game.pace == Game.Pace.REALTIME and entry["hold_until"] is None
                and str(seat) not in (game.stand_ins or {})):
            hold = timedelta(seconds=settings.DISCONNECT_HOLD_SECONDS)
            entry.update(away_since=deadlines.iso(now), hold_until=deadlines.iso(now + hold))
        presence[str(seat)] = entry
        _save(game, presence)
    return entry
