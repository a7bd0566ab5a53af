from datetime import timedelta

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.utils import timezone

from games.actions import moderation, staff
from games.admin import CheckedSelection, ReasonForm, run_with_reason

from .models import AccountAudit, ApiToken, User


class SuspendForm(ReasonForm):
    days = forms.IntegerField(min_value=1, max_value=3650, initial=7)


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
    """Who restricted this account, when and why (append-only: written by games.actions.moderation)."""

    model = AccountAudit
    fk_name = "user"
    extra = 0
    fields = ["created_at", "action", "until", "moderator", "reason"]
    readonly_fields = fields
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
    fields = ["name", "prefix", "scope", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(User)
class PlayerAdmin(CheckedSelection, UserAdmin):
    list_display = ["username", "display_name", "email", "is_bot", "is_staff",
                    "restriction_label", "date_joined"]
    list_filter = [RestrictionFilter, "is_bot", *UserAdmin.list_filter]
    search_fields = ["username", "display_name", "email"]
    inlines = [AuditInline, ApiTokenInline]
    actions = ["suspend_accounts", "ban_accounts", "lift_restrictions"]
    fieldsets = UserAdmin.fieldsets + (
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

    def has_ban_permission(self, request):
        return request.user.has_perm(staff.ACCOUNTS)

    @admin.action(description="Suspend selected accounts", permissions=["ban"])
    def suspend_accounts(self, request, queryset):
        return run_with_reason(
            self, request, queryset, title="Suspend accounts", submit="Suspend",
            form_class=SuspendForm,
            do=lambda user, data: moderation.suspend(
                user, request.user, data["reason"], timezone.now() + timedelta(days=data["days"])
            ),
        )

    @admin.action(description="Ban selected accounts (their running seats go to bots)",
                  permissions=["ban"])
    def ban_accounts(self, request, queryset):
        return run_with_reason(
            self, request, queryset, title="Ban accounts", submit="Ban",
            do=lambda user, data: moderation.ban(user, request.user, data["reason"]),
        )

    @admin.action(description="Lift the ban or suspension of selected accounts",
                  permissions=["ban"])
    def lift_restrictions(self, request, queryset):
        return run_with_reason(
            self, request, queryset, title="Lift restrictions", submit="Lift",
            do=lambda user, data: moderation.lift(user, request.user, data["reason"]),
        )


@admin.register(AccountAudit)
class AccountAuditAdmin(CheckedSelection, admin.ModelAdmin):
    list_display = ["created_at", "user", "action", "until", "moderator", "reason"]
    list_filter = ["action"]
    search_fields = ["user__username", "moderator__username", "reason"]
    list_select_related = ["user", "moderator"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
