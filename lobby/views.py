from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from games.actions import rematch
from games.models import Game, Seat

from . import matchmaking, services
from .forms import BotForm, FindForm, InviteBotForm, TableForm
from .models import Search

INVITES_KEY = "invited_tables"


def _can_see(request, game):
    if not game.private:
        return True
    user = request.user
    # A Play again table's held seats' people see it too: it is theirs to join or decline.
    # So do the people a bot account invited to a seat, to look before they accept.
    if user.is_authenticated and (
        game.host_id == user.pk
        or game.seats.filter(Q(user=user) | Q(held_for=user)).exists()
        or game.invitations.pending().filter(bot=user).exists()
    ):
        return True
    return game.pk in request.session.get(INVITES_KEY, [])


def _get_table_for_user(request, game_id):
    """The table, or 404 when it is private and the user was not invited."""
    game = get_object_or_404(Game, pk=game_id)
    if not _can_see(request, game):
        raise Http404("No such table")
    return game


def _link(game):
    if game.status == Game.Status.OPEN:
        return reverse("lobby:table", args=[game.pk])
    return reverse("games:play", args=[game.pk])


def watch(request):
    """Running public tables that allow watching; watching itself needs an account
    (docs/security.md), which the table page asks for."""
    games = (
        Game.objects.active()
        .filter(spectators=True, private=False)
        .prefetch_related("seats__user")
        .order_by("-started_at")[:50]
    )
    context = {"games": games}
    if request.htmx:
        return render(request, "lobby/watch.html#games", context)
    return render(request, "lobby/watch.html", context)


def index(request):
    tables = (
        Game.objects.listed()
        .select_related("host")
        .prefetch_related("seats__user")
        .order_by("-created_at")[:50]
    )
    # The user's tables still waiting for players; their running games are in the panel
    # above the list ("Your games", games.context.my_games: docs/my-games.md).
    mine = []
    if request.user.is_authenticated:
        # ...and the Play again tables holding a seat for them (docs/table.md).
        held = set(
            Seat.objects.held().filter(held_for=request.user).values_list("game_id", flat=True)
        )
        mine = [
            {"game": game, "link": _link(game), "held": game.pk in held}
            for game in Game.objects.open_tables()
            .filter(Q(seats__user=request.user) | Q(pk__in=held))
            .distinct()
            .order_by("-created_at")
        ]
    # Bot accounts' invitations to a person who allows them (User.allow_bot_invitations),
    # to accept or decline here (docs/bot-accounts.md, "Tables made by bots").
    invitations = (
        services.bot_invitations(request.user)
        if request.user.is_authenticated and not request.user.is_bot
        else []
    )
    context = {
        "tables": tables,
        "mine": mine,
        "invitations": invitations,
        # Find a game: how many are looking, per pace and table size (docs/matchmaking.md).
        "looking": matchmaking.lobby_counts(),
    }
    if request.htmx:
        return render(request, "lobby/index.html#tables", context)
    return render(request, "lobby/index.html", context)


@login_required
def create(request):
    if request.method == "POST":
        form = TableForm(request.POST)
        if form.is_valid():
            try:
                game = services.create_table(request.user, **form.table_options())
            except services.LobbyError as exc:
                form.add_error("rated", str(exc))
                return render(request, "lobby/create.html", {"form": form}, status=exc.status)
            return redirect("lobby:table", game_id=game.pk)
        return render(request, "lobby/create.html", {"form": form}, status=400)
    form = TableForm()
    return render(request, "lobby/create.html", {"form": form})


def _table_context(request, game, seats):
    # Shown on the seat, "Invited: <bot>" (docs/bot-accounts.md).
    invited = services.table_invitations(game) if game.status == Game.Status.OPEN else {}
    now = timezone.now()
    for seat in seats:
        seat.invited = invited.get(seat.number) if seat.is_empty else None
        # Play again: the person this empty seat waits for, or None.
        seat.held = seat.held_for if seat.waits_for(now) else None
    return {
        "game": game,
        "seats": seats,
        "my_seat": next(
            (s for s in seats if request.user.is_authenticated and s.user_id == request.user.pk),
            None,
        ),
        "is_host": request.user.is_authenticated and game.host_id == request.user.pk,
        "full": all(not s.is_empty for s in seats),
        "bot_form": BotForm(),
        "invite_url": request.build_absolute_uri(reverse("lobby:invite", args=[game.invite_token])),
    }


def table(request, game_id):
    game = _get_table_for_user(request, game_id)
    seats = list(game.seats.select_related("user", "held_for"))
    context = _table_context(request, game, seats)
    if game.status == Game.Status.ACTIVE and (context["my_seat"] is not None or game.spectators):
        url = reverse("games:play", args=[game.pk])
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = url
            return response
        return redirect(url)
    template = "lobby/table.html#seats" if request.htmx else "lobby/table.html"
    return render(request, template, context)


def _refuse(request, game_id, exc):
    """A refused seat action: the table page with the reason, answered with a 4xx
    (docs/security.md), so that nothing looks like it worked."""
    messages.error(request, str(exc))
    game = Game.objects.get(pk=game_id)
    context = _table_context(request, game, list(game.seats.select_related("user", "held_for")))
    return render(request, "lobby/table.html", context, status=exc.status)


def invite(request, token):
    game = get_object_or_404(Game, invite_token=token)
    invited = request.session.get(INVITES_KEY, [])
    if game.pk not in invited:
        request.session[INVITES_KEY] = invited + [game.pk]
    return redirect("lobby:table", game_id=game.pk)


def _run(request, game_id, action, *args, success=None, success_url=None):
    _get_table_for_user(request, game_id)
    try:
        action(game_id, request.user, *args)
    except services.LobbyError as exc:
        return _refuse(request, game_id, exc)
    if success:
        messages.success(request, success)
    return redirect(success_url or reverse("lobby:table", args=[game_id]))


@login_required
@require_POST
def take(request, game_id, number):
    return _run(request, game_id, services.take_seat, number)


@login_required
@require_POST
def leave(request, game_id):
    game = _get_table_for_user(request, game_id)
    if game.host_id == request.user.pk:
        return _run(
            request,
            game_id,
            services.leave_table,
            success="You closed the table.",
            success_url=reverse("lobby:index"),
        )
    return _run(
        request,
        game_id,
        services.leave_table,
        success="You left the table.",
        success_url=reverse("lobby:index"),
    )


@login_required
@require_POST
def decline(request, game_id):
    """A player of the game before gives up the seat Play again holds for them at this
    table (docs/table.md): it is free for anyone at once."""
    _get_table_for_user(request, game_id)
    try:
        rematch.decline(game_id, request.user)
    except rematch.RematchRefused as exc:
        return _refuse(request, game_id, exc)
    messages.success(request, "You declined: your seat at the new table is free for anyone.")
    return redirect("lobby:index")


@login_required
@require_POST
def bot(request, game_id, number):
    form = BotForm(request.POST)
    level = form.cleaned_data["level"] if form.is_valid() else ""
    return _run(request, game_id, services.add_bot, number, level)


@login_required
@require_POST
def remove(request, game_id, number):
    return _run(request, game_id, services.remove_from_seat, number)


@login_required
@require_POST
def invite_bot(request, game_id, number):
    """The host invites a bot account by its username to an empty seat (docs/bot-accounts.md)."""
    form = InviteBotForm(request.POST)
    username = form.cleaned_data["username"] if form.is_valid() else ""
    return _run(
        request,
        game_id,
        services.invite_bot,
        number,
        username,
        success=f"Invited {username} to seat {number + 1}. The seat stays free until "
        "its program accepts.",
    )


@login_required
@require_POST
def cancel_invitation(request, game_id, number):
    return _run(
        request, game_id, services.cancel_invitation, number, success="Invitation cancelled."
    )


def _answer_invitation(request, invitation_id, action):
    """A person's answer to a bot account's invitation; someone else's is a missing one."""
    try:
        return action(invitation_id, request.user)
    except services.LobbyError as exc:
        if exc.status == 404:
            raise Http404(str(exc)) from None
        messages.error(request, str(exc))
        response = index(request)
        response.status_code = exc.status
        return response


@login_required
@require_POST
def accept_invitation(request, invitation_id):
    answer = _answer_invitation(request, invitation_id, services.accept_invitation)
    if isinstance(answer, HttpResponse):
        return answer
    messages.success(request, f"You took seat {answer.number + 1}.")
    return redirect("lobby:table", game_id=answer.game_id)


@login_required
@require_POST
def decline_invitation(request, invitation_id):
    answer = _answer_invitation(request, invitation_id, services.decline_invitation)
    if isinstance(answer, HttpResponse):
        return answer
    messages.success(request, "You declined the invitation.")
    return redirect("lobby:index")


@login_required
@require_POST
def start(request, game_id):
    _get_table_for_user(request, game_id)
    try:
        services.start_table(game_id, request.user)
    except services.LobbyError as exc:
        return _refuse(request, game_id, exc)
    return redirect("games:play", game_id=game_id)


@login_required
@require_POST
def quick(request):
    """One click from the home page to a game against three bots (quick ones if asked)."""
    quick = request.POST.get("bots") == Game.BotSpeed.QUICK
    game = services.quick_game(
        request.user, bot_speed=Game.BotSpeed.QUICK if quick else Game.BotSpeed.STEADY
    )
    return redirect("games:play", game_id=game.pk)


# --- Find a game (docs/matchmaking.md) ------------------------------------------------


def _open_search(user):
    return Search.objects.open().filter(user=user).first()


@login_required
def find(request):
    """The find form; a submit starts a search (replacing an open one) and shows its wait."""
    current = _open_search(request.user)
    if request.method != "POST":
        return render(request, "lobby/find.html", {"form": FindForm(), "current": current})
    form = FindForm(request.POST)
    if form.is_valid():
        try:
            search = matchmaking.start_search(request.user, **form.search_options())
        except services.LobbyError as exc:
            form.add_error(None, str(exc))
            status = exc.status
        else:
            return redirect("lobby:find_wait", search_id=search.pk)
    else:
        status = 400
    context = {"form": form, "current": current}
    return render(request, "lobby/find.html", context, status=status)


def _own_search(request, search_id):
    return get_object_or_404(Search, pk=search_id, user=request.user)


def _found_url(search):
    return reverse("games:play", args=[search.game_id]) if search.game_id else None


def _wait_context(request, search):
    half = matchmaking.paired_with(search) if search.status == Search.Status.OPEN else None
    partner = half.user if half is not None else None
    return {
        "search": search,
        "partner": partner,
        "count": matchmaking.looking_for_same(search),
        "waited": matchmaking.waited_label(search),
        "friend_url": request.build_absolute_uri(reverse("lobby:find_with", args=[search.token])),
        "heartbeat": settings.SEARCH_HEARTBEAT_SECONDS,
    }


@login_required
def find_wait(request, search_id):
    """The waiting page: how many look for the same, the friend's link, a cancel. Its
    site socket keeps the search alive (static/js/site.js) and hears when it is found;
    its status part is polled as well, in case the socket is not there."""
    search = _own_search(request, search_id)
    if search.status == Search.Status.MATCHED and search.game_id:
        return redirect(_found_url(search))
    if search.status == Search.Status.OPEN:
        # Opening the page says "here" too, before its socket is up.
        matchmaking.page_here(request.user.pk, search.pk)
    return render(request, "lobby/find_wait.html", _wait_context(request, search))


@login_required
def find_status(request, search_id):
    search = _own_search(request, search_id)
    if search.status == Search.Status.MATCHED and search.game_id:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = _found_url(search)
        return response
    return render(request, "lobby/find_wait.html#status", _wait_context(request, search))


@login_required
@require_POST
def find_cancel(request, search_id):
    search = matchmaking.cancel_search(request.user, search_id)
    if search is None:
        raise Http404("No such search")
    if search.status == Search.Status.MATCHED and search.game_id:
        messages.info(request, "Your game was found before the cancel: here is your table.")
        return redirect(_found_url(search))
    messages.success(request, "You stopped looking for a game.")
    return redirect("lobby:find")


@login_required
def find_with(request, token):
    """A friend's link: join their search as a pair (always seated as partners). A GET
    shows what the search is; the POST joins."""
    host = Search.objects.filter(token=token).select_related("user").first()
    if host is None:
        raise Http404("No such search")
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        try:
            search = matchmaking.join_search(request.user, token)
        except services.LobbyError as exc:
            messages.error(request, str(exc))
            context = {"host": host, "paired": matchmaking.paired_with(host)}
            return render(request, "lobby/find_with.html", context, status=exc.status)
        return redirect("lobby:find_wait", search_id=search.pk)
    context = {"host": host, "paired": matchmaking.paired_with(host)}
    return render(request, "lobby/find_with.html", context)
