"""The admin, fit for moderators: find tables by player and state, read a game's event
log in order, abort a table, hand a seat to a bot or remove a player, hide chat lines and
mute their authors, resolve reports, suspend, ban or lift an account
(games.moderation.actions and .chat).

Each action declares the permission it needs (games.moderation.staff), so staff without it are
neither offered it nor able to post it (CheckedSelection says why, and nothing changes), and
the functions behind the actions check the same permission again. A moderator holding a seat
at a table takes no action there. A game's options are read-only once it is dealt.

Until a game is finished, staff see what a spectator sees (docs/security.md): its log shows
the public events and the moderators' notes, never a hand, a pass or an action, and the
seed, which deals every round to come, is hidden. The private log and the seed are shown
by "reveal", which asks why, records who, when and why in the admin's log of the game
(LogEntry, the game's History page) and shows them in its own answer only; a moderator
seated at the table cannot reveal it.
"""

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, OuterRef, Q, Subquery
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from accounts.admin import PlayerAdmin
from accounts.admin_checks import CheckedSelection, Record
from accounts.admin_search import BoundedSearch
from accounts.models import User
from games import engine
from games.actions.chat import ChatRefused
from games.models import ChatMessage, ChatModeration, ChatMute, Game, GameEvent, Seat
from games.moderation import actions as moderation
from games.moderation import chat, staff
from games.moderation.models import Report
from games.presenters import describe, replay
from games.store import seats


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Recorded on the game's event log, with your name.",
    )


def run_with_reason(modeladmin, request, queryset, *, title, submit, do, form_class=ReasonForm):
    """An admin action with an intermediate page asking why (and any other field).

    `do(obj, form.cleaned_data)` runs once per selected object; a ModerationError is
    shown as a warning and the others still run.
    """
    form = form_class(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        done = 0
        for obj in queryset:
            try:
                do(obj, form.cleaned_data)
                done += 1
            except moderation.ModerationError as exc:
                modeladmin.message_user(request, f"{obj}: {exc}", messages.WARNING)
        if done:
            modeladmin.message_user(request, f"{title}: done for {done}.", messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "submit": submit,
        "objects": list(queryset),
        "form": form,
        "action": request.POST.get("action", ""),
        "opts": modeladmin.model._meta,
        "checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
    }
    return render(request, "admin/moderation_action.html", context)


REVEAL_MESSAGE = "Revealed the private log and the seed. Reason: "


def whole_log_shown(game):
    """Once a game is finished every hand is public (docs/history.md); before, its secrets
    are shown to staff only through a recorded reveal."""
    return replay.is_finished(game)


def staff_events(events):
    """A spectator's share of an event row, with the moderators' notes (staff-only, and
    never about a card)."""
    return [
        e for e in events if engine.visible_to(e, None) or e.get("visible_to") == replay.STAFF_ONLY
    ]


class RevealForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Recorded with your name in the game's history in the admin.",
    )


def record_reveal(request, game, reason):
    """One LogEntry: the admin's own record of who did what to which object, and when.
    Not a GameEvent: a look changes nothing at the table, so the players' log, their
    pushes and the replay's steps stay as they are."""
    return LogEntry.objects.log_actions(
        user_id=request.user.pk,
        queryset=[game],
        action_flag=CHANGE,
        change_message=REVEAL_MESSAGE + reason,
        single_object=True,
    )


def reveals_of(game):
    return (
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Game),
            object_id=str(game.pk),
            change_message__startswith=REVEAL_MESSAGE,
        )
        .select_related("user")
        .order_by("action_time")
    )


def seat_shown(number):
    """A seat as the site names it everywhere (the table, its log, the lobby): from 1, where
    the game stores seats from 0."""
    return "" if number is None else f"Seat {number + 1}"


def seats_shown(numbers):
    return ", ".join(seat_shown(n) for n in numbers) if numbers else "-"


def per_seat(entries):
    """(seat, entry) pairs of a seat's state (games.store.seats reads them) as one line per
    seat, numbered from 1."""
    entries = [(n, value) for n, value in entries if value]
    if not entries:
        return "-"
    return format_html_join(
        "",
        "<div>{}: {}</div>",
        (
            (
                seat_shown(n),
                "; ".join(f"{k} {v}" for k, v in value.items())
                if isinstance(value, dict)
                else value,
            )
            for n, value in entries
        ),
    )


def raw(value):
    """A stored action or event as the admin has always printed it, for the collapsed
    detail under the lines that say it in words."""
    return str(value)


def event_lines(events, names, players):
    """The move log's lines for `events`, as a reader without a seat reads them
    (describe.describe, as the replay and the export call it). The caller decides which
    events a moderator may see; a line names no card its event does not."""
    return [describe.describe(event, None, names, players) for event in events]


def _when(moment):
    """A short local date and time, for the lists' narrow columns."""
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}" if moment else "-"


def _raw_detail(value):
    """The stored JSON, collapsed under the lines that say it in words."""
    return format_html(
        '<details class="raw"><summary>Stored data</summary><code>{}</code></details>',
        raw(value),
    )


def _live(game):
    """A table still waiting or being played: the only ones moderators change."""
    return game.status in (Game.Status.OPEN, Game.Status.ACTIVE)


def _seated(request, game_id):
    return Seat.objects.filter(game_id=game_id, user=request.user).exists()


class SeatInline(admin.TabularInline):
    """The table's seats, read-only: the lobby seats people and the moderation actions
    (the game's Seats page) hand a seat to a bot or empty it, each with its event."""

    model = Seat
    extra = 0
    fields = ["seat", "user", "bot_level"]
    readonly_fields = ["seat", "user", "bot_level"]
    can_delete = False
    # Django's tabular inline heads each row with the seat's str (numbered from 0) and
    # primes its script with an "Add another" link; this one is a plain table.
    template = "admin/games/game/seats_inline.html"

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("number")

    @admin.display(description="Seat", ordering="number")
    def seat(self, seat):
        return seat_shown(seat.number)


class SeatActionForm(forms.Form):
    ACTIONS = [
        ("bot", "Replace the player by a bot"),
        ("remove", "Remove the player from the table"),
    ]
    what = forms.ChoiceField(choices=ACTIONS, label="Action")
    seat = forms.TypedChoiceField(coerce=int, label="Seat")
    level = forms.ChoiceField(
        choices=Seat.BotLevel.choices, initial=Seat.BotLevel.NORMAL, label="Bot level"
    )
    reason = ReasonForm.base_fields["reason"]

    def __init__(self, *args, game, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = [
            (s.number, f"{seat_shown(s.number)}: {s.user}")
            for s in game.seats.select_related("user")
            if s.user_id
        ]


class OptionsForm(forms.ModelForm):
    """The change form of a table not yet dealt: its options and why they change."""

    reason = ReasonForm.base_fields["reason"]

    def clean(self):
        data = super().clean()
        if self.instance.pk is not None:
            # Locked until the admin's transaction saves the change (moderation.change_options
            # in save_model): a table dealt meanwhile keeps the options it was dealt with.
            status = (
                Game.objects.select_for_update()
                .filter(pk=self.instance.pk)
                .values_list("status", flat=True)
                .first()
            )
            if status != Game.Status.OPEN:
                raise ValidationError("This table has been dealt: its options are fixed now.")
        return data


@admin.register(Game)
class GameAdmin(BoundedSearch, CheckedSelection, admin.ModelAdmin):
    # What a moderator looks for in a list of tables, narrow enough for a laptop's screen
    # beside the filters: the flags are on each table's page, the links one a line.
    list_display = [
        "table",
        "status",
        "players",
        "pace",
        "seated",
        "started",
        "last_move",
        "open_reports",
        "links",
    ]
    list_display_links = ["table"]
    list_filter = ["status", "players", "pace", "private", "spectators"]
    search_fields = [
        "=id",
        "host__username",
        "seats__user__username",
        "seats__user__display_name",
        "seats__user__email",
    ]
    inlines = [SeatInline]
    # The seed is shown by `seed_shown`: the form field would show it at any time; the deal
    # secret never shows here (it is revealed with the seed once the game is over:
    # docs/fair-deals.md), and neither may be edited.
    # The seat-keyed columns (turn, waiting_on, bot_seats, clocks, timeouts, stand_ins,
    # presence) are shown by *_shown below, with seats from 1 as the site numbers them.
    exclude = [
        "seed",
        "deal_secret",
        "turn",
        "waiting_on",
        "bot_seats",
        "clocks",
        "timeouts",
        "stand_ins",
        "presence",
    ]
    # What the game's own code keeps: a hand-edited clock, presence entry or stand-in would
    # disagree with the event log and the sweep; the invite token is the private table's key;
    # the seat count and the host are the lobby's (they decide which seats exist and who
    # starts), and the rematch link is Play again's. The other options change only while the
    # table is open (moderation.OPTIONS), each change an event in its log; once it is dealt,
    # nothing on this page changes (has_change_permission).
    readonly_fields = [
        "status",
        "seed_shown",
        "last_seq",
        "round",
        "turn_shown",
        "waiting_on_shown",
        "bot_seats_shown",
        "deadline_at",
        "bot_due_at",
        "wake_at",
        "countdown_at",
        "clocks_shown",
        "timeouts_shown",
        "stand_ins_shown",
        "presence_shown",
        "invite_token",
        "started_at",
        "finished_at",
        "links",
        "host",
        "players",
        "rematch_of",
    ]
    form = OptionsForm
    actions = ["abort_tables"]
    list_per_page = 50

    class Media:
        css = {"all": ["css/admin.css"]}

    def has_add_permission(self, request):
        # Tables are created in the lobby, where their seats and seed are made.
        return False

    def has_delete_permission(self, request, obj=None):
        # A game is its event log: aborting ends it and keeps the record (abort_tables).
        return False

    def has_change_permission(self, request, obj=None):
        # Once dealt, the engine's state, the clocks and the rating were built from the
        # options: a running game is changed only by the moderation actions, which its log
        # records, and a finished or aborted game is a record, shown and never edited. A
        # moderator seated at a table changes nothing there.
        if obj is not None and (obj.status != Game.Status.OPEN or _seated(request, obj.pk)):
            return False
        return super().has_change_permission(request, obj)

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is None or not self.has_change_permission(request, obj):
            fields = [f for f in fields if f != "reason"]
        return fields

    def save_model(self, request, obj, form, change):
        """Only through moderation.change_options: the changed options alone, under the
        game's lock (taken by the form's clean), with an event in the table's log."""
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name != "reason"}
        moderation.change_options(obj.pk, request.user, changes, form.cleaned_data["reason"])

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "rated" in form.base_fields and obj is not None and not obj.rated:
            # Rated is the host's to choose (moderation.change_options).
            form.base_fields["rated"].disabled = True
            form.base_fields["rated"].help_text = "Only its host makes a table rated."
        return form

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related("seats__user")
            .annotate(
                open_report_count=Count(
                    "reports", filter=Q(reports__resolved_at__isnull=True), distinct=True
                ),
                # One index lookup per table (game, seq), not a join of its whole log.
                last_move_at=Subquery(
                    GameEvent.objects.filter(game=OuterRef("pk"))
                    .order_by("-seq")
                    .values("created_at")[:1]
                ),
            )
        )

    @admin.display(description="Table", ordering="pk")
    def table(self, game):
        return str(game)

    @admin.display(description="Seats")
    def seated(self, game):
        # One name a line, in seat order, named as the table's log names them.
        rows = sorted(game.seats.all(), key=lambda s: s.number)
        names = describe.seat_names(rows)
        return format_html_join(
            "", '<span class="seat-name">{}</span>', ((names[s.number],) for s in rows)
        )

    @admin.display(description="Started", ordering="started_at")
    def started(self, game):
        return _when(game.started_at)

    @admin.display(description="Last move", ordering="last_move_at")
    def last_move(self, game):
        return _when(getattr(game, "last_move_at", None))

    @admin.display(description="Turn")
    def turn_shown(self, game):
        if game.turn is None:
            return "-"
        names = describe.seat_names(game.seats.select_related("user"))
        return f"{seat_shown(game.turn)} ({names.get(game.turn, '')})"

    @admin.display(description="Waiting on")
    def waiting_on_shown(self, game):
        return seats_shown(seats.waiting(game))

    @admin.display(description="Bot seats")
    def bot_seats_shown(self, game):
        return seats_shown([n for n in range(game.players) if seats.bot_moves(game, n)])

    @admin.display(description="Clocks")
    def clocks_shown(self, game):
        return per_seat(seats.clocks(game))

    @admin.display(description="Time-outs")
    def timeouts_shown(self, game):
        return per_seat((n, seats.timeouts_of(game, n)) for n in range(game.players))

    @admin.display(description="Stand-ins")
    def stand_ins_shown(self, game):
        return per_seat((n, seats.stand_in(game, n)) for n in range(game.players))

    @admin.display(description="Presence")
    def presence_shown(self, game):
        return per_seat(
            (n, {k: v for k, v in seats.presence(game, n).items() if v})
            for n in range(game.players)
        )

    @admin.display(description="Reports", ordering="open_report_count")
    def open_reports(self, game):
        return getattr(game, "open_report_count", None)

    @admin.display(description="Seed")
    def seed_shown(self, game):
        if game.pk is None or whole_log_shown(game):
            return game.seed
        return format_html(
            "Hidden until the game is finished: it deals every round to come. "
            '<a href="{}">Event log</a> (its reveal shows the seed, and records why).',
            reverse("admin:games_game_log", args=[game.pk]),
        )

    @admin.display(description="Moderation")
    def links(self, game):
        if game.pk is None:
            return ""
        items = [(reverse("admin:games_game_log", args=[game.pk]), "Event log")]
        if _live(game):
            items.append((reverse("admin:games_game_moderate", args=[game.pk]), "Seats"))
        items.append(
            (reverse("admin:lobby_report_changelist") + f"?game__id__exact={game.pk}", "Reports")
        )
        if game.status != Game.Status.OPEN:
            items.append((reverse("history:replay", args=[game.pk]), "Replay"))
        return format_html_join(" · ", '<a href="{}">{}</a>', items)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<int:game_id>/log/", wrap(self.log_view), name="games_game_log"),
            path("<int:game_id>/log/reveal/", wrap(self.reveal_view), name="games_game_reveal"),
            path("<int:game_id>/moderate/", wrap(self.moderate_view), name="games_game_moderate"),
            *super().get_urls(),
        ]

    def _game_for(self, request, game_id, *, to_change=False):
        """The game, for a moderator who may read it (its log) or, `to_change`, act on it:
        change permission on games, and only at a table still waiting or being played (a
        seated moderator is refused by the actions themselves, with the reason)."""
        game = get_object_or_404(Game, pk=game_id)
        if not super().has_change_permission(request) or (to_change and not _live(game)):
            raise PermissionDenied
        return game

    def log_view(self, request, game_id):
        """Every event row of the game in order, with who acted, when, and what it caused:
        a spectator's share of each until the game is finished."""
        game = self._game_for(request, game_id)
        whole = whole_log_shown(game)
        may_reveal = not whole and not _seated(request, game.pk)
        return self._render_log(
            request, game, whole=whole, form=RevealForm() if may_reveal else None
        )

    def reveal_view(self, request, game_id):
        """The private log and the seed of a game not yet finished, for this answer only,
        once the reason is given and recorded."""
        game = self._game_for(request, game_id)
        if whole_log_shown(game):
            return redirect("admin:games_game_log", game_id=game.pk)
        if _seated(request, game.pk):
            # Reason or not, the hands of a game one plays in are never one's to see.
            raise PermissionDenied(
                "You hold a seat at this table: another moderator must reveal its log."
            )
        form = RevealForm(request.POST if request.method == "POST" else None)
        if not form.is_valid():
            return self._render_log(request, game, whole=False, form=form)
        record_reveal(request, game, form.cleaned_data["reason"])
        return self._render_log(request, game, whole=True, revealed=True)

    def _render_log(self, request, game, *, whole, form=None, revealed=False):
        rows = list(GameEvent.objects.filter(game=game).select_related("user").order_by("seq"))
        names = describe.seat_names(game.seats.select_related("user"))
        for row in rows:
            row.shown_events = row.events if whole else staff_events(row.events)
            row.shown_action = row.action if whole else None
            # The lines say what the shown events say, no more: the same events, in words.
            row.lines = event_lines(row.shown_events, names, game.players)
            row.seat_shown = seat_shown(row.seat)
            row.raw_events = [raw(e) for e in row.shown_events]
            row.raw_action = raw(row.shown_action) if row.shown_action is not None else ""
        context = {
            **self.admin_site.each_context(request),
            "title": f"Event log of {game}",
            "game": game,
            "rows": rows,
            "whole": whole,
            "revealed": revealed,
            "form": form,
            "reveals": reveals_of(game),
            "after_the_end": staff.after_the_end(game),
            "opts": self.model._meta,
            "original": game,
        }
        return render(request, "admin/games/game/event_log.html", context)

    def moderate_view(self, request, game_id):
        """Hands a seated player's seat to a bot, or removes the player from the table."""
        game = self._game_for(request, game_id, to_change=True)
        form = SeatActionForm(request.POST or None, game=game)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                if data["what"] == "bot":
                    moderation.replace_with_bot(
                        game.pk, data["seat"], request.user, data["reason"], data["level"]
                    )
                else:
                    seat = game.seats.select_related("user").get(number=data["seat"])
                    moderation.remove_user(game.pk, seat.user, request.user, data["reason"])
            except moderation.ModerationError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                self.message_user(request, "Done; the event log records it.", messages.SUCCESS)
                return redirect("admin:games_game_log", game_id=game.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Seats of {game}",
            "game": game,
            "form": form,
            "opts": self.model._meta,
            "original": game,
        }
        return render(request, "admin/games/game/moderate.html", context)

    @admin.action(description="Abort selected tables (no result)", permissions=["change"])
    def abort_tables(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Abort tables",
            submit="Abort these tables",
            do=lambda game, data: moderation.abort_table(game.pk, request.user, data["reason"]),
        )


class SeatFilter(admin.SimpleListFilter):
    """An event's seat, labelled as the site numbers seats (from 1)."""

    title = "seat"
    parameter_name = "seat"

    def lookups(self, request, model_admin):
        return [(str(n), seat_shown(n)) for n in range(max(size for size, _ in Game.PLAYERS))]

    def queryset(self, request, queryset):
        # Only the offered values: anything else in the address filters nothing.
        if self.value() in {str(n) for n, _ in self.lookup_choices}:
            return queryset.filter(seat=int(self.value()))
        return queryset


@admin.register(GameEvent)
class GameEventAdmin(BoundedSearch, Record, CheckedSelection, admin.ModelAdmin):
    """Read-only: events are append-only and written by games.actions (decisions and moderation)."""

    list_display = ["game", "seq", "kind", "seat_shown", "actor", "user", "created_at"]
    list_filter = ["actor", "kind", SeatFilter]
    search_fields = ["=game__id", "user__username"]
    list_select_related = ["game", "user"]
    # A row's own page, like the game's log, shows its action and private events only once
    # the game is finished; the reveal on the game's log is the way to them before.
    fields = readonly_fields = (
        "game",
        "seq",
        "kind",
        "seat_shown",
        "actor",
        "user",
        "created_at",
        "action_shown",
        "events_shown",
    )

    class Media:
        css = {"all": ["css/admin.css"]}

    @admin.display(description="Seat", ordering="seat")
    def seat_shown(self, event):
        return seat_shown(event.seat) or "-"

    @admin.display(description="Action")
    def action_shown(self, event):
        if whole_log_shown(event.game):
            return _raw_detail(event.action)
        return "Hidden until the game is finished (the game's event log can reveal it)."

    @admin.display(description="Events")
    def events_shown(self, event):
        game = event.game
        shown = event.events if whole_log_shown(game) else staff_events(event.events)
        names = describe.seat_names(game.seats.select_related("user"))
        return format_html(
            "{}{}",
            format_html_join(
                "", "<p>{}</p>", ((line,) for line in event_lines(shown, names, game.players))
            ),
            _raw_detail(shown) if shown else "",
        )


def _chat_action(call):
    """A chat action for run_with_reason, which shows a ModerationError as a warning."""

    def do(obj, data):
        try:
            call(obj, data["reason"])
        except ChatRefused as exc:
            raise moderation.ModerationError(str(exc)) from None

    return do


@admin.register(ChatMessage)
class ChatMessageAdmin(BoundedSearch, Record, CheckedSelection, admin.ModelAdmin):
    """The table chat (docs/chat.md): read, hide or show a line, mute its author. Each
    action asks why and is written to the chat's moderation log (ChatModeration)."""

    list_display = ["created_at", "game", "room", "user", "text", "hidden_at"]
    list_filter = ["room", ("hidden_at", admin.EmptyFieldListFilter)]
    search_fields = ["=id", "=game__id", "user__username", "text"]
    list_select_related = ["game", "user"]
    fields = readonly_fields = (
        "game",
        "room",
        "user",
        "text",
        "created_at",
        "hidden_at",
        "hidden_by",
    )
    actions = ["hide_messages", "show_messages", "mute_authors"]

    def has_moderate_chat_permission(self, request):
        return request.user.has_perm(staff.CHAT)

    @admin.action(description="Hide selected messages from everyone", permissions=["moderate_chat"])
    def hide_messages(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Hide chat messages",
            submit="Hide these messages",
            do=_chat_action(lambda m, reason: chat.hide(m, request.user, reason)),
        )

    @admin.action(description="Show selected messages again", permissions=["moderate_chat"])
    def show_messages(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Show chat messages",
            submit="Show these messages",
            do=_chat_action(lambda m, reason: chat.hide(m, request.user, reason, show=True)),
        )

    @admin.action(
        description="Mute the authors of selected messages in chat", permissions=["moderate_chat"]
    )
    def mute_authors(self, request, queryset):
        authors = {m.user_id: m.user for m in queryset.select_related("user")}
        return run_with_reason(
            self,
            request,
            queryset,
            title="Mute in chat",
            submit="Mute these authors",
            do=_chat_action(
                lambda m, reason: (
                    m.user_id in authors
                    and chat.mute(authors.pop(m.user_id), request.user, reason, game_id=m.game_id)
                )
            ),
        )


@admin.register(ChatMute)
class ChatMuteAdmin(BoundedSearch, Record, CheckedSelection, admin.ModelAdmin):
    list_display = ["user", "moderator", "created_at", "reason"]
    search_fields = ["user__username"]
    fields = readonly_fields = ("user", "moderator", "created_at", "reason")
    actions = ["unmute"]

    def has_moderate_chat_permission(self, request):
        return request.user.has_perm(staff.CHAT)

    @admin.action(description="Lift the mute of selected people", permissions=["moderate_chat"])
    def unmute(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Unmute in chat",
            submit="Lift these mutes",
            do=_chat_action(lambda mute, reason: chat.unmute(mute.user, request.user, reason)),
        )


@admin.register(ChatModeration)
class ChatModerationAdmin(BoundedSearch, Record, CheckedSelection, admin.ModelAdmin):
    """The chat's moderation log: read-only, append-only."""

    list_display = ["created_at", "action", "user", "moderator", "message", "reason"]
    list_filter = ["action"]
    search_fields = ["user__username", "moderator__username"]
    list_select_related = ["user", "moderator", "message"]
    fields = readonly_fields = ("created_at", "action", "user", "moderator", "message", "reason")


@admin.register(Report)
class ReportAdmin(BoundedSearch, CheckedSelection, admin.ModelAdmin):
    """Players' reports, newest first, each with a link to its game."""

    list_display = [
        "created_at",
        "game_link",
        "reporter",
        "reported",
        "reason",
        "short_text",
        "resolved_at",
    ]
    list_filter = [("resolved_at", admin.EmptyFieldListFilter), "reason"]
    search_fields = ["=game__id", "reporter__username", "reported__username", "text"]
    list_select_related = ["game", "reporter", "reported"]
    readonly_fields = (
        "game_link",
        "reporter",
        "reported",
        "reason",
        "text",
        "created_at",
        "resolved_at",
        "resolved_by",
    )
    fields = (*readonly_fields, "note")
    actions = ["mark_resolved"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        # A moderator who played at the table does not judge reports about it.
        if obj is not None and obj.game.seats.filter(user=request.user).exists():
            return False
        return super().has_change_permission(request, obj)

    @admin.display(description="Game", ordering="game")
    def game_link(self, report):
        return format_html(
            '<a href="{}">Table {}</a> (<a href="{}">event log</a>)',
            reverse("admin:games_game_change", args=[report.game_id]),
            report.game_id,
            reverse("admin:games_game_log", args=[report.game_id]),
        )

    @admin.display(description="What happened")
    def short_text(self, report):
        return report.text[:80]

    @admin.action(description="Mark selected reports as resolved", permissions=["change"])
    def mark_resolved(self, request, queryset):
        done = 0
        for report in queryset.filter(resolved_at__isnull=True):
            try:
                moderation.resolve_report(report.pk, request.user)
                done += 1
            except moderation.ModerationError as exc:
                self.message_user(request, f"{report}: {exc}", messages.WARNING)
        self.message_user(
            request, f"{done} report(s) resolved.", messages.SUCCESS if done else messages.INFO
        )


class SuspendForm(ReasonForm):
    days = forms.IntegerField(min_value=1, max_value=3650, initial=7)


# The accounts' admin with its moderation: the accounts app registers PlayerAdmin (it
# imports nothing of the games app), and this registers it again with the actions that
# suspend, ban and lift, which reach the account's tables (games.moderation.actions).
admin.site.unregister(User)


@admin.register(User)
class ModeratedPlayerAdmin(PlayerAdmin):
    actions = ["suspend_accounts", "ban_accounts", "lift_restrictions"]

    def has_ban_permission(self, request):
        return request.user.has_perm(staff.ACCOUNTS)

    @admin.action(description="Suspend selected accounts", permissions=["ban"])
    def suspend_accounts(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Suspend accounts",
            submit="Suspend",
            form_class=SuspendForm,
            do=lambda user, data: moderation.suspend(
                user, request.user, data["reason"], timezone.now() + timedelta(days=data["days"])
            ),
        )

    @admin.action(
        description="Ban selected accounts (their running seats go to bots)", permissions=["ban"]
    )
    def ban_accounts(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Ban accounts",
            submit="Ban",
            do=lambda user, data: moderation.ban(user, request.user, data["reason"]),
        )

    @admin.action(
        description="Lift the ban or suspension of selected accounts", permissions=["ban"]
    )
    def lift_restrictions(self, request, queryset):
        return run_with_reason(
            self,
            request,
            queryset,
            title="Lift restrictions",
            submit="Lift",
            do=lambda user, data: moderation.lift(user, request.user, data["reason"]),
        )
