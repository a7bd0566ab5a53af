"""The table screen's views: the page (and its resync) and the form that acts."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from games.actions import access, decisions, rematch, seat_door
from games.models import Game
from games.presenters import chat
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
    if request.htmx:
        return HttpResponse(render_fragments(context, request), status=status)
    fragments = render_fragments(context, request, page=True)
    chat_open = chat.starts_open(context["game"], context["seat"], request.user)
    page = {**context, "fragments": fragments, "chat_open": chat_open}
    return render(request, "games/table.html", page, status=status)


def _form_action(post):
    """The engine action a form's fields describe (its shape is the seat door's to check)."""
    if "give" in post:
        return {"type": "give", "cards": post.getlist("cards")}
    if "pick" in post:
        cards = post.getlist("cards")
        return (
            {"type": "pass", "card": cards[0]}
            if len(cards) == 1
            else {"type": "pass", "card": None}
        )
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
            return json.loads(raw)
        except (ValueError, RecursionError):  # thousands of nested brackets: no move's shape
            return None
    return None


@login_required
@require_POST
def act(request, game_id):
    """A move from the table's form, through the seat door (games.actions.seat_door). The
    page's form always sends its key; a form without one is taken, once per post."""
    reader = _reader(request, game_id)
    error, status = None, 200
    try:
        seat_door.decide(
            reader, _form_action(request.POST), request.POST.get("key") or None, key_needed=False
        )
    except decisions.DecisionRefused as exc:
        error, status = str(exc), seat_door.refusal(exc).status
    if reader.game.status == Game.Status.OPEN:
        # No table page shows a form before the deal, so nothing to render it into either.
        return HttpResponse(error, status=status, content_type="text/plain")
    if not request.htmx and error is None:
        return redirect("games:play", game_id=reader.game.pk)
    game = Game.objects.select_related("snapshot").get(pk=reader.game.pk)
    context = table_context(game, reader.seat)
    if request.htmx:
        # The fragments, with the reason in the status bar; table.js shows a refused
        # answer's fragments too.
        context["error"] = error
    else:
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
