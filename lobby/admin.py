from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from games.actions import moderation
from games.admin import CheckedSelection

from .models import Report


@admin.register(Report)
class ReportAdmin(CheckedSelection, admin.ModelAdmin):
    """Players' reports, newest first, each with a link to its game."""

    list_display = ["created_at", "game_link", "reporter", "reported", "reason", "short_text",
                    "resolved_at"]
    list_filter = [("resolved_at", admin.EmptyFieldListFilter), "reason"]
    search_fields = ["=game__id", "reporter__username", "reported__username", "text"]
    list_select_related = ["game", "reporter", "reported"]
    readonly_fields = ["game_link", "reporter", "reported", "reason", "text", "created_at",
                       "resolved_at", "resolved_by"]
    fields = readonly_fields + ["note"]
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
            reverse("admin:games_game_change", args=[report.game_id]), report.game_id,
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
        self.message_user(request, f"{done} report(s) resolved.",
                          messages.SUCCESS if done else messages.INFO)
