"""Moderator actions: abort a table, hand a seat to a bot, remove a user, change the options
of a table not yet dealt, resolve a report, suspend or ban.

Each checks its moderator first (`staff.refusal`: active staff holding the permission the
action needs, and seated neither at the table nor, for an account, at a live table with
that account), whoever calls it: the admin offers an action only to staff who hold its
permission, and the function refuses the others all the same.

Each action on a table appends one GameEvent (actor "moderator", `user` = the
moderator, `created_at` = when) through the decision door
(`decisions.append_note`, by way of `staff.record`), under the game row's lock,
written together with the game's columns the action changes. Its `action` is
None, so replays and `load_state` pass over it like the deal: the engine's state
is never changed by a moderator. Its `events` hold one public line (what
happened, for the table's log and replays) and one staff-only note with the
reason (`visible_to: []`, which `events_for` shows to no seat). Actions on an
account append an AccountAudit row, and a ban's or a suspension's seats handed on
are events at each of the account's tables.

Each raises ModerationError with a message fit to show, and then changes nothing.
"""

from functools import partial

from django.db import transaction
from django.utils import timezone

from accounts.models import AccountAudit, User
from games import effects
from games.actions import account_events, decisions
from games.models import Game, Seat
from games.moderation import staff
from games.moderation.models import Report
from games.store import seats

MODERATOR_KIND = staff.MODERATOR_KIND
DEFAULT_BOT = Seat.BotLevel.NORMAL
# What a moderator may change of a table not yet dealt. The seat count and the host are
# the lobby's (they decide which seats exist and who may start), the rest is the game's own.
OPTIONS = [name for name in Game.TABLE_OPTIONS if name != "players"]


class ModerationError(Exception):
    pass


def _require_reason(reason):
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError("Say why: a moderator action needs a reason.")
    return reason


def _check(moderator, permission, **about):
    refused = staff.refusal(moderator, permission, **about)
    if refused:
        raise ModerationError(refused)


def _lock(game_id):
    return Game.objects.select_for_update(of=("self",)).get(pk=game_id)


def _append(game, *, what, seat, moderator, reason, columns=None, now=None, **details):
    """Appends the moderator's event and the game's `columns` it changes; inside the
    game's lock."""
    return staff.record(
        game,
        moderator,
        what=what,
        seat=seat,
        reason=reason,
        columns=columns or {},
        now=now,
        **details,
    )


def abort_table(game_id, moderator, reason):
    """Ends an open or running table with no result (status aborted)."""
    reason = _require_reason(reason)
    with transaction.atomic():
        game = _lock(game_id)
        _check(moderator, staff.TABLES, game_id=game.pk)
        if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
            raise ModerationError(
                f"Table {game.pk} is already {game.get_status_display().lower()}."
            )
        now = timezone.now()
        account_events.aborted(game)
        return _append(
            game,
            what="abort",
            seat=None,
            moderator=moderator,
            reason=reason,
            now=now,
            columns={
                "status": Game.Status.ABORTED,
                "finished_at": now,
                **decisions.nothing_pending(),
            },
        )


def change_options(game_id, moderator, changes, reason):
    """Sets `changes` ({option: value}, names from OPTIONS) on a table not yet dealt; once
    it is dealt its options are fixed (the engine's state, the clocks and the ratings were
    built from them)."""
    reason = _require_reason(reason)
    unknown = sorted(set(changes) - set(OPTIONS))
    if unknown:
        raise ModerationError(f"A moderator cannot change {', '.join(unknown)}.")
    with transaction.atomic():
        game = _lock(game_id)
        _check(moderator, staff.TABLES, game_id=game.pk)
        if game.status != Game.Status.OPEN:
            raise ModerationError(f"Table {game.pk} has been dealt: its options are fixed.")
        if changes.get("rated") and not game.rated:
            # Rated is the host's choice, and the lobby checks each player who sits down
            # at a rated table (a confirmed address): a moderator may take it away, not give it.
            raise ModerationError(
                "A moderator may make a table casual, not rated: the host "
                "chooses a rated table in the lobby."
            )
        if not changes:
            return None
        return _append(
            game,
            what="options",
            seat=None,
            moderator=moderator,
            reason=reason,
            columns=dict(changes),
            options=dict(sorted(changes.items())),
        )


def _bot_columns(game, number, now):
    """A running game's columns once seat `number` is a bot's (games.store.seats,
    `become_bot`: no clock, hold or stand-in entry of its own) and, when it has a decision
    pending, its move due now."""
    changes = seats.SeatChanges(game)
    changes.become_bot(number)
    columns = changes.columns()
    if seats.waited_on(game, number):
        columns["bot_due_at"] = now
    return columns


def replace_with_bot(game_id, number, moderator, reason, level=DEFAULT_BOT):
    """Hands seat `number` (a user's) to a bot of `level`; a running game goes on."""
    reason = _require_reason(reason)
    if level not in Seat.BotLevel.values:
        raise ModerationError("Pick a bot level: easy, normal or hard.")
    with transaction.atomic():
        game = _lock(game_id)
        _check(moderator, staff.TABLES, game_id=game.pk)
        return _replace(game, number, moderator, reason, level, what="bot")


def _replace(game, number, moderator, reason, level, *, what):
    """replace_with_bot once the game is locked and the moderator checked."""
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
    account_events.moderator_took(game, number, columns)
    event = _append(
        game,
        what=what,
        seat=number,
        moderator=moderator,
        reason=reason,
        now=now,
        columns=columns,
        player=former.name,
        bot=level,
    )
    # The former player's open socket at this table is closed (it acted for the seat); its
    # bot's move, if the seat has one to make, is sent by staff.record.
    transaction.on_commit(partial(effects.access_changed, former.pk))
    return event


def remove_user(game_id, user, moderator, reason):
    """Takes `user` off a table. An open table's seat is emptied (the host's removal
    closes the table, as when a host leaves); at a running table a bot takes the seat,
    since a game cannot go on with an empty seat."""
    reason = _require_reason(reason)
    with transaction.atomic():
        game = _lock(game_id)
        _check(moderator, staff.TABLES, game_id=game.pk)
        return _remove(game, user, moderator, reason)


def _remove(game, user, moderator, reason):
    """remove_user once the game is locked and the moderator checked (a ban's or a
    suspension's check covers the seats it hands on)."""
    seat = Seat.objects.filter(game=game, user=user).first()
    if seat is None:
        raise ModerationError(f"{user} is not seated at table {game.pk}.")
    if game.status == Game.Status.ACTIVE:
        return _replace(game, seat.number, moderator, reason, DEFAULT_BOT, what="remove")
    if game.status != Game.Status.OPEN:
        raise ModerationError(f"Table {game.pk} is not being played.")
    seat.user = None
    seat.save(update_fields=["user"])
    columns = {}
    if game.host_id == user.pk:
        game.seats.update(user=None, bot_level="")
        columns["status"] = Game.Status.ABORTED
    return _append(
        game,
        what="remove",
        seat=seat.number,
        moderator=moderator,
        reason=reason,
        columns=columns,
        player=user.name,
    )


def _bench_running_seats(user, moderator, reason):
    """A restricted account's running seats go to bots; its open seats are emptied."""
    events = []
    game_ids = list(
        Seat.objects.filter(
            user=user, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE]
        ).values_list("game_id", flat=True)
    )
    for game_id in game_ids:
        try:
            with transaction.atomic():
                events.append(_remove(_lock(game_id), user, moderator, reason))
        except ModerationError:
            pass  # the table ended meanwhile
    return events


def resolve_report(report_id, moderator):
    """Marks a report resolved, by `moderator`; written to its table's log for staff only
    (the table is not told that someone reported)."""
    with transaction.atomic():
        game_id = Report.objects.filter(pk=report_id).values_list("game_id", flat=True).first()
        if game_id is None:
            raise ModerationError("There is no such report.")
        game = _lock(game_id)
        _check(moderator, staff.REPORTS, game_id=game.pk)
        report = (
            Report.objects.select_for_update(of=("self",))
            .select_related("reported")
            .get(pk=report_id)
        )
        if report.resolved_at is not None:
            raise ModerationError(f"{report} is already resolved.")
        report.resolved_at, report.resolved_by = timezone.now(), moderator
        report.save(update_fields=["resolved_at", "resolved_by"])
        staff.record(
            game,
            moderator,
            what="report",
            seat=None,
            public=False,
            reason=report.note.strip() or "resolved",
            report=report.pk,
            player=report.reported.name if report.reported else None,
        )
        return report


def suspend(user, moderator, reason, until):
    """Suspends `user` until `until`: no log-in, no session, seats handed on."""
    reason = _require_reason(reason)
    _check(moderator, staff.ACCOUNTS, user=user)
    if user.pk == moderator.pk:
        raise ModerationError("You cannot suspend yourself.")
    if until <= timezone.now():
        raise ModerationError("A suspension must end in the future.")
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(suspended_until=until)
        user.suspended_until = until
        audit = AccountAudit.objects.create(
            user=user,
            moderator=moderator,
            action=AccountAudit.Action.SUSPEND,
            reason=reason,
            until=until,
        )
        _bench_running_seats(user, moderator, f"account suspended: {reason}")
        transaction.on_commit(partial(effects.access_changed, user.pk))
    return audit


def ban(user, moderator, reason):
    """Bans `user`: no log-in, no session, every running seat goes to a bot."""
    reason = _require_reason(reason)
    _check(moderator, staff.ACCOUNTS, user=user)
    if user.pk == moderator.pk:
        raise ModerationError("You cannot ban yourself.")
    with transaction.atomic():
        now = timezone.now()
        User.objects.filter(pk=user.pk).update(banned_at=now)
        user.banned_at = now
        audit = AccountAudit.objects.create(
            user=user,
            moderator=moderator,
            action=AccountAudit.Action.BAN,
            reason=reason,
        )
        _bench_running_seats(user, moderator, f"account banned: {reason}")
        transaction.on_commit(partial(effects.access_changed, user.pk))
    return audit


def lift(user, moderator, reason):
    """Ends a ban or a suspension."""
    reason = _require_reason(reason)
    _check(moderator, staff.ACCOUNTS, user=user)
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(banned_at=None, suspended_until=None)
        user.banned_at = user.suspended_until = None
        return AccountAudit.objects.create(
            user=user,
            moderator=moderator,
            action=AccountAudit.Action.LIFT,
            reason=reason,
        )
