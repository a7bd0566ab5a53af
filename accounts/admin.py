"""The accounts' admin. Its moderation (suspend, ban, lift) is added by the moderators' admin,
games.moderation.admin, which registers PlayerAdmin with those actions in its place: the
accounts import nothing of the games app."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.utils import timezone

from accounts.admin_search import BoundedSearch

from .admin_checks import CheckedSelection, Record
from .models import AccountAudit, ApiToken, User


class RestrictionFilter(admin.SimpleListFilter):
    title = "restriction"
    parameter_name = "restriction"

    def lookups(self, request, model_admin):
        return [("banned", "Banned"), ("suspended", "Suspended"), ("none", "None")]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "banned":
            return queryset.filter(banned_at__isnull=False)
        if self.value() == "suspended":
            return queryset.filter(banned_at__isnull=True, suspended_until__gt=now)
        if self.value() == "none":
            return queryset.filter(banned_at__isnull=True).exclude(suspended_until__gt=now)
        return queryset


class AuditInline(admin.TabularInline):
    """Who restricted this account, when and why (append-only: written by
    games.moderation.actions)."""

    model = AccountAudit
    fk_name = "user"
    extra = 0
    fields = readonly_fields = ("created_at", "action", "until", "moderator", "reason")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ApiTokenInline(admin.TabularInline):
    """A bot account's API tokens, read-only: the owner creates and revokes them on the
    account's page, and the digest is no use to anyone here."""

    model = ApiToken
    extra = 0
    fields = readonly_fields = (
        "name",
        "prefix",
        "scope",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(User)
class PlayerAdmin(BoundedSearch, CheckedSelection, UserAdmin):
    list_display = [
        "username",
        "display_name",
        "email",
        "is_bot",
        "is_staff",
        "restriction_label",
        "date_joined",
    ]
    list_filter = [RestrictionFilter, "is_bot", *UserAdmin.list_filter]
    search_fields = ["username", "display_name", "email"]
    inlines = [AuditInline, ApiTokenInline]
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        (
            "Profile",
            {
                "fields": (
                    "display_name",
                    "time_zone",
                    "email_confirmed",
                    "turn_email",
                    "digest_hour",
                    "notify_reminder_email",
                    "quiet_start",
                    "quiet_end",
                    "last_seen_at",
                    "is_bot",
                )
            },
        ),
        # Changed only through the actions, so that each change has an audit row.
        ("Moderation", {"fields": ("banned_at", "suspended_until")}),
    )
    # is_bot is the owner's own irreversible choice (accounts.bot_views), not a moderator's.
    readonly_fields = ["banned_at", "suspended_until", "last_seen_at", "is_bot"]

    @admin.display(description="Restriction")
    def restriction_label(self, user):
        state = user.restriction()
        if state == "suspended":
            return f"suspended until {timezone.localtime(user.suspended_until):%Y-%m-%d %H:%M}"
        return state or ""


@admin.register(AccountAudit)
class AccountAuditAdmin(BoundedSearch, Record, CheckedSelection, admin.ModelAdmin):
    list_display = ["created_at", "user", "action", "until", "moderator", "reason"]
    list_filter = ["action"]
    search_fields = ["user__username", "moderator__username", "reason"]
    list_select_related = ["user", "moderator"]
