"""Web Push: the notifications a player's devices get, and the sender that delivers them.

What to send and when is the outbox's (games.actions.outbox): a decision is an
`EmailOutbox` row per channel (`channel` "email" or "push"), each decided by the same
rules (away, quiet hours, the daily digest, one per game until the player has been back).
This module is what only push has: "your game is starting" rows (`table_found`, from Find
a game), the payload of a notification, and its delivery to every device of the player
with the site's VAPID key (RFC 8292), encrypted aes128gcm (RFC 8291) by pywebpush. It runs
in the Celery tasks after a commit, never under a game's lock.

A push service answering 404 or 410 has forgotten the device: its subscription is
deleted. 429, a 5xx or no answer: that device is tried again later, with the row (the
outbox gives the row back when no device took the message). A payload names the table and
what it waits for, never a card.
"""

import json
import logging
from dataclasses import dataclass
from datetime import datetime, tzinfo

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from accounts import vapid
from accounts.models import PushSubscription, User
from games import effects
from games.models import EmailOutbox, Game, Seat

log = logging.getLogger(__name__)

START = EmailOutbox.Kind.START
PUSH = EmailOutbox.Channel.PUSH
GONE = (404, 410)  # the push service no longer knows the subscription (RFC 8030, 7.3)


def table_link(game: Game) -> str:
    return settings.SITE_URL.rstrip("/") + reverse("games:play", args=[game.pk])


# --- "Your game is starting" ------------------------------------------------------------


def table_found(game: Game, user_ids: list[int]) -> None:
    """Find a game seated `user_ids` at `game`: each of them gets "your game is starting"
    on their devices. Called inside the transaction that seats the table; writes one push
    outbox row per seat, delivered after the commit (games.tasks.deliver_emails). Quiet
    hours hold it; the away rule does not apply (the caller passes only the people whose
    page is hidden or gone). A user without devices costs a skipped row, never an error."""
    user_ids = list(dict.fromkeys(user_ids))
    if not user_ids:
        return
    now = timezone.now()
    seated = dict(
        Seat.objects.filter(game_id=game.pk, user_id__in=user_ids).values_list("user_id", "number")
    )
    rows = [
        EmailOutbox(
            game_id=game.pk,
            seat=seated[uid],
            seq=0,
            kind=START,
            channel=PUSH,
            created_at=now,
            not_before=now,
        )
        for uid in user_ids
        if uid in seated
    ]
    if rows:
        EmailOutbox.objects.bulk_create(rows, ignore_conflicts=True)
    missing = [uid for uid in user_ids if uid not in seated]
    if missing:
        # Not seated yet in this transaction: written once it commits (the seats are there
        # by then), so a caller that tells before it seats loses no one.
        transaction.on_commit(lambda: _table_found_late(game.pk, missing))
    effects.task_on_commit("games.tasks.deliver_emails", game.pk)


def _table_found_late(game_id: int, user_ids: list[int]) -> None:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return
    with transaction.atomic():
        seated = Seat.objects.filter(game_id=game_id, user_id__in=user_ids)
        EmailOutbox.objects.bulk_create(
            [
                EmailOutbox(game_id=game_id, seat=s.number, seq=0, kind=START, channel=PUSH)
                for s in seated
            ],
            ignore_conflicts=True,
        )
        effects.task_on_commit("games.tasks.deliver_emails", game_id)


# --- The message ------------------------------------------------------------------------


def _table(game: Game) -> str:
    return f"table {game.pk} ({game.players} players, {game.get_pace_display().lower()})"


def payload(
    kind: str, games: list[tuple[Game, datetime]], tz: tzinfo | None = None
) -> dict[str, str]:
    """The notification of a claim: {"title", "body", "url", "tag"}. `kind`: "start",
    "turn", "reminder" or "digest" (several games, or the daily one). Names the table and
    what it waits for; never a card."""
    game, due = games[0]
    when = timezone.localtime(due, tz).strftime("%a %d %b, %H:%M")
    if tz is not None:
        when += f" ({tz})"
    if kind == START:
        title, body = "Your game is starting", f"You are seated at {_table(game)}."
    elif kind == EmailOutbox.Kind.REMINDER:
        title = f"Reminder: table {game.pk}"
        body = f"Half your time is gone: your move at {_table(game)} is due {when}."
    elif kind == "digest" and len(games) > 1:
        tables = ", ".join(str(g.pk) for g, _ in games)
        return {
            "title": f"Your turn in {len(games)} games",
            "body": f"Tables {tables} wait for your move.",
            "url": settings.SITE_URL.rstrip("/") + reverse("games:mine"),
            "tag": "games-waiting",
        }
    else:
        title = f"Your turn at table {game.pk}"
        body = f"{_table(game).capitalize()} waits for your move, due {when}."
    return {"title": title, "body": body, "url": table_link(game), "tag": f"game-{game.pk}"}


# --- Delivery ---------------------------------------------------------------------------


@dataclass
class Delivery:
    """What the push services said to one notification: devices that took it, devices
    forgotten (their subscriptions deleted), devices to try again."""

    sent: int = 0
    gone: int = 0
    failed: int = 0

    @property
    def retry(self) -> bool:
        """Nobody took it and some device may later: give the row back."""
        return self.sent == 0 and self.failed > 0


def devices(user_id: int) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user_id=user_id).order_by("pk"))


def has_devices(user: User) -> bool:
    """The player has a device to tell, and the site can push (it has a VAPID key)."""
    return vapid.enabled() and PushSubscription.objects.filter(user_id=user.pk).exists()


def _signer() -> Vapid | None:
    pem = vapid.private_pem()
    return None if pem is None else Vapid.from_pem(pem)


def send(user_id: int, message: dict[str, str]) -> Delivery:
    """Sends `message` to each of `user_id`'s devices, one request each (in this process,
    outside any transaction: a slow push service holds up no move)."""
    delivery = Delivery()
    signer = _signer()
    if signer is None:
        return delivery
    data = json.dumps(message)
    for device in devices(user_id):
        status = _post(device, data, signer)
        if status is not None and status < 300:
            delivery.sent += 1
            PushSubscription.objects.filter(pk=device.pk).update(
                last_success_at=timezone.now(), failures=0
            )
        elif status in GONE:
            delivery.gone += 1
            PushSubscription.objects.filter(pk=device.pk).delete()
            log.info(
                "push subscription %s of user %s is gone (%s): deleted",
                device.pk,
                user_id,
                status,
                extra={"user": user_id},
            )
        else:
            delivery.failed += 1
            PushSubscription.objects.filter(pk=device.pk).update(failures=F("failures") + 1)
            log.warning(
                "push to subscription %s of user %s failed (%s), tried again later",
                device.pk,
                user_id,
                status or "no answer",
                extra={"user": user_id},
            )
    return delivery


def _post(device: PushSubscription, data: str, signer: Vapid) -> int | None:
    """The push service's status for one message, None if it could not be reached."""
    try:
        response = webpush(
            device.info(),
            data,
            vapid_private_key=signer,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            content_encoding="aes128gcm",
            ttl=settings.WEBPUSH_TTL_SECONDS,
            timeout=settings.WEBPUSH_TIMEOUT_SECONDS,
        )
    except WebPushException as exc:
        return exc.response.status_code if exc.response is not None else None
    except (requests.RequestException, ValueError) as exc:
        # Unreachable, or keys the encryption refuses (checked at subscribe; kept safe).
        log.warning("push to subscription %s: %s", device.pk, exc)
        return None
    return int(getattr(response, "status_code", 201))
