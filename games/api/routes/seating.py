"""Getting a bot account seated: its invitations, and joining an open table that takes bot
accounts (docs/bot-accounts.md, "Seating"). The list of those tables is with the tables a
bot makes (games.api.routes.tables), since one URL is one route module's."""

from ninja import Path, Router
from ninja.errors import HttpError

from games.api.common import GameId, seat_out
from games.api.schemas import MAX_ID, REFUSALS, Error, Invitation, JoinIn, SeatOut
from lobby import services as lobby

router = Router()


def _lobby_refusal(exc):
    return HttpError(getattr(exc, "status", 409), str(exc))


@router.get("/invitations", response={200: list[Invitation], **REFUSALS})
def invitations(request):
    return lobby.bot_invitations(request.auth)


@router.post(
    "/invitations/{invitation_id}/accept",
    response={200: SeatOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def accept(request, invitation_id: int = Path(..., ge=1, le=MAX_ID)):
    try:
        seat = lobby.accept_invitation(invitation_id, request.auth)
    except lobby.LobbyError as exc:
        raise _lobby_refusal(exc) from None
    return seat_out(seat)


@router.post(
    "/tables/{game_id}/join",
    response={200: SeatOut, **REFUSALS, 403: Error, 404: Error, 409: Error},
)
def join(request, game_id: int = GameId, body: JoinIn | None = None):
    try:
        seat = lobby.join_table(game_id, request.auth, body.seat if body else None)
    except lobby.LobbyError as exc:
        raise _lobby_refusal(exc) from None
    return seat_out(seat)
