"""History, profile statistics, replays and exports (the report form is moderation's:
games.moderation.views)."""

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import patch_vary_headers
from django.utils.http import urlencode

from accounts import ratelimit
from accounts.models import User
from games.actions import review as review_actions
from games.models import Game, GameReview
from games.presenters import fairness, history, replay, series
from games.presenters import ratings as rating_views
from games.presenters import review as review_views
from games.store.replica import reads_from_replica

PAGE_SIZE = 25
# The profile lists the newest rematch series, each with its games.
SERIES_SHOWN = 10


def _filters(request):
    return {k: request.GET.get(k, "") for k in ("status", "mode", "size", "result")}


def _history_context(request, player):
    filters = _filters(request)
    page = Paginator(history.rows(player, request.user, filters), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    # Only the rows shown are marked: "Series game 2 · 2–0" beside the table.
    series.mark_rows(page.object_list, player, request.user)
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "player": player,
        "is_me": player.pk == request.user.pk,
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        "statuses": list(history.STATUSES),
        "modes": history.MODES,
        "sizes": history.SIZES,
        "results": history.RESULTS,
    }


@login_required
@reads_from_replica
def my_history(request):
    return render(request, "history/list.html", _history_context(request, request.user))


@login_required
@reads_from_replica
def player_history(request, username):
    player = get_object_or_404(User, username=username)
    return render(request, "history/list.html", _history_context(request, player))


@login_required
@reads_from_replica
def profile(request, username):
    player = get_object_or_404(User, username=username)
    context = {
        "player": player,
        "is_me": player.pk == request.user.pk,
        "stats": history.stats(player, request.user),
        "ratings": rating_views.profile_ratings(player),
        "rating_chart": rating_views.history_chart(player),
        "series": series.of_player(player, request.user)[:SERIES_SHOWN],
    }
    return render(request, "history/profile.html", context)


@login_required
@reads_from_replica
def leaderboard(request, bots=False):
    """The rated players of one table size (`?players=4|6|8`, else 4) with at least
    RATING_MIN_GAMES rated games there, best first: people, or with `bots` the bot
    accounts' own ladder (/ratings/bots/, docs/ratings.md)."""
    players = _int(request.GET.get("players"), 4)
    if players not in rating_views.SIZES:
        players = 4
    # "Your rating" is the reader's own pool's: a person's on the people's board only.
    mine = (
        next(
            (r for r in rating_views.profile_ratings(request.user) if r["players"] == players),
            None,
        )
        if request.user.is_bot == bots
        else None
    )
    context = {
        "players": players,
        "bots": bots,
        "sizes": [(n, dict(Game.PLAYERS)[n]) for n in rating_views.SIZES],
        "rows": rating_views.leaderboard(players, bots=bots),
        "min_games": rating_views.min_games(),
        "mine": mine,
    }
    return render(request, "history/leaderboard.html", context)


def _get_replay_game(game_id):
    return get_object_or_404(
        Game.objects.select_related("snapshot").exclude(status=Game.Status.OPEN), pk=game_id
    )


def _int(value, default=None):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@login_required
@reads_from_replica
def replay_view(request, game_id):
    game = _get_replay_game(game_id)
    seat = _int(request.GET.get("seat"))
    all_hands = request.GET.get("all") == "1"
    try:
        perspective = replay.choose_perspective(game, request.user, seat=seat, all_hands=all_hands)
    except replay.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from exc
    rows = replay.rows_of(game)
    if not rows:
        raise Http404("This game has no events yet.")
    default = len(rows) if game.status == Game.Status.ACTIVE else 1
    step = _int(request.GET.get("step"), default)
    seats = replay.seats_of(game)
    names = replay.seat_names(game, seats)
    own = replay.seat_of(game, request.user)
    frame = replay.frame(game, rows, step, perspective, names, reader=own, seats=seats)
    finished = replay.is_finished(game)
    params = (
        {"all": 1}
        if perspective.all_hands
        else ({} if perspective.seat is None else {"seat": perspective.seat})
    )

    def link(to):
        return "?" + urlencode({"step": to, **params})

    step = frame["step"]
    review = box = None
    if finished:
        # Only a finished game has a review (nothing is computed or shown before its end).
        # The box asks for the reader's own seat's review and shows its progress.
        box = review_actions.box(game, request.user)
        review = review_views.context(
            _done_reviews(game, request.user),
            rows,
            step,
            names,
            own,
            perspective.seat,
            link,
            lambda seat: "?" + urlencode({"step": step, "seat": seat}),
        )
    if review is not None:
        frame["moves"] = review_views.mark_moves(frame["moves"], review["marks"])
    context = {
        "game": game,
        "frame": frame,
        "perspective": perspective,
        "perspective_params": params,
        "own_seat": own,
        "finished": finished,
        # Seats this reader may follow: their own, or every seat once the game is over.
        "seat_choices": [
            {"number": s, "name": names.get(s, "")}
            for s in (range(game.players) if finished else [] if own is None else [own])
        ],
        "names": names,
        "links": {
            "first": link(1) if step > 1 else None,
            "prev": link(step - 1) if step > 1 else None,
            "next": link(step + 1) if step < frame["total"] else None,
            "last": link(frame["total"]) if step < frame["total"] else None,
        },
        "permalink": request.build_absolute_uri(request.path + link(step)),
        "speeds": ["0.5", "1", "2", "4"],
        "review": review,
        "box": box,
    }
    template = "replay/replay.html#frame" if request.htmx else "replay/replay.html"
    response = render(request, template, context)
    # The same address answers the page or, asked by the replay's script, the step's
    # fragment alone: a cache must not give one for the other.
    patch_vary_headers(response, ["HX-Request"])
    return response


def _done_reviews(game, user):
    """{seat: GameReview.data} of the finished reviews of `game` that `user` may see."""
    return {
        seat: r.data
        for seat, r in review_actions.visible_reviews(game, user).items()
        if r.status == GameReview.Status.DONE and r.data
    }


@login_required
@reads_from_replica
def export_view(request, game_id):
    game = _get_replay_game(game_id)
    if not replay.may_watch(game, request.user, replay.seat_of(game, request.user)):
        raise PermissionDenied("You may not see this table.")
    try:
        data = replay.export(game)
    except replay.NotAllowed as exc:
        raise Http404(str(exc)) from exc
    response = JsonResponse(data, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="wild-cards-teams-{game.pk}.json"'
    return response


class VerifyForm(forms.Form):
    """A seed and a secret to check a finished game's deals against (GET, no script)."""

    seed = forms.IntegerField(min_value=-(2**63), max_value=2**63 - 1)
    secret = forms.RegexField(
        regex=r"^[0-9a-fA-F]{64}$",
        max_length=64,
        strip=True,
        error_messages={"invalid": "The secret is 64 hexadecimal characters (0-9, a-f)."},
    )

    def clean_secret(self):
        return self.cleaned_data["secret"].lower()


@login_required
@reads_from_replica
def verify_view(request, game_id):
    """The deals' commitments; once the game is finished, its seed and secret and the check
    of every round against them, or against a seed and secret given as `?seed=&secret=`.

    The game's own check is computed once (fairness.own_check, cached); a check with other
    values re-deals the whole game, so a person gets VERIFY_RATE_LIMIT of them per
    VERIFY_RATE_WINDOW seconds (docs/security.md, "Limits")."""
    game = _get_replay_game(game_id)
    if not replay.may_watch(game, request.user, replay.seat_of(game, request.user)):
        raise PermissionDenied("You may not see this table.")
    context = {
        "game": game,
        "revealed": fairness.revealed(game),
        "commitments": [
            {"round": r, "value": c, "short": fairness.short(c)}
            for r, c in fairness.page_commitments(game)
        ],
    }
    status = 200
    if context["revealed"]:
        asked = "seed" in request.GET or "secret" in request.GET
        form = VerifyForm(
            request.GET if asked else None, initial={"seed": game.seed, "secret": game.deal_secret}
        )
        seed, secret, result = game.seed, game.deal_secret, None
        if asked and form.is_valid():
            seed, secret = form.cleaned_data["seed"], form.cleaned_data["secret"]
        if asked and not form.is_valid():
            status = 400
        elif seed == game.seed and secret == game.deal_secret:
            result = fairness.own_check(game)
        else:
            window = settings.VERIFY_RATE_WINDOW
            if ratelimit.hit("verify", request.user.pk, window) > settings.VERIFY_RATE_LIMIT:
                wait = max(1, ratelimit.retry_after("verify", request.user.pk))
                form.add_error(
                    None,
                    f"Too many checks with other values: at most "
                    f"{settings.VERIFY_RATE_LIMIT} in {window} seconds. "
                    f"Try again in {wait} s.",
                )
                status = 429
            else:
                result = fairness.verify_game(game, seed, secret)
        context.update(
            {
                "form": form,
                "result": result,
                "seed": game.seed,
                "secret": game.deal_secret,
                "checked_seed": seed,
                "checked_secret": secret,
                "own_values": seed == game.seed and secret == game.deal_secret,
            }
        )
    return render(request, "history/verify.html", context, status=status)
