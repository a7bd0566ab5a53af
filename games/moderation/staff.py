"""Who may moderate what, and where each moderation is written: one rule for the admin's
actions and for the functions they call (games.moderation.actions and
games.moderation.chat), so that a staff member is refused the same way whichever door an
action comes through (docs/security.md, "Moderators' permissions and their own tables").

- `refusal(moderator, permission, game_id=..., user=...)`: why `moderator` may not take
  an action that needs `permission`, about table `game_id` or account `user`, or None.
  A moderator needs to be active staff holding the permission, and may not act at a
  table where they hold a seat, nor on an account they share a table with that is still
  waiting or being played (a ban hands that account's seat at their own table to a bot).
- `record(game, moderator, ...)`: writes a moderation that concerns a table into that
  table's log. A table still waiting or being played gets a moderator's event
  (`decisions.append_note`: a public line for the table, unless the action is for staff
  only, and a staff-only note with the reason); a game that is over keeps its event log
  as it ended (its replay, export and fairness check read it), and the moderation is
  written to the admin's own record of the game instead (a LogEntry, listed on its event
  log page and its History page), as a reveal is.
"""

import logging

from django.contrib.admin.models import CHANGE, LogEntry

from games import effects
from games.actions import decisions
from games.models import Game, GameEvent, Seat
from games.store import seats

# The permission each kind of moderation needs (docs/security.md).
TABLES = "games.change_game"  # abort a table, hand a seat to a bot, remove a player,
# change the options of a table not yet dealt
ACCOUNTS = "accounts.ban_user"  # suspend, ban, lift
CHAT = "games.moderate_chat"  # hide or show a chat line, mute or unmute in chat
REPORTS = "lobby.change_report"  # resolve a report

LABELS = {
    TABLES: "Can change game",
    ACCOUNTS: "Can ban, suspend and lift accounts",
    CHAT: "Can hide chat messages and mute people in chat",
    REPORTS: "Can change report",
}

log = logging.getLogger(__name__)

MODERATOR_KIND = "moderator"
LIVE = (Game.Status.OPEN, Game.Status.ACTIVE)
LOG_PREFIX = "Moderation: "


def refusal(moderator, permission, *, game_id=None, user=None):
    """The message that refuses `moderator` an action needing `permission` about table
    `game_id` or account `user`, or None when they may take it."""
    if not (moderator.is_active and moderator.is_staff and moderator.has_perm(permission)):
        return (
            f"You may not do this: it needs the permission “{LABELS[permission]}”, "
            f"which your account does not have. Nothing was changed."
        )
    if game_id is not None and Seat.objects.filter(game_id=game_id, user=moderator).exists():
        return (
            f"You hold a seat at table {game_id}: another moderator must act there. "
            f"Nothing was changed."
        )
    if user is not None and user.pk != moderator.pk:
        shared = (
            Seat.objects.filter(user=moderator, game__status__in=LIVE, game__seats__user=user)
            .values_list("game_id", flat=True)
            .first()
        )
        if shared is not None:
            return (
                f"You and {user} are both seated at table {shared}: another moderator "
                f"must act. Nothing was changed."
            )
    return None


def record(
    game, moderator, *, what, reason, seat=None, public=True, columns=None, now=None, **details
):
    """Writes moderation `what` (with `details`, which name no card) into `game`'s log;
    returns the GameEvent or the LogEntry.

    A live table's event is appended under its lock: the caller holds it (and `columns`,
    the game's columns the action changes, are written with it). `public` False keeps the
    whole event for staff (`visible_to: []`): a report's resolution is no business of the
    table's, and would tell the reported player that someone reported them.
    """
    if (columns or {}).get("status") == Game.Status.ABORTED:
        effects.log_on_commit(
            log,
            "game %s aborted by moderator %s",
            game.pk,
            moderator.pk,
            game=game.pk,
            user=moderator.pk,
        )
    else:
        effects.log_on_commit(
            log,
            "game %s: moderator %s, %s (seat %s)",
            game.pk,
            moderator.pk,
            what,
            seat,
            game=game.pk,
            user=moderator.pk,
        )
    if game.status in LIVE or columns:
        line = {
            "type": "moderator",
            "action": what,
            "seat": seat,
            **details,
            "visible_to": None if public else [],
        }
        note = {
            "type": "moderator_note",
            "reason": reason,
            "moderator": moderator.get_username(),
            "visible_to": [],
        }
        event = decisions.append_note(
            game,
            kind=MODERATOR_KIND,
            actor=GameEvent.Actor.MODERATOR,
            user=moderator,
            seat=seat,
            events=[line, note],
            columns=columns,
            now=now,
        )
        if game.status == Game.Status.ACTIVE:
            # A bot's pending move was sent for the position before this event and would
            # find it moved on (games.tasks.play_bot): it is sent again for this one.
            for bot in [s for s in seats.waiting(game) if seats.bot_moves(game, s)]:
                effects.task_on_commit(
                    "games.tasks.play_bot", game.pk, bot, game.last_seq, **decisions.bot_pace(game)
                )
        return event
    said = ", ".join(f"{k} {v}" for k, v in details.items() if v is not None)
    return LogEntry.objects.log_actions(
        user_id=moderator.pk,
        queryset=[game],
        action_flag=CHANGE,
        single_object=True,
        change_message=f"{LOG_PREFIX}{what}{f' ({said})' if said else ''}. Reason: {reason}",
    )


def after_the_end(game):
    """The moderations written to the admin's record of `game` once it was over."""
    return (
        LogEntry.objects.filter(
            content_type__app_label="games",
            content_type__model="game",
            object_id=str(game.pk),
            change_message__startswith=LOG_PREFIX,
        )
        .select_related("user")
        .order_by("action_time")
    )
