"""A bot account's event stream: what happened to the account, recorded as it happens and
read by id (GET /api/bot/events, the websocket /api/bot/events/stream; docs/bot-accounts.md,
"The account's events").

Recording. Each `record_*` function below is called, in one line, by the write that makes
the event happen (the lobby's invitation, seat and start; the decision door; the clock's
time-outs and stand-ins; a player coming back), inside that write's transaction: the event
row exists exactly when what it tells was committed, and a rolled-back write leaves none.
Only bot accounts get rows: a person's account is looked at and skipped. After the commit
a push to the account's group (`group`) wakes its open streams; a push that is lost costs
nothing, because a stream reads the rows, never the push, and reads them again every
RECHECK_SECONDS.

Reading. Events are numbered by the table's id, one sequence for every account, so `since`
is a plain integer cursor. On PostgreSQL a transaction that took an id may commit after one
that took a later id; a reader that went past the later one would never see the earlier.
`read` holds an event back while an id just before a recent one is missing and another
transaction that records events is open (each holds WRITING_LOCK, shared, while it is): the
missing one may still commit. With none open, a missing id was rolled back (or pruned).
SQLite runs one writer at a time, so its ids commit in order.

What an event carries: ids, seat numbers, counts, the public result. Never a card.

Retention: ACCOUNT_EVENTS_KEEP_DAYS (7 days by default); `prune`, run hourly by the beat
(games.tasks.prune_account_events) and for the account as one of its streams opens, deletes
what is older. A client that comes back later reads from the oldest event kept.
"""

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import ApiToken
from games import push, store
from games.engine import trades
from games.engine.types import Event, SeatView
from games.models import AccountEvent, Game, GameEvent, Seat
from games.store import seats

log = logging.getLogger(__name__)

# The event types, exactly as the docs and the AsyncAPI document name them.
INVITATION = "invitation"
INVITATION_CLOSED = "invitation_closed"
SEATED = "seated"
GAME_STARTED = "game_started"
YOUR_TURN = "your_turn"
GAME_FINISHED = "game_finished"
STAND_IN_STARTED = "stand_in_started"
STAND_IN_ENDED = "stand_in_ended"
TIMED_OUT = "timed_out"
SEAT_HANDED_OVER = "seat_handed_over"
KINDS = (
    INVITATION,
    INVITATION_CLOSED,
    SEATED,
    GAME_STARTED,
    YOUR_TURN,
    GAME_FINISHED,
    STAND_IN_STARTED,
    STAND_IN_ENDED,
    TIMED_OUT,
    SEAT_HANDED_OVER,
)

# Why an invitation closed, from lobby.models.Invitation.closed_by.
CLOSED_REASONS = {"bot": "declined", "host": "cancelled", "lapsed": "lapsed"}

SETTLE_SECONDS = 10  # far longer than any transaction that records an event
READ_BATCH = 200


def keep_days() -> int:
    return int(settings.ACCOUNT_EVENTS_KEEP_DAYS)


def group(user_id: int) -> str:
    """The channel-layer group of the account's event streams: told after each commit that
    recorded one of its events."""
    return f"account-events-{user_id}"


# --- recording ----------------------------------------------------------------------------


def _record(rows: Sequence[AccountEvent]) -> None:
    """Writes `rows` in the current transaction and wakes their accounts' streams after it
    commits."""
    if not rows:
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [WRITING_LOCK])
    AccountEvent.objects.bulk_create(rows)
    for user_id in sorted({row.user_id for row in rows}):
        transaction.on_commit(partial(_wake, user_id))


def _wake(user_id: int) -> None:
    try:
        push.send(group(user_id), {"type": "account.event"})
    except Exception as exc:
        # The rows are committed: a stream reads them at its next re-check.
        log.warning("could not wake the event streams of account %s: %s", user_id, exc)


def _event(user_id: int, kind: str, game_id: int | None, **data: Any) -> AccountEvent:
    return AccountEvent(user_id=user_id, kind=kind, game_id=game_id, data=data)


def _bot_accounts(game_id: int) -> dict[str, int]:
    """{"<seat>": user id} of the game's seats held by bot accounts, read from the seats:
    once, at the deal (then Game.account_seats holds it)."""
    found = Seat.objects.filter(game_id=game_id, user__is_bot=True)
    return {str(number): user for number, user in found.values_list("number", "user_id")}


def _holder(game: Game, seat: int) -> int | None:
    """The bot account that held `seat` at the deal, or None (a person, a site bot)."""
    held = (game.account_seats or {}).get(str(seat))
    return None if held is None else int(held)


def invited(invitation: Any) -> Any:
    """A host invited a bot account to a seat (lobby.services.invite_bot): the invitation as
    GET /api/bot/invitations lists it, for a bot account (a person invited by a bot
    account's table is told in their lobby). Returns `invitation`."""
    if not invitation.bot.is_bot:
        return invitation
    game = invitation.game
    _record(
        [
            _event(
                invitation.bot_id,
                INVITATION,
                invitation.game_id,
                invitation=invitation.pk,
                seat=invitation.seat,
                host=invitation.invited_by.name,
                players=game.players,
                pace=game.pace,
                move_seconds=game.move_seconds,
            )
        ]
    )
    return invitation


def invitations_closed(pending: Any, by: str) -> None:
    """The open invitations of `pending` (a queryset of lobby.models.Invitation) are about
    to close, `by` "bot" (declined), "host" (cancelled) or "lapsed" (the seat was taken,
    the table started or closed). Call it before the update that closes them."""
    reason = CLOSED_REASONS.get(by, by)
    _record(
        [
            _event(bot_id, INVITATION_CLOSED, game_id, invitation=pk, seat=seat, reason=reason)
            for pk, game_id, seat, bot_id in pending.filter(bot__is_bot=True).values_list(
                "pk", "game_id", "seat", "bot_id"
            )
        ]
    )


def seated(seat: Seat) -> Seat:
    """`seat`'s new holder sat down (lobby.services.take_seat); recorded for a bot account.
    Returns `seat`."""
    if seat.user is not None and seat.user.is_bot:
        _record([_event(seat.user.pk, SEATED, seat.game_id, seat=seat.number)])
    return seat


def game_moved(
    game: Game,
    seq: int,
    kind: str,
    seat: int | None,
    actor: str,
    events: Sequence[Event],
    columns: dict[str, Any],
    view: SeatView,
) -> None:
    """The decision door is about to write event `seq` of `game` (games.actions.decisions:
    `game` still holds the columns before it, `columns` the new ones, `view` the public
    view after it): the game's start, the seats it leaves to decide, its end. At the deal
    it adds `account_seats` to `columns` (written with the event); after that it reads
    nothing, so a game of people and site bots costs nothing more.

    `your_turn` goes to a bot account's seat that has a decision after the event and that
    no stand-in plays, when it had none before, or when an event it did not make itself
    (another seat's, its own time-out's) changed its position while it waited; not after
    another seat's pick that leaves its choice as it was, nor after its own decision, whose
    answer carries the new state."""
    if kind == "deal":
        columns["account_seats"] = _bot_accounts(game.pk)
    holders = {int(s): int(u) for s, u in columns.get("account_seats", game.account_seats).items()}
    if not holders:
        return
    finished = columns.get("status") == Game.Status.FINISHED
    before = set(game.waiting_on or [])
    stand_ins = set(columns.get("bot_seats", game.bot_seats) or [])
    # A pass that only records a pick leaves every other seat's choice as it was
    # (games.actions.decisions.still_valid): no new your_turn for them.
    moved = not trades.only_picks(events)
    own = seat if actor == GameEvent.Actor.PERSON else None
    turns = [
        s
        for s in columns.get("waiting_on") or []
        if s in holders and s not in stand_ins and (s not in before or (moved and s != own))
    ]
    rows = []
    if kind == "deal":
        rows += [
            _event(user, GAME_STARTED, game.pk, seat=number, players=game.players, pace=game.pace)
            for number, user in sorted(holders.items())
        ]
    rows += [
        _event(holders[s], YOUR_TURN, game.pk, seat=s, seq=seq, decision=view.get("decision"))
        for s in turns
    ]
    if finished:
        rows += [
            _event(
                user,
                GAME_FINISHED,
                game.pk,
                seat=number,
                status=Game.Status.FINISHED,
                result=result(game, view, number),
            )
            for number, user in sorted(holders.items())
        ]
    _record(rows)


def result(game: Game, view: SeatView, seat: int) -> dict[str, Any]:
    """The seat's team's result from the public view at the game's end: its rank (1 = won,
    ties share a rank), whether it won, every team's final score and rank."""
    over = view.get("game_over") or {"winner": None, "ranking": []}
    team = seat % (game.players // 2)
    ranks = {t: rank for t, rank in over["ranking"]}
    return {
        "team": team,
        "rank": ranks.get(team),
        "won": over["winner"] == team,
        "winner": over["winner"],
        "scores": list(view.get("scores") or []),
        "ranking": [list(pair) for pair in over["ranking"]],
    }


def _for_bot_account(game: Game, seat: int, kind: str, **data: Any) -> None:
    holder = _holder(game, seat)
    if holder is not None:
        _record([_event(holder, kind, game.pk, seat=seat, **data)])


def timed_out(game: Game, seat: int, count: int) -> None:
    """The seat's clock ran out (games.actions.timeouts): its `count`th time-out of the
    TIMEOUTS_BEFORE_BOT that hand it to a bot for good."""
    _for_bot_account(game, seat, TIMED_OUT, count=count, of=settings.TIMEOUTS_BEFORE_BOT)


def handed_over(game: Game, seat: int) -> None:
    """The seat timed out TIMEOUTS_BEFORE_BOT times: a site bot plays it to the end of the
    game, and the account can no longer move there."""
    _for_bot_account(game, seat, SEAT_HANDED_OVER, reason=seats.FOR_GOOD)


def stand_in_started(game: Game, seat: int) -> None:
    """The seat's disconnect hold ended: a bot plays for it until its program is back."""
    _for_bot_account(game, seat, STAND_IN_STARTED, reason=seats.AWAY)


def stand_in_ended(game: Game, seat: int) -> None:
    """The seat's program is back (games.actions.presence): its stand-in stands down, and a
    decision the stand-in had not made yet is the seat's again (then `your_turn` too)."""
    holder = _holder(game, seat)
    if holder is None:
        return
    rows = [_event(holder, STAND_IN_ENDED, game.pk, seat=seat, reason=seats.AWAY)]
    if seats.waited_on(game, seat):
        state = store.current_state(game)
        decision = None if state is None else state.view(None).get("decision")
        rows.append(
            _event(holder, YOUR_TURN, game.pk, seat=seat, seq=game.last_seq, decision=decision)
        )
    _record(rows)


# --- reading ------------------------------------------------------------------------------


def as_message(row: AccountEvent) -> dict[str, Any]:
    """The event as the streams send it: `{"id", "type", "at", "game", ...its data}`."""
    return {
        **row.data,
        "id": row.pk,
        "type": row.kind,
        "at": row.created_at.isoformat().replace("+00:00", "Z"),
        "game": row.game_id,
    }


def newest(user_id: int) -> int:
    """The id of the account's newest event (0: none): where a stream without `since`
    starts."""
    last = AccountEvent.objects.filter(user_id=user_id).order_by("-id").values("id").first()
    return 0 if last is None else int(last["id"])


def read(user_id: int, since: int, now: datetime | None = None) -> tuple[list[AccountEvent], bool]:
    """(the account's events after id `since` that are settled, in id order, at most
    READ_BATCH; whether any were held back for an earlier id that may still commit)."""
    rows = _after(user_id, since)
    if not rows or connection.vendor != "postgresql":
        return rows, False
    gap = _young_gap(since, rows[-1].pk, now)
    if gap is None:
        return rows, False
    if not _writing():
        # Every transaction that was open during the first read has ended since: what is
        # missing up to its last id now was rolled back (or pruned), and what committed
        # meanwhile is there. Ids taken since are all higher than its last.
        return [row for row in _after(user_id, since) if row.pk <= rows[-1].pk], False
    return [row for row in rows if row.pk < gap], True


def _after(user_id: int, since: int) -> list[AccountEvent]:
    return list(
        AccountEvent.objects.filter(user_id=user_id, id__gt=since).order_by("id")[:READ_BATCH]
    )


def _young_gap(since: int, last: int, now: datetime | None) -> int | None:
    """The first id after `since` (up to `last`, every account's events) that is there, was
    recorded less than SETTLE_SECONDS ago, and has a missing id just before it: that one
    may belong to a transaction still open. None when there is no such id. An id missing
    before an older one is taken as settled: no transaction that records events stays open
    that long."""
    cutoff = (now or timezone.now()) - timedelta(seconds=SETTLE_SECONDS)
    young = list(
        AccountEvent.objects.filter(id__gt=since, id__lte=last, created_at__gt=cutoff)
        .order_by("id")
        .values_list("id", flat=True)
    )
    if not young:
        return None
    there = set(
        AccountEvent.objects.filter(id__gte=young[0] - 1, id__lte=last).values_list("id", flat=True)
    )
    return next((i for i in young if i - 1 > since and i - 1 not in there), None)


# The advisory lock every transaction that records events holds, shared, from before it
# takes an id until it ends (PostgreSQL), so that a reader can tell whether one is open.
WRITING_LOCK = 0x61636576  # "acev"


def _writing() -> bool:
    """Whether another transaction that records events is open now (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = 0 AND objid = %s AND objsubid = 1 AND pid <> pg_backend_pid()"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
            [WRITING_LOCK],
        )
        return bool(cursor.fetchone()[0])


def prune(now: datetime | None = None, user_id: int | None = None) -> int:
    """Deletes the events older than ACCOUNT_EVENTS_KEEP_DAYS (of one account, or of all);
    returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=keep_days())
    old = AccountEvent.objects.filter(created_at__lt=cutoff)
    if user_id is not None:
        old = old.filter(user_id=user_id)
    deleted, _ = old.delete()
    if deleted and user_id is None:
        # The hourly run's one line (its "Sending due task" is lowered to DEBUG, config/logs.py).
        log.info("pruned %d bot account events older than %s", deleted, cutoff.isoformat())
    return deleted


# --- who may follow -----------------------------------------------------------------------


def may_follow(token_id: int) -> bool:
    """Whether an open stream let in with token `token_id` may go on: the token is not
    revoked, and its account is an active bot account, neither banned nor suspended (as
    accounts.bot_tokens.authenticate judges a new request)."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(pk=token_id, revoked_at__isnull=True, scope=ApiToken.Scope.PLAY)
        .first()
    )
    if token is None:
        return False
    user = token.user
    return bool(user.is_active and user.is_bot and user.restriction() is None)


def aborted(game: Game) -> None:
    """A moderator ends `game` with no result (games.moderation.actions.abort_table): a
    running game's bot accounts are told it is over, `status` "aborted" and `result` null."""
    if game.status != Game.Status.ACTIVE:
        return
    _record(
        [
            _event(int(user), GAME_FINISHED, game.pk, seat=int(seat), status="aborted", result=None)
            for seat, user in sorted((game.account_seats or {}).items(), key=lambda i: int(i[0]))
        ]
    )


def moderator_took(game: Game, seat: int, columns: dict[str, Any]) -> None:
    """A moderator handed a running game's `seat` to a site bot (games.moderation.actions):
    its bot account is told (`seat_handed_over`, reason "moderator") and hears no more of
    the game; `account_seats` without the seat is added to `columns`, written with the
    moderator's event."""
    holder = _holder(game, seat)
    if holder is None:
        return
    columns["account_seats"] = {
        s: u for s, u in (game.account_seats or {}).items() if s != str(seat)
    }
    _record([_event(holder, SEAT_HANDED_OVER, game.pk, seat=seat, reason="moderator")])
