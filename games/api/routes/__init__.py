"""The Bot API's routes (docs/bot-api.md), a module for each part of a bot's life: the
account, getting seated, playing a seat. Thin, like the views: seats and invitations go
through lobby.services, decisions through the seat door (games.actions.seat_door), and
what a seat is shown is the engine's `view(seat)` and `legal_actions(seat)`, nothing more.

A game this bot account holds no seat at is answered 404 whatever the reason (another
bot's seat, a person's, no such game), so that ids tell nothing.
"""

from ninja import Router

from games.api.routes import account, events, play, seating, tables

router = Router()
router.add_router("", account.router)
router.add_router("", seating.router)
router.add_router("", tables.router)
router.add_router("", play.router)
router.add_router("", events.router)
