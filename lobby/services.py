"""Seat changes of an open table. Each locks the game row, so two people
racing for one seat are served one after the other: the second finds it taken. A change of
who holds a seat tells the sockets and bot streams listening there to check again
(access.seats_changed), in the same transaction.

The locks, always in this order: the game row, then the seated user's row (take_seat
re-reads the account under its lock, since "become a bot account" locks the same row
before it looks at the account's seats, so the two never both succeed).

A seat of a Play again table may be held for the person who sat there in the game before
(games.actions.rematch): nobody else takes it, and the host puts no bot there, until they
join, decline, or the hold runs out.

Bot accounts (people's own programs, docs/bot-accounts.md) sit down in two ways only:
accepting a host's invitation to one seat (invite_bot, accept_invitation), or joining
an open public table whose host allows bot accounts (join_table). The person's way,
take_seat, refuses a bot account at any other table, so that no host finds a program
at their table without having asked for one.
"""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.actions import access, account_events, decisions, ratings
from games.models import Game, Seat
from lobby.forms import TableForm
from lobby.models import Invitation

NO_SUCH_INVITATION = "There is no such invitation."
NO_BOT_ACCOUNTS = (
    "This table does not take bot accounts: its host may invite one to a "
    "seat, or allow bot accounts when creating a table."
)


class LobbyError(Exception):
    """A refused lobby action; the message is fit to show, `status` the HTTP answer."""

    def __init__(self, message, status=409):
        super().__init__(message)
        self.status = status


def create_table(host, **options):
    if options.get("rated") and not ratings.may_sit_rated(host):
        raise LobbyError(ratings.NEEDS_CONFIRMED_EMAIL, status=403)
    with transaction.atomic():
        game = Game.objects.create(host=host, **options)
        Seat.objects.bulk_create(
            [Seat(game=game, number=n, user=host if n == 0 else None) for n in range(game.players)]
        )
    return game


def table_options(data):
    """The options create_table takes, from the create form's fields `data` (a dict of
    strings, as a form posts them): judged by the form itself, so that the Bot API offers
    exactly what the page offers. Raises LobbyError (400) naming the first field refused."""
    form = TableForm(data)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise LobbyError(f"That request is not valid: {field}: {errors[0]}", status=400)
    return form.table_options()


def _lock_open_table(game_id):
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status == Game.Status.ABORTED:
        raise LobbyError("This table was closed.")
    if game.status != Game.Status.OPEN:
        raise LobbyError("This table has already started.")
    return game


def _require_host(game, user):
    if game.host_id != user.pk:
        raise LobbyError("Only the host can do that.", status=403)


def _seat(game, number):
    try:
        return game.seats.select_related("held_for").get(number=number)
    except Seat.DoesNotExist:
        raise LobbyError("There is no such seat at this table.", status=404) from None


def _refuse_held(seat, user=None):
    """Refuses a held seat to anyone but the person it waits for."""
    waits_for = seat.waits_for()
    if waits_for is not None and (user is None or waits_for != user.pk):
        raise LobbyError(
            f"That seat is held for {seat.held_for.name}, who sat there in the "
            "last game, until they join or decline it or the hold runs out."
        )


def _lock_user(user):
    """The account read again under its row lock: the request's copy may be older than a
    conversion to a bot account that committed since (accounts.bot_tokens)."""
    return get_user_model().objects.select_for_update().get(pk=user.pk)


def take_seat(game_id, user, number, *, invited=False):
    """Seats `user` at `number`; a user already seated moves (change seat).

    Locks the game row, then the user's. A bot account sits only where it was invited
    (`invited`, from accept_invitation) or where the host allows bot accounts; a person
    sits at a rated table only with a confirmed email address; a seat held for someone
    else is refused. Taking a seat ends the open invitations to it, and the taker's own
    hold at this table."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        user = _lock_user(user)
        if user.is_bot and not invited and not game.bot_accounts:
            raise LobbyError(NO_BOT_ACCOUNTS, status=403)
        if game.rated and not ratings.may_sit_rated(user):
            raise LobbyError(ratings.NEEDS_CONFIRMED_EMAIL, status=403)
        current = game.seats.filter(user=user).first()
        if current is None and not game.seats.filter(user__isnull=True, bot_level="").exists():
            raise LobbyError("This table is full.")
        seat = _seat(game, number)
        if current is not None and current.pk == seat.pk:
            return seat
        if not seat.is_empty:
            raise LobbyError("That seat is taken.")
        _refuse_held(seat, user)
        changed = [seat.number]
        if current is not None:
            current.user = None
            current.save(update_fields=["user"])
            changed.append(current.number)
        seat.user, seat.held_for, seat.held_until = user, None, None
        seat.save(update_fields=["user", "held_for", "held_until"])
        # Sitting anywhere at the table ends the hold kept for this person elsewhere.
        game.seats.filter(held_for=user).update(held_for=None, held_until=None)
        _close_invitations(game, seat.number, "lapsed", keep=user)
        access.seats_changed(game.pk, changed)
        return account_events.seated(seat)


def leave_table(game_id, user):
    """Leaves before the start. When the host leaves, the table is closed."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        if game.host_id == user.pk:
            taken = list(game.seats.filter(user__isnull=False).values_list("number", flat=True))
            game.seats.update(user=None, bot_level="")
            account_events.invitations_closed(
                Invitation.objects.pending().filter(game=game), "host"
            )
            game.status = Game.Status.ABORTED
            game.save(update_fields=["status"])
            access.seats_changed(game.pk, taken)
            return
        mine = game.seats.filter(user=user).values_list("number", flat=True).first()
        if mine is None:
            raise LobbyError("You are not seated at this table.")
        game.seats.filter(number=mine).update(user=None)
        access.seats_changed(game.pk, [mine])


def add_bot(game_id, user, number, level):
    if level not in Seat.BotLevel.values:
        raise LobbyError("Pick a bot level: Easy, Normal or Hard.", status=400)
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, user)
        seat = _seat(game, number)
        if not seat.is_empty:
            raise LobbyError("That seat is taken.")
        _refuse_held(seat)
        seat.bot_level, seat.held_for, seat.held_until = level, None, None
        seat.save(update_fields=["bot_level", "held_for", "held_until"])
        _close_invitations(game, seat.number, "lapsed")
        access.seats_changed(game.pk, [seat.number])
        return seat


def remove_from_seat(game_id, user, number):
    """The host empties a seat taken by a player or a bot (not the host's own)."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, user)
        seat = _seat(game, number)
        if seat.user_id == user.pk:
            raise LobbyError("You cannot remove yourself; leave the table instead.")
        if seat.is_empty:
            raise LobbyError("That seat is already empty.")
        seat.user = None
        seat.bot_level = ""
        seat.save(update_fields=["user", "bot_level"])
        access.seats_changed(game.pk, [seat.number])


def vacate_seat(game_id, user, number):
    """The host empties seat `number` (the Bot API's DELETE of a seat): its occupant is
    removed as remove_from_seat does, or, when nobody sits there, its open invitation is
    withdrawn. One lock of the game row for both, so that the answer is about one state."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, user)
        seat = _seat(game, number)
        if seat.is_empty and Invitation.objects.pending().filter(game=game, seat=number).exists():
            _close_invitations(game, number, "host")
            return
        remove_from_seat(game_id, user, number)


def start_table(game_id, user):
    game = Game.objects.get(pk=game_id)
    _require_host(game, user)
    try:
        with transaction.atomic():
            # A table dealt with a site bot, or with people and bot accounts together, is
            # recorded casual, whatever the host chose; bot accounts alone are rated among
            # themselves (docs/ratings.md, "The bots' ladder"). Rolled back with the start
            # if the start is refused.
            seats = Seat.objects.filter(game_id=game_id)
            if not ratings.may_deal_rated(list(seats)):
                Game.objects.filter(pk=game_id, status=Game.Status.OPEN).update(rated=False)
            elif game.rated:
                # Checked at every seat already; again here for a person seated before the
                # rule, or whose address is no longer confirmed.
                unconfirmed = [
                    s.user.name
                    for s in seats.select_related("user")
                    if s.user is not None and not ratings.may_sit_rated(s.user)
                ]
                if unconfirmed:
                    raise LobbyError(
                        "A rated table needs a confirmed email address for every "
                        f"player; not confirmed yet: {', '.join(unconfirmed)}."
                    )
            account_events.invitations_closed(
                Invitation.objects.pending().filter(game_id=game_id), "lapsed"
            )
            return decisions.start_game(game_id)
    except decisions.DecisionRefused as exc:
        raise LobbyError(str(exc)) from exc


def quick_game(user, level=Seat.BotLevel.NORMAL, bot_speed=Game.BotSpeed.STEADY):
    """A real-time game for `user` and three bots of `level` at `bot_speed`, dealt at once:
    the home page's one-click game. Partners: the bot across the table."""
    game = create_table(
        user, players=4, pace=Game.Pace.REALTIME, move_seconds=30, bot_speed=bot_speed
    )
    for number in range(1, game.players):
        add_bot(game.pk, user, number, level)
    start_table(game.pk, user)
    return game


# --- Bot accounts: invitations and open tables (docs/bot-accounts.md).


def _close_invitations(game, number, by, keep=None):
    """Ends the open invitations to seat `number` (someone else sat down, or a new one
    replaces them), but `keep`'s own; the caller holds the game's lock."""
    pending = Invitation.objects.filter(
        game=game, seat=number, accepted_at__isnull=True, closed_at__isnull=True
    ).exclude(bot=keep)
    account_events.invitations_closed(pending, by)
    pending.update(closed_at=timezone.now(), closed_by=by)


def invite_bot(game_id, host, number, username):
    """The host invites the bot account `username` to empty seat `number` of their open
    table; returns the Invitation. The seat stays empty until the bot accepts. A host that
    is itself a bot account (the Bot API's tables) may invite a person too, one who allows
    it (User.allow_bot_invitations); the person accepts or declines in their lobby. Locks
    the game row. Raises LobbyError: not the host, no such account, not a bot account (or
    a person who does not allow it), the seat taken, the invitee seated or invited here
    already."""
    username = (username or "").strip()
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, host)
        seat = _seat(game, number)
        bot = (
            get_user_model().objects.filter(username__iexact=username).first() if username else None
        )
        if bot is None or not bot.is_active:
            raise LobbyError(
                f"There is no account named {username!r}."
                if username
                else "Name the bot account to invite.",
                status=404,
            )
        if not bot.is_bot and not host.is_bot:
            raise LobbyError(
                f"{bot.username} is not a bot account; invite people with the table's link.",
                status=400,
            )
        if not bot.is_bot and not bot.allow_bot_invitations:
            raise LobbyError(
                f"{bot.username} does not take invitations from bot accounts (a person "
                "allows them on their profile page).",
                status=403,
            )
        if bot.is_restricted:
            raise LobbyError(f"{bot.username} may not play at the moment.")
        if not seat.is_empty:
            raise LobbyError("That seat is taken.")
        _refuse_held(seat)
        if game.seats.filter(user=bot).exists():
            raise LobbyError(f"{bot.username} is already seated at this table.")
        elsewhere = Invitation.objects.pending().filter(game=game, bot=bot).exclude(seat=number)
        if elsewhere.exists():
            raise LobbyError(f"{bot.username} is already invited to another seat here.")
        _close_invitations(game, number, "host")
        invitation = Invitation.objects.create(game=game, seat=number, bot=bot, invited_by=host)
        return account_events.invited(invitation)


def _open_invitations():
    return Invitation.objects.pending().select_related("game", "game__host", "invited_by")


def bot_invitations(user):
    """The open invitations of bot account `user`, oldest first, as plain dicts (the Bot
    API's answer): {id, game, seat, host, players, pace, created_at}. An invitation to a
    seat someone else took meanwhile is left out."""
    taken = {
        (s.game_id, s.number)
        for s in Seat.objects.filter(
            game__invitations__bot=user, game__status=Game.Status.OPEN
        ).exclude(user__isnull=True, bot_level="")
    }
    return [
        {
            "id": inv.pk,
            "game": inv.game_id,
            "seat": inv.seat,
            "host": inv.invited_by.name,
            "players": inv.game.players,
            "pace": inv.game.pace,
            "move_seconds": inv.game.move_seconds,
            "created_at": inv.created_at,
        }
        for inv in _open_invitations().filter(bot=user)
        if (inv.game_id, inv.seat) not in taken
    ]


def table_invitations(game):
    """{seat number: invited bot's name} of the table's open invitations, for its page."""
    return {
        inv.seat: inv.bot.name
        for inv in Invitation.objects.pending().filter(game=game).select_related("bot")
    }


CLOSED_BECAUSE = {
    "bot": "you declined it",
    "host": "the host withdrew it",
    "lapsed": "someone else took the seat",
}


def _lock_invitation(invitation_id, user, field):
    """The invitation `invitation_id` whose `field` ("bot", or "invited_by" for the host) is
    `user`, locked, with its table locked first (every seat change locks the game row before
    anything else); returns (game, invitation), open or not. Someone else's invitation is
    answered as a missing one, so that ids tell nothing."""
    found = (
        Invitation.objects.filter(pk=invitation_id, **{field: user})
        .values_list("game_id", flat=True)
        .first()
        if isinstance(invitation_id, int)
        else None
    )
    if found is None:
        raise LobbyError(NO_SUCH_INVITATION, status=404)
    game = Game.objects.select_for_update().get(pk=found)
    return game, Invitation.objects.select_for_update().get(pk=invitation_id)


def _refuse_closed(invitation):
    if invitation.closed_at is not None:
        why = CLOSED_BECAUSE.get(invitation.closed_by, "it was closed")
        raise LobbyError(f"This invitation is closed: {why}.")


def accept_invitation(invitation_id, user):
    """The invited account `user` takes the seat it was invited to, through take_seat;
    returns the Seat. Accepting again (a retry, two requests at once: the game's lock
    serves them one after the other) answers the seat it took the first time. Raises
    LobbyError: no such invitation (also someone else's), declined, withdrawn or lapsed,
    the table started, the seat taken meanwhile, `user` seated at the table already."""
    with transaction.atomic():
        game, invitation = _lock_invitation(invitation_id, user, "bot")
        if invitation.accepted_at is not None:
            seat = game.seats.filter(user=user, number=invitation.seat).first()
            if seat is None:
                raise LobbyError(
                    f"You accepted this invitation, but no longer sit at seat "
                    f"{invitation.seat} of this table."
                )
            return seat
        _refuse_closed(invitation)
        if game.status != Game.Status.OPEN:
            raise LobbyError("This table has already started.")
        current = game.seats.filter(user=user).first()
        if current is not None:
            raise LobbyError(f"You already sit at seat {current.number} of this table.")
        seat = take_seat(game.pk, user, invitation.seat, invited=True)
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_at"])
        return seat


def decline_invitation(invitation_id, user):
    """The invited account `user` says no: the invitation closes ("bot") and the host may
    invite someone else to the seat. Declining again answers the same; returns the
    Invitation. Raises LobbyError: no such invitation (also someone else's), accepted
    already, withdrawn or lapsed."""
    with transaction.atomic():
        _game, invitation = _lock_invitation(invitation_id, user, "bot")
        if invitation.closed_by == "bot":
            return invitation
        if invitation.accepted_at is not None:
            raise LobbyError("You accepted this invitation already.")
        _refuse_closed(invitation)
        invitation.closed_at, invitation.closed_by = timezone.now(), "bot"
        account_events.invitations_closed(Invitation.objects.filter(pk=invitation.pk), "bot")
        invitation.save(update_fields=["closed_at", "closed_by"])
        return invitation


def cancel_invitation(game_id, host, number):
    """The host withdraws the open invitation to seat `number` of their table."""
    with transaction.atomic():
        game = _lock_open_table(game_id)
        _require_host(game, host)
        if not Invitation.objects.pending().filter(game=game, seat=number).exists():
            raise LobbyError("That seat has no open invitation.", status=404)
        _close_invitations(game, number, "host")


def open_tables_for_bots():
    """Open public tables whose host allows bot accounts, with a free seat, newest first."""
    return [
        game
        for game in Game.objects.listed()
        .filter(bot_accounts=True)
        .prefetch_related("seats")
        .order_by("-created_at")[:50]
        if game.free_seat_count()
    ]


def join_table(game_id, user, number=None):
    """Bot account `user` sits at an open public table whose host allows bot accounts: at
    seat `number`, or the first empty seat. Returns the Seat. Raises LobbyError: not a bot
    account (people use take_seat), no such table (also a private one: those are joined
    by invitation), bot accounts not allowed, full, seat taken."""
    if not getattr(user, "is_bot", False):
        raise LobbyError("Only bot accounts join tables this way.", status=403)
    with transaction.atomic():
        game = (
            Game.objects.select_for_update().filter(pk=game_id).first()
            if isinstance(game_id, int)
            else None
        )
        # A table the bot sits at already, private or not, answers with its seat: joining
        # again (a retry) changes nothing, and asking for another seat is told why not.
        current = game.seats.filter(user=user).first() if game is not None else None
        if current is not None:
            if number is not None and number != current.number:
                raise LobbyError(f"You already sit at seat {current.number} of this table.")
            return current
        if game is None or game.private:
            raise LobbyError("There is no such table.", status=404)
        if game.status != Game.Status.OPEN:
            raise LobbyError("This table has already started.")
        if not game.bot_accounts:
            raise LobbyError(NO_BOT_ACCOUNTS, status=403)
        if number is None:
            number = game.seats.free().values_list("number", flat=True).first()
            if number is None:
                raise LobbyError("This table is full.")
        return take_seat(game.pk, user, number)
