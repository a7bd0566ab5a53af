"""The token's own account."""

from ninja import Router

from games.api.schemas import REFUSALS, Account

router = Router()


@router.get("/account", response={200: Account, **REFUSALS})
def account(request):
    user = request.auth
    return {"username": user.username, "name": user.name, "is_bot": user.is_bot}
