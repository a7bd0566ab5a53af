"""Moderator actions: abort a table, hand a seat to a bot, remove a user, suspend or ban.

Each action on a table appends one GameEvent (actor "moderator", `user` = the
moderator, `created_at` = when) through the decision door
(`decisions.append_note`), under the game row's lock, written together with the
game's columns the action changes. Its `action` is None, so replays and
`load_state` pass over it like the deal: the engine's state is never changed by a
moderator. Its `events` hold one public line (what happened, for the table's
log and replays) and one staff-only note with the reason (`visible_to: []`,
which `events_for` shows to no seat). Actions on an account append an
AccountAudit row.

Every function here trusts its caller to have checked that `moderator` is
staff (the admin does); each raises ModerationError with a message fit to show.
"""

from functools import partial

from django.db import transaction
from django.utils import timezone

from accounts.models import AccountAudit, User
from games import deadlines, effects
from games.actions import decisions
from games.models import Game, GameEvent, Seat

MODERATOR_KIND = "moderator"
DEFAULT_BOT = Seat.BotLevel.NORMAL


class ModerationError(Exception):
    pass


def _require_reason(reason):
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError("Say why: a moderator action needs a reason.")
    return reason


def _lock(game_id):
    return Game.objects.select_for_update(of=("self",)).get(pk=game_id)


def _append(game, *, what, seat, moderator, reason, columns=None, now=None, **details):
    """Appends the moderator's event and the game's `columns` it changes; inside the
    game's lock."""
    public = {"type": "moderator", "action": what, "seat": seat, **details, "visible_to": None}
    note = {"type": "moderator_note", "reason": reason,
            "moderator": moderator.get_username(), "visible_to": []}
    return decisions.append_note(
        game, kind=MODERATOR_KIND, actor=GameEvent.Actor.MODERATOR, user=moderator, seat=seat,
        events=[public, note], columns=columns, now=now,
    )


def abort_table(game_id, moderator, reason):
    """Ends an open or running table with no result (status aborted)."""
    reason = _require_reason(reason)
    with transaction.atomic():
        game = _lock(game_id)
        if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
            raise ModerationError(f"Table {game.pk} is already {game.get_status_display().lower()}.")
        now = timezone.now()
        return _append(game, what="abort", seat=None, moderator=moderator, reason=reason,
                       now=now, columns={"status": Game.Status.ABORTED, "finished_at": now,
                                         **decisions.nothing_pending()})


def _bot_columns(game, number, now):
    """A running game's columns once seat `number` is a bot's: the seat is in `bot_seats`
    and has no clock, hold or stand-in entry of its own (a bot neither times out nor is
    held for a player's return), and, when it has a decision pending, its move is due now."""
    key = str(number)
    clocks = {k: v for k, v in game.clocks.items() if k != key}
    presence = {k: v for k, v in game.presence.items() if k != key}
    stand_ins = {k: v for k, v in game.stand_ins.items() if k != key}
    columns = {"bot_seats": sorted({*game.bot_seats, number}), "clocks": clocks,
               "presence": presence, "stand_ins": stand_ins,
               **deadlines.columns(clocks, presence, stand_ins)}
    if number in game.waiting_on:
        columns["bot_due_at"] = now
    return columns


def replace_with_bot(game_id, number, moderator, reason, level=DEFAULT_BOT, *, what="bot"):
    """Hands seat `number` (a user's) to a bot of `level`; a running game goes on."""
    reason = _require_reason(reason)
    if level not in Seat.BotLevel.values:
        raise ModerationError("Pick a bot level: easy, normal or hard.")
    with transaction.atomic():
        game = _lock(game_id)
        if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
            raise ModerationError(f"Table {game.pk} is not being played.")
        seat = Seat.objects.select_related("user").get(game=game, number=number)
        if seat.user_id is None:
            raise ModerationError(f"Seat {number} of table {game.pk} has no player.")
        former = seat.user
        seat.user, seat.bot_level = None, level
        seat.save(update_fields=["user", "bot_level"])
        now = timezone.now()
        running = game.status == Game.Status.ACTIVE
        columns = _bot_columns(game, number, now) if running else {}
        event = _append(game, what=what, seat=number, moderator=moderator, reason=reason,
                        now=now, columns=columns, player=former.name, bot=level)
        # The former player's open socket at this table is closed (it acted for the seat).
        transaction.on_commit(partial(effects.access_changed, former.pk))
        if running and number in game.waiting_on:
            effects.task_on_commit("games.tasks.play_bot", game.pk, number, game.last_seq)
        return event


def remove_user(game_id, user, moderator, reason):
    """Takes `user` off a table. An open table's seat is emptied (the host's removal
    closes the table, as when a host leaves); at a running table a bot takes the seat,
    since a game cannot go on with an empty seat."""
    reason = _require_reason(reason)
    with transaction.atomic():
        game = _lock(game_id)
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is None:
            raise ModerationError(f"{user} is not seated at table {game.pk}.")
        if game.status == Game.Status.ACTIVE:
            return replace_with_bot(game.pk, seat.number, moderator, reason, what="remove")
        if game.status != Game.Status.OPEN:
            raise ModerationError(f"Table {game.pk} is not being played.")
        seat.user = None
        seat.save(update_fields=["user"])
        columns = {}
        if game.host_id == user.pk:
            game.seats.update(user=None, bot_level="")
            columns["status"] = Game.Status.ABORTED
        return _append(game, what="remove", seat=seat.number, moderator=moderator,
                       reason=reason, columns=columns, player=user.name)


def _bench_running_seats(user, moderator, reason):
    """A restricted account's running seats go to bots; its open seats are emptied."""
    events = []
    game_ids = list(
        Seat.objects.filter(user=user, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
        .values_list("game_id", flat=True)
    )
    for game_id in game_ids:
        try:
            events.append(remove_user(game_id, user, moderator, reason))
        except ModerationError:
            pass  # the table ended meanwhile
    return events


def suspend(user, moderator, reason, until):
    """Suspends `user` until `until`: no log-in, no session, seats handed on."""
    reason = _require_reason(reason)
    if until <= timezone.now():
        raise ModerationError("A suspension must end in the future.")
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(suspended_until=until)
        user.suspended_until = until
        audit = AccountAudit.objects.create(
            user=user, moderator=moderator, action=AccountAudit.Action.SUSPEND, reason=reason,
            until=until,
        )
        _bench_running_seats(user, moderator, f"account suspended: {reason}")
        transaction.on_commit(partial(effects.access_changed, user.pk))
    return audit


def ban(user, moderator, reason):
    """Bans `user`: no log-in, no session, every running seat goes to a bot."""
    reason = _require_reason(reason)
    if user.pk == moderator.pk:
        raise ModerationError("You cannot ban yourself.")
    with transaction.atomic():
        now = timezone.now()
        User.objects.filter(pk=user.pk).update(banned_at=now)
        user.banned_at = now
        audit = AccountAudit.objects.create(
            user=user, moderator=moderator, action=AccountAudit.Action.BAN, reason=reason,
        )
        _bench_running_seats(user, moderator, f"account banned: {reason}")
        transaction.on_commit(partial(effects.access_changed, user.pk))
    return audit


def lift(user, moderator, reason):
    """Ends a ban or a suspension."""
    reason = _require_reason(reason)
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(banned_at=None, suspended_until=None)
        user.banned_at = user.suspended_until = None
        return AccountAudit.objects.create(
            user=user, moderator=moderator, action=AccountAudit.Action.LIFT, reason=reason,
        )
