"""Django's admin reads this module of each app: the games app's admin is the moderators',
and lives with the rest of moderation (games.moderation.admin)."""

from games.moderation import admin  # noqa: F401
