"""Game emails: one function per kind (templates/emails/<kind>_*), and the outbox sender.

The decision to send is an `EmailOutbox` row written in the transaction that
made it (the decision's clock plan for "your turn", the clock sweep for reminders);
`deliver_outbox` sends each row at most once and marks it.
"""

import logging
import zoneinfo
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import EmailOutbox, Game, Seat

log = logging.getLogger(__name__)


def table_link(game):
    return settings.SITE_URL.rstrip("/") + reverse("games:play", args=[game.pk])


def _send(kind, user, context):
    try:
        tz = zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = zoneinfo.ZoneInfo("UTC")
    context = {"user": user, "tz": str(tz), **context}
    with timezone.override(tz):
        subject = render_to_string(f"emails/{kind}_subject.txt", context).strip()
        text = render_to_string(f"emails/{kind}_body.txt", context)
        html = render_to_string(f"emails/{kind}_body.html", context)
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [user.email])
    message.attach_alternative(html, "text/html")
    message.send()


def send_your_turn(user, game, due):
    _send("your_turn", user, {"game": game, "due": due, "link": table_link(game)})


def send_reminder(user, game, due):
    missed = (
        "a bot plays that turn for you"
        if game.missed_deadline == Game.MissedDeadline.BOT
        else "you are treated as having left the game, and your team leaves"
    )
    _send("reminder", user, {"game": game, "due": due, "link": table_link(game),
                             "missed": missed})


SENDERS = {EmailOutbox.Kind.TURN: send_your_turn, EmailOutbox.Kind.REMINDER: send_reminder}
PREFERENCE = {EmailOutbox.Kind.TURN: "notify_turn_email",
              EmailOutbox.Kind.REMINDER: "notify_reminder_email"}


def _why_not(row, game, user):
    """The reason not to send `row` now, or "" to send it."""
    if user is None:
        return "no player in the seat"
    if not getattr(user, PREFERENCE[row.kind]):
        return "preference off"
    if not user.email:
        return "no address"
    clock = (game.clocks or {}).get(str(row.seat))
    if game.status != Game.Status.ACTIVE or clock is None or clock["since"] != row.seq:
        return "already decided"
    return ""


SENDING = "sending"  # `skipped` while a row is being sent (left so if the sender died)


@dataclass(frozen=True)
class Claim:
    """An outbox row this sender has taken, with what the email needs."""

    row: EmailOutbox
    game: Game
    user: User | None


def claim(pk):
    """Takes unsent outbox row `pk` for this sender, in a transaction of its own, committed
    on return: the row is locked (skip_locked: another sender's row is left to it),
    checked as unsent, and marked `sent_at` = now with `skipped` = "sending", or with the
    reason not to send it. Returns the Claim, or None when there is nothing to send."""
    with transaction.atomic():
        row = (EmailOutbox.objects.select_for_update(skip_locked=True)
               .filter(pk=pk, sent_at__isnull=True).first())
        if row is None:
            return None
        game = Game.objects.get(pk=row.game_id)
        seat = Seat.objects.select_related("user").filter(
            game_id=row.game_id, number=row.seat).first()
        user = seat.user if seat else None
        row.skipped = _why_not(row, game, user) or SENDING
        row.sent_at = timezone.now()
        row.save(update_fields=["sent_at", "skipped"])
    return Claim(row, game, user) if row.skipped == SENDING else None


def send_claimed(claimed):
    """Hands a claimed email to the SMTP server; raises what the mail backend raises."""
    row, game = claimed.row, claimed.game
    due = datetime.fromisoformat(game.clocks[str(row.seat)]["due"])
    SENDERS[row.kind](claimed.user, game, due)


def deliver_outbox(game_id=None, created_before=None, limit=100):
    """Sends unsent outbox rows (of one game, or every game); returns how many went out.

    At most once per row, even if the process dies half way: each row is first claimed
    (`claim`, committed) and only then sent; once the SMTP server has taken it, `skipped`
    is cleared. A sender that dies after the claim leaves the row claimed, never to be
    sent again ("sending": it may or may not have gone out); one that dies before the
    claim commits leaves it unsent for the sweep's retry. An SMTP error (refused,
    unreachable) gives the row back to the retry and stops this delivery.
    The game row is not locked: sending never holds up a move.
    """
    rows = EmailOutbox.objects.filter(sent_at__isnull=True)
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    if created_before is not None:
        rows = rows.filter(created_at__lt=created_before)
    sent = 0
    for pk in list(rows.order_by("pk").values_list("pk", flat=True)[:limit]):
        claimed = claim(pk)
        if claimed is None:
            continue
        try:
            send_claimed(claimed)
        except Exception:
            EmailOutbox.objects.filter(pk=pk).update(sent_at=None, skipped="")
            log.exception("could not send outbox row %s; left for the retry", pk)
            break
        EmailOutbox.objects.filter(pk=pk).update(skipped="")
        sent += 1
    return sent
