"""Game emails and pushes: what to send a player, when, and the outbox sender that sends
it once.

The decision that an email may be due is an `EmailOutbox` row written in the transaction
that made it: the decision's clock plan writes one "your turn" row per person who must
now decide, the clock sweep one reminder row at half time of a turn-by-turn deadline,
Find a game one "your game is starting" push row (games.actions.webpush.table_found). A
row is only a candidate.

Each row has a channel, "email" or "push" (Web Push to the player's devices). The rows
are written for email; when the sender takes a player's rows, a player with devices gets
each one's push twin (`_push_twins`), so both channels follow the same rules by the same code, each
with its own preferences (`turn_email` and `turn_push`, the two reminder switches) and its
own "told already": a player with email and devices gets both, unless they switch one off
(docs/notifications.md). When it comes due (`not_before`), `decide` looks at the player
and says send, wait until a later moment, or skip with a reason:

- nobody is emailed while on the site (accounts.activity: any page open, or a request in
  the last EMAIL_AWAY_MINUTES); the row waits until they would count as away;
- at most one "your turn" email per game until the player has been back on the site
  (on push, "your game is starting" counts as the game's one);
- quiet hours (the player's zone) hold every email until they end, except a reminder
  whose deadline falls inside them, which is written early so as to go before they begin;
  "your game is starting" waits for them too, but not for the player to be away (Find a
  game tells only people whose page is hidden or gone);
- "your turn" as a daily digest waits for the player's hour;
- a reminder goes only while its decision is still open.

The "your turn" rows a player may be sent at one moment go out as one email: one game, or
a digest listing every game waiting on them. `deliver_outbox` sends each row at most
once: a player's rows are claimed (marked, committed) before the email goes.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts import activity, schedule
from accounts.models import User
from accounts.tokens import unsubscribe_token
from games import metrics
from games.actions import webpush
from games.models import EmailOutbox, Game, Seat
from games.store import seats

log = logging.getLogger(__name__)

TURN, REMINDER, START = EmailOutbox.Kind.TURN, EmailOutbox.Kind.REMINDER, EmailOutbox.Kind.START
EMAIL, PUSH = EmailOutbox.Channel.EMAIL, EmailOutbox.Channel.PUSH
DIGEST = "digest"  # a claim carrying several games' "your turn" (or the daily email)
SENDING = "sending"  # `skipped` while a row is being sent (left so if the sender died)


def site_link(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def table_link(game: Game) -> str:
    return site_link(reverse("games:play", args=[game.pk]))


# --- What to do with a row --------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    due: datetime  # the deadline of the decision the email is about


@dataclass(frozen=True)
class Wait:
    until: datetime


@dataclass(frozen=True)
class Skip:
    reason: str


Outcome = Send | Wait | Skip


def decide(
    row: EmailOutbox, user: User | None, game: Game, now: datetime, told: bool = False
) -> Outcome:
    """Send(due), Wait(until) or Skip(reason) for outbox `row` of `game` to `user` at `now`.
    `told`: on the row's channel, a "your turn" (on push also "your game is starting") of
    this game already went to the player since they were last on the site. The rules are
    the same for both channels; only where it goes (an address, a device) and the player's
    choices are the channel's."""
    if user is None:
        return Skip("no player in the seat")
    if row.channel == EMAIL and not user.email:
        return Skip("no address")
    if row.channel == PUSH and not webpush.has_devices(user):
        return Skip("no device")
    if row.kind == START:
        return _decide_start(user, game, now, told)
    clock = seats.clock(game, row.seat)
    if game.status != Game.Status.ACTIVE or clock is None or clock["since"] != row.seq:
        return Skip("already decided")
    due = datetime.fromisoformat(clock["due"])
    if row.kind == REMINDER:
        return _decide_reminder(user, due, now, row.channel)
    return _decide_turn(row, user, due, now, told)


def turn_choice(user: User, channel: str) -> str:
    """The player's choice for "your turn" on `channel`: immediate, daily digest, none."""
    return user.turn_push if channel == PUSH else user.turn_email


def reminder_on(user: User, channel: str) -> bool:
    return user.notify_reminder_push if channel == PUSH else user.notify_reminder_email


def _present_until(user: User, now: datetime) -> datetime | None:
    """When the player stops counting as present, if they are present at `now`."""
    until = activity.present_until(user)
    return until if until is not None and until > now else None


def _decide_start(user: User, game: Game, now: datetime, told: bool) -> Outcome:
    """`decide` for "your game is starting" (push only): quiet hours hold it, being on the
    site does not (the matchmaking passed only the players whose page is hidden or gone)."""
    if user.turn_push == User.TurnEmail.NONE:
        return Skip("preference off")
    if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
        return Skip("game over")
    if told:
        return Skip("told already")
    quiet = schedule.quiet_stretch(user, now)
    if quiet:
        return Wait(quiet[1])
    return Send(now)


def _decide_reminder(user: User, due: datetime, now: datetime, channel: str) -> Outcome:
    """`decide` for a reminder of the decision due at `due`, still open."""
    if not reminder_on(user, channel):
        return Skip("preference off")
    present_until = _present_until(user, now)
    if present_until is not None:
        # Looked at again once they would count as away; not at all if that is too late.
        return Skip("player on the site") if present_until >= due else Wait(present_until)
    quiet = schedule.quiet_stretch(user, now)
    if quiet and due > quiet[1]:
        return Wait(quiet[1])
    return Send(due)


def _decide_turn(row: EmailOutbox, user: User, due: datetime, now: datetime, told: bool) -> Outcome:
    """`decide` for a "your turn" row whose decision (due at `due`) is still open."""
    choice = turn_choice(user, row.channel)
    if choice == User.TurnEmail.NONE:
        return Skip("preference off")
    if told:
        return Skip("told already")
    present_until = _present_until(user, now)
    if present_until is not None:
        return Wait(present_until)
    quiet = schedule.quiet_stretch(user, now)
    if quiet:
        return Wait(quiet[1])
    if choice == User.TurnEmail.DIGEST:
        slot = schedule.next_digest(user, row.created_at)
        if slot > now:
            return Wait(slot)
    return Send(due)


def early_reminder_row(row: EmailOutbox, user: User | None, game: Game) -> EmailOutbox | None:
    """The reminder row to write now for the decision of "your turn" row `row`, or None:
    when the player's quiet hours would hold the half-time reminder past a deadline inside
    them, it is written due before they begin (schedule.early_reminder). The sweep's own
    reminder row at half time is then the same row (unique per decision), so still one."""
    clock = seats.clock(game, row.seat)
    if user is None or not reminder_on(user, row.channel):
        return None
    if clock is None or clock["since"] != row.seq:
        return None
    remind_at = clock.get("remind_at")
    if not remind_at:
        return None
    moment = schedule.early_reminder(
        user,
        datetime.fromisoformat(remind_at),
        datetime.fromisoformat(clock["due"]),
        datetime.fromisoformat(clock["started"]),
    )
    if moment is None:
        return None
    return EmailOutbox(
        game_id=game.pk,
        seat=row.seat,
        seq=row.seq,
        kind=REMINDER,
        channel=row.channel,
        created_at=row.created_at,
        not_before=moment,
    )


# --- Claiming and sending ---------------------------------------------------------------


@dataclass
class Claim:
    """One email (or push) this sender has taken: its kind ("turn", "digest", "reminder",
    "start"), the outbox rows it carries (marked as being sent) and what the message
    needs."""

    kind: str
    user: User
    rows: list[EmailOutbox]
    # [(game, due)] the email lists
    games: list[tuple[Game, datetime]] = field(default_factory=list)
    channel: str = EMAIL

    @property
    def row(self) -> EmailOutbox:
        return self.rows[0]


def _rows_of(user_id: int) -> QuerySet[EmailOutbox]:
    """The outbox rows addressed to `user_id`'s seats."""
    mine = Seat.objects.filter(
        game_id=OuterRef("game_id"), number=OuterRef("seat"), user_id=user_id
    )
    return EmailOutbox.objects.filter(Exists(mine))


def _told(row: EmailOutbox, user: User) -> bool:
    """A "your turn" (or "your game is starting") of this game went to the player on the
    row's channel since they were last seen. A reminder does not count: it is about a
    deadline, and goes whatever was sent before."""
    sent = _rows_of(user.pk).filter(
        game_id=row.game_id,
        channel=row.channel,
        kind__in=(TURN, START),
        sent_at__isnull=False,
        skipped__in=("", SENDING),
    )
    if user.last_seen_at is not None:
        sent = sent.filter(sent_at__gt=user.last_seen_at)
    return sent.exists()


def _waiting_games(user: User, but: list[int]) -> list[tuple[Game, datetime]]:
    """[(game, due)] of the player's other running turn-by-turn games that wait on them."""
    waiting: list[tuple[Game, datetime]] = []
    mine = (
        Seat.objects.filter(
            user=user, game__status=Game.Status.ACTIVE, game__pace=Game.Pace.TURN_BASED
        )
        .exclude(game_id__in=but)
        .select_related("game")
    )
    for seat in mine:
        due = seats.due(seat.game, seat.number)
        if due is not None:
            waiting.append((seat.game, due))
    return waiting


def _push_twins(user: User, now: datetime) -> None:
    """Writes the push row of each unsent email row of `user` that has none yet, when the
    player has a device: the same decision on the other channel (the unique key makes a
    second writer's twin a no-op). Rows are written for email by the clocks; this keeps
    their writers channel-blind. A "your turn" twin is due now, whatever its email waits
    for (the daily email's hour is the email's choice); a reminder keeps its moment (one
    written early for quiet hours must not go at once)."""
    if not webpush.has_devices(user):
        return
    twin = EmailOutbox.objects.filter(
        game_id=OuterRef("game_id"),
        seat=OuterRef("seat"),
        seq=OuterRef("seq"),
        kind=OuterRef("kind"),
        channel=PUSH,
    )
    originals = _rows_of(user.pk).filter(channel=EMAIL, sent_at__isnull=True).exclude(Exists(twin))
    EmailOutbox.objects.bulk_create(
        [
            EmailOutbox(
                game_id=row.game_id,
                seat=row.seat,
                seq=row.seq,
                kind=row.kind,
                channel=PUSH,
                created_at=row.created_at,
                not_before=row.not_before if row.kind == REMINDER else min(row.not_before, now),
            )
            for row in originals
        ],
        ignore_conflicts=True,
    )


def claim(user_id: int, now: datetime | None = None) -> list[Claim]:
    """Takes the due, unsent outbox rows of `user_id` for this sender, in a transaction of
    its own, committed on return. Each row is locked (skip_locked: rows another sender
    holds are left to it) and decided: a skipped row is marked `sent_at` with its reason;
    a waiting row gets its new `not_before`; rows to send are marked `sent_at` = now with
    `skipped` = "sending". Returns the messages to send ([Claim]): per channel, one per
    reminder and "game starting", and the "your turn" rows in one email (a push: one per
    game, or one for the daily digest)."""
    now = now or timezone.now()
    with transaction.atomic():
        user = User.objects.filter(pk=user_id).first()
        if user is None:
            return []
        _push_twins(user, now)
        rows = list(
            _rows_of(user_id)
            .select_for_update(skip_locked=True, of=("self",))
            .filter(sent_at__isnull=True, not_before__lte=now)
            .select_related("game")
            .order_by("pk")
        )
        claims: list[Claim] = []
        # rows to send, each with its due, per channel
        turns: dict[str, list[tuple[EmailOutbox, datetime]]] = {EMAIL: [], PUSH: []}
        early: list[EmailOutbox | None] = []
        for row in rows:
            told = row.kind in (TURN, START) and _told(row, user)
            if row.kind == TURN:
                early.append(early_reminder_row(row, user, row.game))
            outcome = decide(row, user, row.game, now, told=told)
            if isinstance(outcome, Wait):
                row.not_before = outcome.until
                row.save(update_fields=["not_before"])
                continue
            row.sent_at = now
            row.skipped = outcome.reason if isinstance(outcome, Skip) else SENDING
            row.save(update_fields=["sent_at", "skipped"])
            if isinstance(outcome, Send) and row.kind == TURN:
                turns[row.channel].append((row, outcome.due))
            elif isinstance(outcome, Send):
                claims.append(Claim(row.kind, user, [row], [(row.game, outcome.due)], row.channel))
        written = [r for r in early if r is not None]
        if written:
            EmailOutbox.objects.bulk_create(written, ignore_conflicts=True)
        for channel, sending in turns.items():
            claims += _turn_claims(user, channel, sending)
    return claims


def _turn_claims(
    user: User, channel: str, turns: list[tuple[EmailOutbox, datetime]]
) -> list[Claim]:
    """The messages of the "your turn" rows claimed on `channel` at one moment: one email
    for one game, a digest for several or for the daily email; on push, one notification
    per game (each replaces the game's last one on the device), or one for the daily
    digest."""
    if not turns:
        return []
    choice = turn_choice(user, channel)
    if channel == PUSH and choice == User.TurnEmail.IMMEDIATE:
        return [Claim(TURN, user, [row], [(row.game, due)], PUSH) for row, due in turns]
    sending = [r for r, _ in turns]
    games = [(r.game, due) for r, due in turns]
    if len(turns) == 1 and choice == User.TurnEmail.IMMEDIATE:
        return [Claim(TURN, user, sending, games, channel)]
    games.sort(key=lambda pair: pair[1])
    others = _waiting_games(user, but=[r.game_id for r in sending])
    return [Claim(DIGEST, user, sending, games + sorted(others, key=lambda p: p[1]), channel)]


def _missed(game: Game) -> str:
    if game.missed_deadline == Game.MissedDeadline.BOT:
        return "a bot plays that turn for you"
    return "you are treated as having left the game, and your team leaves"


def message_for(claimed: Claim) -> EmailMultiAlternatives:
    """The email of a claim: subject, text and HTML in the player's zone, and the
    unsubscribe headers (RFC 2369 and the one-click POST of RFC 8058)."""
    user = claimed.user
    unsubscribe_kind = REMINDER if claimed.kind == REMINDER else TURN
    unsubscribe = site_link(
        reverse("accounts:unsubscribe", args=[unsubscribe_token(user, unsubscribe_kind)])
    )
    tz = schedule.zone(user)
    games = [
        {"game": game, "due": due, "link": table_link(game), "missed": _missed(game)}
        for game, due in claimed.games
    ]
    context: dict[str, Any] = {
        "user": user,
        "tz": str(tz),
        "games": games,
        **games[0],
        "unsubscribe": unsubscribe,
        "profile": site_link(reverse("accounts:profile")),
        "digest": user.turn_email == User.TurnEmail.DIGEST,
    }
    with timezone.override(tz):
        subject = render_to_string(f"emails/{claimed.kind}_subject.txt", context).strip()
        text = render_to_string(f"emails/{claimed.kind}_body.txt", context)
        html = render_to_string(f"emails/{claimed.kind}_body.html", context)
    # An address cleared since the claim: no recipient, and Django sends nothing.
    message = EmailMultiAlternatives(
        subject,
        text,
        settings.DEFAULT_FROM_EMAIL,
        [user.email] if user.email else [],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def send_claimed(claimed: Claim) -> None:
    """Hands a claimed email to the SMTP server; raises what the mail backend raises."""
    try:
        message_for(claimed).send()
    except Exception:
        metrics.emails.labels(claimed.kind, "failed").inc()
        raise
    metrics.emails.labels(claimed.kind, "sent").inc()


def _recipients(game_id: int | None, now: datetime, limit: int) -> list[int]:
    """The players with an unsent row due at `now` (of one game, or of every game)."""
    rows = EmailOutbox.objects.filter(sent_at__isnull=True, not_before__lte=now)
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    holders = Seat.objects.filter(
        Exists(rows.filter(game_id=OuterRef("game_id"), seat=OuterRef("number"))),
        user__isnull=False,
    )
    return list(holders.order_by("user_id").values_list("user_id", flat=True).distinct()[:limit])


def _orphans(game_id: int | None, now: datetime) -> None:
    """Rows due for a seat nobody holds: skipped, so that the sweep stops finding them."""
    taken = Seat.objects.filter(
        game_id=OuterRef("game_id"), number=OuterRef("seat"), user__isnull=False
    )
    rows = EmailOutbox.objects.filter(sent_at__isnull=True, not_before__lte=now).exclude(
        Exists(taken)
    )
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    rows.update(sent_at=now, skipped="no player in the seat")


def deliver_outbox(
    game_id: int | None = None, now: datetime | None = None, limit: int = 100
) -> int:
    """Sends what is due in the outbox (rows of one game's players, or of everybody);
    returns how many emails and pushes went out.

    At most once per row, even if the process dies half way: a player's rows are first
    claimed (`claim`, committed) and only then sent; once the SMTP server (a push service)
    has taken the message, `skipped` is cleared. A sender that dies after the claim leaves
    the rows claimed, never to be sent again ("sending": the message may or may not have
    gone); one that dies before the claim commits leaves them unsent for the next sweep.
    An SMTP error (refused, unreachable) gives the rows back, due again
    OUTBOX_RETRY_SECONDS later, with the player's other claims, and stops this delivery; a
    push that no device took and some device may take later (429, 5xx, unreachable) gives
    its rows back the same way. The game row is not locked: sending never holds up a
    move.
    """
    now = now or timezone.now()
    _orphans(game_id, now)
    sent = 0
    for user_id in _recipients(game_id, now, limit):
        # The pushes first: an SMTP server that is down stops the delivery, not the pushes.
        claims = sorted(claim(user_id, now), key=lambda c: c.channel != PUSH)
        for index, claimed in enumerate(claims):
            if claimed.channel == PUSH:
                sent += _push(claimed)
                continue
            try:
                send_claimed(claimed)
            except Exception as exc:
                _give_back(claims[index:])
                log.error(
                    "email %s to user %s (game %s) failed, tried again in %s s: %s",
                    claimed.kind,
                    user_id,
                    _game_ids(claimed),
                    settings.OUTBOX_RETRY_SECONDS,
                    exc,
                    extra={"user": user_id, "game": claimed.row.game_id},
                )
                return sent
            _sent(claimed, "digest" if claimed.kind == DIGEST else "email")
            log.info(
                "email %s sent to user %s (game %s)",
                claimed.kind,
                user_id,
                _game_ids(claimed),
                extra={"user": user_id, "game": claimed.row.game_id},
            )
            sent += 1
    return sent


def _sent(claimed: Claim, via: str) -> None:
    EmailOutbox.objects.filter(pk__in=[row.pk for row in claimed.rows]).update(skipped="", via=via)


def _give_back(claims: list[Claim]) -> None:
    """The rows of `claims`, not sent: due again OUTBOX_RETRY_SECONDS from now."""
    retry = timezone.now() + timedelta(seconds=settings.OUTBOX_RETRY_SECONDS)
    pks = [row.pk for claimed in claims for row in claimed.rows]
    EmailOutbox.objects.filter(pk__in=pks).update(sent_at=None, skipped="", not_before=retry)


def push_message(claimed: Claim) -> dict[str, str]:
    return webpush.payload(claimed.kind, claimed.games, schedule.zone(claimed.user))


def _push(claimed: Claim) -> int:
    """Sends a push claim to the player's devices; 1 if some device took it."""
    user_id = claimed.user.pk
    try:
        delivery = webpush.send(user_id, push_message(claimed))
    except Exception:
        log.exception("push %s to user %s failed", claimed.kind, user_id)
        delivery = webpush.Delivery(failed=1)
    if delivery.retry:
        _give_back([claimed])
        return 0
    if not delivery.sent:
        # Every device was gone (404, 410) or none is left: not told, so not "told".
        EmailOutbox.objects.filter(pk__in=[row.pk for row in claimed.rows]).update(
            skipped="no device"
        )
        return 0
    _sent(claimed, "digest" if claimed.kind == DIGEST else "push")
    log.info(
        "push %s sent to user %s (game %s, %s devices)",
        claimed.kind,
        user_id,
        _game_ids(claimed),
        delivery.sent,
        extra={"user": user_id, "game": claimed.row.game_id},
    )
    return 1


def _game_ids(claimed: Claim) -> str:
    """The games an email is about, for its log line: one, or a digest's several."""
    return ", ".join(str(pk) for pk in sorted({row.game_id for row in claimed.rows}))


def replan(user_id: int, now: datetime | None = None) -> None:
    """The player's choices changed (the profile): their waiting "your turn" rows are
    looked at again by the next sweep, under the new choices. (A reminder row written
    early for quiet hours keeps its time: looked at now, it would go at once.)"""
    now = now or timezone.now()
    _rows_of(user_id).filter(sent_at__isnull=True, kind=TURN, not_before__gt=now).update(
        not_before=now
    )


def email_choices_changed(sender: object, user_id: int, **kwargs: object) -> None:
    """accounts.signals.email_choices_changed: the profile saved new choices."""
    replan(user_id)
