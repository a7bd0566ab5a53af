"""Tables made by bots (docs/bot-accounts.md, "Tables made by bots"): a bot account creates
a table with the create form's options, invites bot accounts (or people who allow it),
adds site bots, removes a seat's occupant, starts it, or closes it; and the open tables
that take bot accounts, which a bot may join.

Thin, like the lobby's views: every change goes through lobby.services, whose rules (the
host only, an open table, a free seat, the game row's lock) are the web form's too. The
options are checked by the create form itself (lobby.services.table_options), so the API
offers exactly what the form offers, no more.

A table this bot can neither host, sit at nor see (a private one it was not invited to)
is answered 404 "There is no such table.", as the lobby answers a private table's page;
a table it may see but does not host refuses a host's action with 403.
"""

from typing import Literal

from django.db.models import Q
from django.urls import reverse
from ninja import Field, Path, Router, Schema, Status
from ninja.errors import HttpError
from pydantic import ConfigDict

from games.api.common import GameId
from games.api.schemas import MAX_ID, REFUSALS, Error, OpenTable
from games.models import Game
from lobby import services as lobby

router = Router()

# How many open tables (not started, not closed) one bot account may host at once: enough
# for a tournament runner, few enough that a loop cannot fill the lobby's list.
MAX_OPEN_TABLES = 10
NO_SUCH_TABLE = "There is no such table."


# An unknown field is refused rather than ignored: a misspelt option would otherwise make
# a table other than the one asked for.
STRICT = ConfigDict(extra="forbid")


class TableOptions(Schema):
    """A table's options, as the lobby's create form offers them (its defaults too)."""

    model_config = STRICT

    players: Literal[4, 6, 8] = Field(4, description="Seats: 4, 6 or 8 (teams of two).")
    pace: Literal["realtime", "turn"] = Field(
        "realtime", description="`realtime` (a move timer) or `turn` (a deadline per turn)."
    )
    move_seconds: Literal[45, 30, 15] = Field(
        30, description="Real time: seconds for a move (45, 30 or 15)."
    )
    turn_hours: Literal[12, 24, 72] = Field(
        24, description="Turn by turn: hours for a turn (12, 24 or 72)."
    )
    bot_speed: Literal["steady", "quick"] = Field(
        "steady", description="Real time: how fast site bots play (`quick`: three times faster)."
    )
    missed_deadline: Literal["bot", "leave"] = Field(
        "bot",
        description="Turn by turn, a missed deadline: `bot` (a bot plays that turn) or "
        "`leave` (the player is treated as having left).",
    )
    stacking: bool = Field(False, description="Draw cards may be stacked.")
    final_card_penalty: bool = Field(True, description="The final-card draw penalty applies.")
    target_score: int | None = Field(
        None,
        ge=50,
        le=5000,
        description="Play to this score (50 to 5000); null: a single round.",
    )
    spectators: bool = Field(False, description="People may watch the game.")
    private: bool = Field(
        False, description="Not listed in the lobby: joined by invitation or the invite link."
    )
    rated: bool = Field(
        False,
        description="Rated: a table of bot accounts only is rated on the bots' ladder; with "
        "a site bot, or people and bot accounts together, it is dealt casual.",
    )
    bot_accounts: bool = Field(
        False, description="Bot accounts may join it by themselves (a public table only)."
    )


class TableSeat(Schema):
    seat: int = Field(description="The seat's number, from 0 (the page shows seat + 1).")
    occupant: Literal["empty", "person", "bot_account", "site_bot"]
    name: str | None = Field(None, description="Who sits there (a site bot: its level's name).")
    level: Literal["easy", "normal", "hard"] | None = Field(None, description="A site bot's level.")
    you: bool = Field(description="The seat is this bot account's.")
    invited: str | None = Field(
        None, description="An empty seat's open invitation: the invited account's name."
    )


class TableOut(Schema):
    game: int = Field(description="The table's (game's) id: the same id as /games/{id}.")
    status: Literal["open", "active", "finished", "aborted"]
    host: str = Field(description="The host's name.")
    you_host: bool
    your_seat: int | None = Field(description="This bot's seat, or null.")
    options: TableOptions
    seats: list[TableSeat]
    invite_link: str | None = Field(
        None,
        description="The host only: the link that lets a person see a private table and "
        "sit down (people are invited with it, as on the site).",
    )


class InviteIn(Schema):
    model_config = STRICT
    seat: int = Field(ge=0, le=15, description="An empty seat's number, from 0.")
    username: str = Field(
        min_length=1,
        max_length=150,
        description="A bot account's username, or a person's who allows bot accounts to "
        "invite them (a setting of their profile).",
    )


class InvitationOut(Schema):
    id: int = Field(description="The invitation's id (the invitee's accept/decline use it).")
    game: int
    seat: int
    invitee: str = Field(description="The invited account's username.")
    invitee_is_bot: bool
    status: Literal["open", "accepted", "declined", "withdrawn", "lapsed"]


class SiteBotIn(Schema):
    model_config = STRICT
    seat: int = Field(ge=0, le=15, description="An empty seat's number, from 0.")
    level: Literal["easy", "normal", "hard"] = "normal"


def _refusal(exc):
    return HttpError(getattr(exc, "status", 409), str(exc))


def _visible_table(user, game_id):
    """The table `game_id` as this bot may see it: its own, one it sits at or is invited
    to, or a public one; anything else is "no such table", so that ids tell nothing."""
    game = Game.objects.select_related("host").filter(pk=game_id).first()
    if game is None:
        raise HttpError(404, NO_SUCH_TABLE)
    if game.private and game.host_id != user.pk:
        invited = game.invitations.pending().filter(bot=user).exists()
        if not invited and not game.seats.filter(Q(user=user) | Q(held_for=user)).exists():
            raise HttpError(404, NO_SUCH_TABLE)
    return game


def table_out(request, game):
    """The table as the Bot API shows it: options, seats, open invitations."""
    user = request.auth
    game.refresh_from_db()
    seats = list(game.seats.select_related("user"))
    invited = lobby.table_invitations(game) if game.status == Game.Status.OPEN else {}
    hosting = game.host_id == user.pk
    rows = []
    for s in seats:
        if s.user is not None:
            occupant = "bot_account" if s.user.is_bot else "person"
            name = s.user.name
        elif s.bot_level:
            occupant, name = "site_bot", s.label()
        else:
            occupant, name = "empty", None
        rows.append(
            {
                "seat": s.number,
                "occupant": occupant,
                "name": name,
                "level": s.bot_level or None,
                "you": s.user_id == user.pk,
                "invited": invited.get(s.number) if occupant == "empty" else None,
            }
        )
    return {
        "game": game.pk,
        "status": game.status,
        "host": game.host.name,
        "you_host": hosting,
        "your_seat": next((s.number for s in seats if s.user_id == user.pk), None),
        "options": {name: getattr(game, name) for name in Game.TABLE_OPTIONS},
        "seats": rows,
        "invite_link": request.build_absolute_uri(reverse("lobby:invite", args=[game.invite_token]))
        if hosting
        else None,
    }


def _form_data(options):
    """The create form's POST data for `options`: the form judges them, as it judges a
    person's (a checkbox is sent only when ticked)."""
    data = {
        name: str(value)
        for name, value in options.model_dump().items()
        if not isinstance(value, bool) and value is not None
    }
    data.update({name: "on" for name, value in options.model_dump().items() if value is True})
    data["rated"] = "rated" if options.rated else "casual"
    data["scoring"] = "target" if options.target_score is not None else "single"
    return data


@router.get("/tables", response={200: list[OpenTable], **REFUSALS})
def tables(request):
    """Open public tables whose host allows bot accounts and that have a free seat."""
    return [
        {"game": g.pk, "players": g.players, "pace": g.pace, "free_seats": g.free_seat_count()}
        for g in lobby.open_tables_for_bots()
    ]


@router.post("/tables", response={201: TableOut, **REFUSALS, 403: Error, 409: Error})
def create(request, body: TableOptions):
    """Creates a table hosted by this bot account, which sits at seat 0, as a person who
    creates a table does. The options are the lobby's create form's, with its defaults
    (`{}`: a table as the form first offers it)."""
    try:
        checked = lobby.table_options(_form_data(body))
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    if Game.objects.open_tables().filter(host=request.auth).count() >= MAX_OPEN_TABLES:
        raise HttpError(
            409,
            f"This bot account hosts {MAX_OPEN_TABLES} open tables already: start or close "
            "one first (DELETE /api/bot/tables/{id}).",
        )
    try:
        game = lobby.create_table(request.auth, **checked)
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    return Status(201, table_out(request, game))


@router.get("/tables/{game_id}", response={200: TableOut, **REFUSALS, 404: Error})
def table(request, game_id: int = GameId):
    """A table this bot hosts, sits at, is invited to, or that is public."""
    return table_out(request, _visible_table(request.auth, game_id))


def _host_changes(request, game_id, change, *args):
    """The host's change of its table through the lobby's service `change` (which checks
    that the caller hosts it, under the table's lock), answered with the table as it is
    then."""
    game = _visible_table(request.auth, game_id)
    try:
        change(game.pk, request.auth, *args)
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    return table_out(request, game)


@router.delete(
    "/tables/{game_id}", response={200: TableOut, **REFUSALS, 403: Error, 404: Error, 409: Error}
)
def close(request, game_id: int = GameId):
    """The host closes its open table (as a host who leaves it): nobody plays there."""
    game = _visible_table(request.auth, game_id)
    if game.host_id != request.auth.pk:
        raise HttpError(403, "Only the host can do that.")
    try:
        lobby.leave_table(game.pk, request.auth)
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    return table_out(request, game)


@router.post(
    "/tables/{game_id}/invitations",
    response={201: InvitationOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def invite(request, body: InviteIn, game_id: int = GameId):
    """The host invites an account to an empty seat. The seat stays empty until the invitee
    accepts (a bot through POST /api/bot/invitations/{id}/accept, a person in their lobby)."""
    game = _visible_table(request.auth, game_id)
    try:
        invitation = lobby.invite_bot(game.pk, request.auth, body.seat, body.username)
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    return Status(
        201,
        {
            "id": invitation.pk,
            "game": game.pk,
            "seat": invitation.seat,
            "invitee": invitation.bot.username,
            "invitee_is_bot": invitation.bot.is_bot,
            "status": "open",
        },
    )


@router.post(
    "/tables/{game_id}/site-bots",
    response={200: TableOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def site_bot(request, body: SiteBotIn, game_id: int = GameId):
    """The host puts a site bot of `level` in an empty seat."""
    return _host_changes(request, game_id, lobby.add_bot, body.seat, body.level)


@router.delete(
    "/tables/{game_id}/seats/{seat}",
    response={200: TableOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def vacate(request, game_id: int = GameId, seat: int = Path(..., ge=0, le=15)):
    """The host empties a seat: its occupant (a bot account, a person or a site bot, never
    the host) leaves it, or, for an empty seat, its open invitation is withdrawn."""
    return _host_changes(request, game_id, lobby.vacate_seat, seat)


@router.post(
    "/tables/{game_id}/start",
    response={200: TableOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def start(request, game_id: int = GameId):
    """The host deals: every seat must be taken. A rated table of bot accounts only stays
    rated (the bots' ladder); with a site bot, or people too, it is dealt casual."""
    return _host_changes(request, game_id, lobby.start_table)


@router.post(
    "/invitations/{invitation_id}/decline",
    response={200: InvitationOut, **REFUSALS, 404: Error, 409: Error},
)
def decline(request, invitation_id: int = Path(..., ge=1, le=MAX_ID)):
    """This bot says no to an invitation: the host may invite someone else. Declining
    again answers the same."""
    try:
        invitation = lobby.decline_invitation(invitation_id, request.auth)
    except lobby.LobbyError as exc:
        raise _refusal(exc) from None
    return {
        "id": invitation.pk,
        "game": invitation.game_id,
        "seat": invitation.seat,
        "invitee": request.auth.username,
        "invitee_is_bot": request.auth.is_bot,
        "status": "declined",
    }
