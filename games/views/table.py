"""The table screen's views: the page (and its resync) and the form that acts."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from games.actions import access, decisions, moves, rematch
from games.models import Game, GameEvent
from games.presenters.table import render_fragments, table_context


def _reader(request, game_id):
    """The request's reader at the table (games.actions.access): its seat's holder or a
    spectator; PermissionDenied for anyone else, 404 for no such table."""
    game = get_object_or_404(Game.objects.select_related("snapshot"), pk=game_id)
    reader = access.person_at(request.user, game.pk, game=game)
    if reader is None:
        raise PermissionDenied("You are not playing at this table.")
    return reader


@login_required
def play(request, game_id):
    reader = _reader(request, game_id)
    if reader.game.status == Game.Status.OPEN:
        # Nothing is dealt yet: an open table's page is its lobby page, where seats are taken.
        return redirect("lobby:table", game_id=reader.game.pk)
    # An HTMX request is a resync (reconnect or a gap in the pushes): every fragment at once.
    return _table(request, table_context(reader.game, reader.seat))


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
    return moves.clean_action(_form_action(post))


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


@login_required
@require_POST
def act(request, game_id):
    reader = _reader(request, game_id)
    game, seat = reader.game, reader.seat
    if seat is None:
        raise PermissionDenied("Spectators cannot play.")
    if game.status == Game.Status.OPEN:
        # No table page shows a form before the deal, so nothing to render it into either.
        return HttpResponse("This game has not been dealt yet.", status=409,
                            content_type="text/plain")
    action = _parse_action(request.POST)
    raw_key = request.POST.get("key") or None
    key = moves.clean_key(raw_key[:moves.MAX_KEY]) if raw_key else None
    error, status = None, 200
    try:
        if action is None:
            raise decisions.IllegalDecision("That is not a move.")
        if raw_key and key is None:
            raise decisions.IllegalDecision("That form is damaged; reload the page.")
        decisions.apply_decision(
            game.pk, seat, action, GameEvent.Actor.PERSON, user=request.user,
            idempotency_key=key and moves.person_decision_key(request.user.pk, key),
        )
    except decisions.DecisionRefused as exc:
        error = str(exc)
        status = decisions.refusal_status(exc)
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
