from django.contrib import admin

from .models import Game, GameEvent, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["pk", "host", "status", "players", "pace", "last_seq", "created_at"]
    list_filter = ["status", "players", "pace", "private"]
    inlines = [SeatInline]
    readonly_fields = ["seed", "last_seq", "round", "turn", "waiting_on", "bot_seats",
                       "deadline_at", "bot_due_at", "started_at", "finished_at"]


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin):
    """Read-only: events are append-only and written by games.services alone."""

    list_display = ["game", "seq", "kind", "seat", "actor", "created_at"]
    list_filter = ["actor", "kind"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
