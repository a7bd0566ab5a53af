"""The chat's moderation (docs/chat.md): a reader's report about a line, and the
moderators' hide, show, mute and unmute.

Each raises games.actions.chat.ChatRefused with a message fit to show and the HTTP status
it means, as the chat's other writes do.
"""

from functools import partial

from django.db import transaction
from django.utils import timezone

from games.actions.chat import ChatRefused, deliver, groups_for, reader
from games.models import ChatMessage, ChatModeration, ChatMute, Game
from games.moderation import reports, staff
from games.moderation.models import Report
from games.presenters import chat as chat_rooms


def report(game_id, message_id, reporter):
    """A report to the moderators about one line: a Report about its author, its
    text naming the line (the admin links it to the line through its id)."""
    game, seat = reader(game_id, reporter)
    message = (
        ChatMessage.objects.filter(
            pk=message_id,
            game=game,
            hidden_at__isnull=True,
            room__in=chat_rooms.readable_rooms(game, seat is not None),
        )
        .select_related("user")
        .first()
    )
    if message is None:
        raise ChatRefused("There is no such message to report.", 404)
    if message.user_id == reporter.pk:
        raise ChatRefused("You cannot report your own message.", 409)
    text = f"Chat message {message.pk}: {message.text}"
    if Report.objects.filter(game=game, reporter=reporter, text=text).exists():
        raise ChatRefused("You have already reported that message.", 409)
    try:
        return reports.file(
            game, reporter, reported=message.user, reason=Report.Reason.ABUSE, text=text
        )
    except reports.ReportRefused as exc:
        raise ChatRefused(str(exc), exc.status) from None


# --- moderators ---------------------------------------------------------------------------
# Each checks its moderator (games.moderation.staff: the chat permission, and no seat at the
# table of the line), whoever calls it. An action about a line is written to its table's
# log as well as to the chat's moderation log: the table's lock is taken for that one write
# (a moderator's action is rare; a player's line still never waits on it).


def _require_reason(reason):
    reason = (reason or "").strip()
    if not reason:
        raise ChatRefused("Say why: a moderator action needs a reason.")
    return reason


def _check(moderator, **about):
    refused = staff.refusal(moderator, staff.CHAT, **about)
    if refused:
        raise ChatRefused(refused, 403)


def _lock_game(game_id):
    return Game.objects.select_for_update(of=("self",)).get(pk=game_id)


def hide(message, moderator, reason, *, show=False):
    """Hides a line from everyone (or shows it again), with a row in the moderation log
    and an event in its table's; the pages that show it drop it at once."""
    reason = _require_reason(reason)
    with transaction.atomic():
        # The table first, as every writer of its log locks it, then the line.
        game = _lock_game(message.game_id)
        _check(moderator, game_id=game.pk)
        message = (
            ChatMessage.objects.select_for_update(of=("self",))
            .select_related("user")
            .get(pk=message.pk)
        )
        if (message.hidden_at is None) == show:
            raise ChatRefused(
                "That message is already shown." if show else "That message is already hidden.", 409
            )
        message.hidden_at, message.hidden_by = (None, None) if show else (timezone.now(), moderator)
        message.save(update_fields=["hidden_at", "hidden_by"])
        ChatModeration.objects.create(
            action=ChatModeration.Action.SHOW if show else ChatModeration.Action.HIDE,
            moderator=moderator,
            user_id=message.user_id,
            message=message,
            reason=reason,
        )
        staff.record(
            game,
            moderator,
            what="show" if show else "hide",
            reason=reason,
            message=message.pk,
            player=message.user.name,
        )
        if not show:
            transaction.on_commit(
                partial(
                    deliver,
                    groups_for(game, message.room),
                    {"type": "chat.hidden", "id": message.pk},
                )
            )
    return message


def mute(user, moderator, reason, *, game_id=None):
    """A moderator's mute: `user` may send no line at any table until it is lifted.
    `game_id`: the table of the line it was muted for, whose log records it."""
    reason = _require_reason(reason)
    _check(moderator, user=user)
    if user.pk == moderator.pk:
        raise ChatRefused("You cannot mute yourself.")
    with transaction.atomic():
        game = None
        if game_id is not None:
            game = _lock_game(game_id)
            _check(moderator, game_id=game.pk)
        _, created = ChatMute.objects.get_or_create(
            user=user, defaults={"moderator": moderator, "reason": reason}
        )
        if not created:
            raise ChatRefused(f"{user} is already muted in chat.", 409)
        if game is not None:
            staff.record(game, moderator, what="mute", reason=reason, player=user.name)
        return ChatModeration.objects.create(
            action=ChatModeration.Action.MUTE, moderator=moderator, user=user, reason=reason
        )


def unmute(user, moderator, reason):
    reason = _require_reason(reason)
    _check(moderator, user=user)
    with transaction.atomic():
        deleted, _ = ChatMute.objects.filter(user=user).delete()
        if not deleted:
            raise ChatRefused(f"{user} is not muted in chat.", 409)
        return ChatModeration.objects.create(
            action=ChatModeration.Action.UNMUTE, moderator=moderator, user=user, reason=reason
        )
