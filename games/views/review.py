"""The review box of a finished game's replay (games.actions.review, docs/review.md): ask
for the review of one's own seat, share it, and its status as a fragment the box polls
while the review runs.

Every route answers only the seat's own player, and only about a finished game: before
the end each answers 404 with no word of a review (nothing about a running game's hidden
hands may come out of it, not even that a review could exist)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from games.actions import review
from games.models import Game

BOX = "replay/review_status.html"


def _finished_game(game_id: int) -> Game:
    game = get_object_or_404(Game, pk=game_id)
    if game.status != Game.Status.FINISHED:
        raise Http404
    return game


def _answer(request, game: Game, refused: review.ReviewRefused | None = None) -> HttpResponse:
    """The box again (htmx), or back to the replay (a plain form post)."""
    if refused is not None:
        return render(request, BOX, {"box": None, "refused": str(refused)}, status=403)
    if not request.htmx:
        return redirect(reverse("history:replay", args=[game.pk]) + "#review-box")
    return render(request, BOX, {"box": review.box(game, request.user)})


@login_required
@require_POST
def request_view(request, game_id: int) -> HttpResponse:
    game = _finished_game(game_id)
    try:
        review.request_review(game, request.user, _seat(request.POST.get("seat")))
    except review.ReviewRefused as exc:
        return _answer(request, game, exc)
    return _answer(request, game)


@login_required
@require_POST
def share_view(request, game_id: int) -> HttpResponse:
    """`shared=1` shares, `shared=0` stops: a value, so a request sent twice or late leaves
    what it says rather than turning the switch back."""
    game = _finished_game(game_id)
    if request.POST.get("shared") not in ("0", "1"):
        return HttpResponse("shared must be 0 or 1", status=400, content_type="text/plain")
    try:
        review.share(game, request.user, request.POST["shared"] == "1")
    except review.ReviewRefused as exc:
        return _answer(request, game, exc)
    return _answer(request, game)


@login_required
@require_GET
def status_view(request, game_id: int) -> HttpResponse:
    """The box as it is now, polled every 2 s while the review runs. When a run that the
    page showed (`?running=1`) is done, the page is loaded again to show the review."""
    game = _finished_game(game_id)
    box = review.box(game, request.user)
    if box is None:
        raise Http404
    if request.GET.get("running") == "1" and box.status == "done" and request.htmx:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    return render(request, BOX, {"box": box})


def _seat(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return -1  # no seat: refused as not the reader's own
