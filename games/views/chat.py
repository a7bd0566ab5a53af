"""The table chat over HTTP (docs/chat.md): the panel (read by the table page when it opens
and after a reconnect, and a page of its own without JavaScript), and the posts that send a
line, turn the chat off or on, and report a line. The socket sends lines too
(games.consumers); both go through games.actions.chat."""

import uuid

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from games.actions import chat
from games.moderation import chat as chat_moderation
from games.presenters.chat import panel_context


def _refused(request, exc):
    template = "404.html" if exc.status == 404 else "403.html"
    return render(request, template, {"exception": str(exc)}, status=exc.status)


def _panel(request, game, seat, *, status=200, note="", error=""):
    context = panel_context(game, seat, request.user, note=note, error=error)
    if request.htmx:
        return render(request, "games/chat.html#panel", context, status=status)
    return render(request, "games/chat.html", context, status=status)


def _answer(request, game_id, do, note=""):
    """Runs `do(game, seat)`; answers the panel (a 4xx with the reason when refused), or,
    for a plain post that worked, the chat page again."""
    try:
        game, seat = chat.reader(game_id, request.user)
    except chat.ChatRefused as exc:
        return _refused(request, exc)
    try:
        do(game, seat)
    except chat.ChatRefused as exc:
        if exc.status == 404:
            return _refused(request, exc)
        return _panel(request, game, seat, status=exc.status, error=str(exc))
    if not request.htmx:
        return redirect("games:chat", game_id=game.pk)
    return _panel(request, game, seat, note=note)


@login_required
@require_GET
def panel(request, game_id):
    try:
        game, seat = chat.reader(game_id, request.user)
    except chat.ChatRefused as exc:
        return _refused(request, exc)
    return _panel(request, game, seat)


@login_required
@require_POST
def send(request, game_id):
    text = request.POST.get("phrase") or request.POST.get("text", "")
    # A plain form has no key of its own: each post is a new line (a page sent again by the
    # browser asks first).
    key = request.POST.get("key") or uuid.uuid4().hex
    return _answer(request, game_id, lambda game, seat: chat.send(game.pk, request.user, text, key))


@login_required
@require_POST
def off(request, game_id):
    value = request.POST.get("off")
    if value not in ("0", "1"):
        return _answer(request, game_id, lambda game, seat: _bad_toggle())
    return _answer(request, game_id, lambda game, seat: chat.set_off(request.user, value == "1"))


def _bad_toggle():
    raise chat.ChatRefused("Say whether to turn the chat off (1) or on (0).")


@login_required
@require_POST
def report(request, game_id, message_id):
    return _answer(
        request,
        game_id,
        lambda game, seat: chat_moderation.report(game.pk, message_id, request.user),
        note="Reported: a moderator will read the message.",
    )
