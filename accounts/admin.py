from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (
        (
            "Profile",
            {
                "fields": (
                    "display_name",
                    "time_zone",
                    "email_confirmed",
                    "notify_turn_email",
                    "notify_reminder_email",
                )
            },
        ),
    )
