"""My games: the running games a player sits at, those waiting on them first
(games.presenters.mine, docs/my-games.md)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from games.presenters import mine


@login_required
def my_games(request):
    """The page; with htmx, the list alone (the page and the home page's panel refresh
    themselves with it when the site socket says a game changed: static/js/site.js)."""
    if request.htmx and request.GET.get("panel"):
        return render(request, "games/mine.html#panel", {"panel": mine.panel(request.user)})
    context = {"rows": mine.rows(request.user)}
    if request.htmx:
        return render(request, "games/mine.html#list", context)
    return render(request, "games/mine.html", context)
