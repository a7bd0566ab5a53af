"""How long a game usually takes at the settings a create form shows (games.presenters.durations),
answered to the form's htmx as it changes: the sentence alone, escaped."""

from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.views.decorators.http import require_GET

from games.models import Game
from games.presenters import durations

TARGETS = range(50, 5001)


def _choice(value: str | None, allowed: list[object], default: object) -> object:
    """`value` if it is one of `allowed` (compared as text), else `default`: the form's
    fields, never an error for a half-filled form."""
    return next((a for a in allowed if str(a) == value), default)


@require_GET
def estimate(request: HttpRequest) -> HttpResponse:
    query = request.GET
    target = query.get("target_score", "")
    target_score = (
        int(target)
        if query.get("scoring") == "target" and target.isdigit() and int(target) in TARGETS
        else None
    )
    found = durations.estimate(
        players=int(str(_choice(query.get("players"), [4, 6, 8], 4))),
        pace=str(_choice(query.get("pace"), list(Game.Pace.values), Game.Pace.REALTIME)),
        target_score=target_score,
        move_seconds=int(str(_choice(query.get("move_seconds"), [15, 30, 45], 30))),
        bot_speed=str(
            _choice(query.get("bot_speed"), list(Game.BotSpeed.values), Game.BotSpeed.STEADY)
        ),
    )
    return HttpResponse(escape(found.sentence))
