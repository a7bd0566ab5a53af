import json
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from games import engine, services
from games.models import Game, GameEvent

LOG_LENGTH = 30


def _get_game_for_user(request, game_id):
    """(game, seat number or None for a spectator); PermissionDenied for others."""
    game = get_object_or_404(
        Game.objects.select_related("snapshot").exclude(status=Game.Status.OPEN), pk=game_id
    )
    seat = game.seats.filter(user=request.user).values_list("number", flat=True).first()
    if seat is None and not (game.spectators and not game.private):
        raise PermissionDenied("You are not playing at this table.")
    return game, seat


def _action_label(action):
    kind = action["type"]
    if kind == "play":
        label = f"Play {engine.card_name(action['card'])}"
        if action.get("color"):
            label += f", then {_COLOR_NAMES[action['color']]}"
        return label
    if kind == "pass":
        return f"Pass {engine.card_name(action['card'])}"
    return {
        "draw": "Draw a card",
        "pass_turn": "Pass",
        "take_penalty": "Take penalty",
    }.get(kind, kind.replace("_", " ").capitalize())


_COLOR_NAMES = {"R": "Red", "Y": "Yellow", "G": "Green", "B": "Blue"}


def _context(game, seat, request):
    state = services.load_state(game)
    view = state.view(seat)
    legal = state.legal_actions(seat) if seat is not None else []
    rows = GameEvent.objects.filter(game_id=game.pk).order_by("-seq")[:LOG_LENGTH]
    log = []
    for row in reversed(rows):
        for event in engine.events_for(row.events, seat):
            log.append({"seq": row.seq, "text": _describe(event)})
    names = {s.number: s.label() for s in game.seats.select_related("user")}
    players = [
        {
            "number": n,
            "name": names.get(n, ""),
            "cards": view["hand_sizes"][n],
            "out": view["out"][n],
            "departed": view["departed"][n],
            "to_play": view.get("turn") == n,
            "you": n == seat,
        }
        for n in range(game.players)
    ]
    return {
        "game": game,
        "seat": seat,
        "view": view,
        "hand": [{"code": c, "name": engine.card_name(c)} for c in view.get("hand", [])],
        "actions": [{"json": json.dumps(a), "label": _action_label(a)} for a in legal],
        "can_concede": seat is not None and game.status == Game.Status.ACTIVE
        and not view.get("game_over"),
        "players": players,
        "log": log[-LOG_LENGTH:],
        "key": uuid.uuid4().hex,
    }


def _describe(event):
    """A move-log line from an event this seat may see (no hidden card is ever in it)."""
    fields = {k: v for k, v in event.items() if k not in ("type", "visible_to")}
    details = ", ".join(f"{k}: {v}" for k, v in fields.items())
    return f"{event['type']} ({details})" if details else event["type"]


@login_required
def play(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    context = _context(game, seat, request)
    if request.htmx:
        return render(request, "games/play.html#view", context)
    return render(request, "games/play.html", context)


def _parse_action(post):
    if "give" in post:
        return {"type": "give", "cards": post.getlist("cards")}
    if post.get("concede"):
        return {"type": "concede"}
    try:
        action = json.loads(post.get("action", ""))
    except ValueError:
        return None
    return action if isinstance(action, dict) else None


@login_required
@require_POST
def act(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    if seat is None:
        raise PermissionDenied("Spectators cannot play.")
    action = _parse_action(request.POST)
    key = (request.POST.get("key") or "")[:64] or None
    try:
        if action is None:
            raise services.IllegalDecision("That is not a move.")
        services.apply_decision(
            game.pk, seat, action, GameEvent.Actor.PERSON, user=request.user,
            idempotency_key=key and f"u{request.user.pk}-{key}",
        )
    except services.DecisionRefused as exc:
        if not request.htmx:
            messages.error(request, str(exc))
            return redirect("games:play", game_id=game.pk)
        game.refresh_from_db()
        context = _context(game, seat, request)
        context["error"] = str(exc)
        return render(request, "games/play.html#view", context)
    if request.htmx:
        game.refresh_from_db()
        game.snapshot.refresh_from_db()
        return render(request, "games/play.html#view", _context(game, seat, request))
    return redirect("games:play", game_id=game.pk)
