"""The table screen's views: the page (and its resync) and the form that acts."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from games.actions import decisions, rematch
from games.actions.moves import clean_action
from games.models import Game, GameEvent
from games.presenters.table import render_fragments, table_context


def _get_game_for_user(request, game_id):
    """(game, seat number or None for a spectator); PermissionDenied for others."""
    game = get_object_or_404(
        Game.objects.select_related("snapshot").exclude(status=Game.Status.OPEN), pk=game_id
    )
    seat = game.seats.filter(user=request.user).values_list("number", flat=True).first()
    if seat is None and not (game.spectators and not game.private):
        raise PermissionDenied("You are not playing at this table.")
    return game, seat


@login_required
def play(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    # An HTMX request is a resync (reconnect or a gap in the pushes): every fragment at once.
    return _table(request, table_context(game, seat))


def _table(request, context, status=200):
    """The page, or its fragments alone for HTMX; the fragments come from the same renderer
    as a push's."""
    fragments = render_fragments(context, request)
    if request.htmx:
        return HttpResponse(fragments, status=status)
    return render(request, "games/table.html", {**context, "fragments": fragments},
                  status=status)


def _parse_action(post):
    """The engine action a form describes, or None."""
    return clean_action(_form_action(post))


def _form_action(post):
    if "give" in post:
        return {"type": "give", "cards": post.getlist("cards")}
    if "pick" in post:
        cards = post.getlist("cards")
        return {"type": "pass", "card": cards[0]} if len(cards) == 1 else {"type": "pass", "card": None}
    if post.get("concede"):
        return {"type": "concede"}
    if post.get("play"):
        action = {"type": "play", "card": post["play"]}
        if post.get("color"):
            action["color"] = post["color"]
        return action
    simple = post.get("do")
    if simple in ("draw", "pass_turn", "take_penalty"):
        return {"type": simple}
    raw = post.get("action")
    if raw:
        try:
            action = json.loads(raw)
        except (ValueError, RecursionError):  # thousands of nested brackets: no move's shape
            return None
        return action if isinstance(action, dict) else None
    return None


# How a refused move is answered (docs/security.md): a bad move is the sender's fault (400);
# a move the game's state no longer allows is a conflict (409); anything else is refused (403).
REFUSED_STATUS = {
    decisions.IllegalDecision: 400,
    decisions.GameNotActive: 409,
    decisions.StaleDecision: 409,
    decisions.IdempotencyConflict: 409,
    decisions.DecisionNotSaved: 503,  # the database connection was lost: try again
}


@login_required
@require_POST
def act(request, game_id):
    game, seat = _get_game_for_user(request, game_id)
    if seat is None:
        raise PermissionDenied("Spectators cannot play.")
    action = _parse_action(request.POST)
    key = (request.POST.get("key") or "")[:40] or None
    error, status = None, 200
    try:
        if action is None:
            raise decisions.IllegalDecision("That is not a move.")
        if key is not None and not key.isprintable():
            raise decisions.IllegalDecision("That form is damaged; reload the page.")
        decisions.apply_decision(
            game.pk, seat, action, GameEvent.Actor.PERSON, user=request.user,
            idempotency_key=key and f"u{request.user.pk}-{key}",
        )
    except decisions.DecisionRefused as exc:
        error = str(exc)
        status = REFUSED_STATUS.get(type(exc), 403)
    if not request.htmx and error is None:
        return redirect("games:play", game_id=game.pk)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    context = table_context(game, seat)
    if request.htmx:
        # The fragments, with the reason in the status bar; table.js shows a refused
        # answer's fragments too.
        context["error"] = error
        return _table(request, context, status)
    messages.error(request, error)
    return _table(request, context, status)


@login_required
@require_POST
def again(request, game_id):
    """Play again: to the new table with the same seats (docs/table.md)."""
    try:
        new = rematch.play_again(game_id, request.user)
    except Game.DoesNotExist:
        raise Http404("No such table.") from None
    except rematch.RematchRefused as exc:
        return render(request, "403.html", {"exception": str(exc)}, status=exc.status)
    return redirect("lobby:table", game_id=new.pk)
