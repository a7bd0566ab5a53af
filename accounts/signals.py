"""What the accounts tell the apps built on them, which they do not import: the accounts
are the lowest app (pyproject.toml, the apps' contract), so an account-level change that
other apps act on is sent here and received there (their AppConfig.ready connects it)."""

from django.dispatch import Signal

# A person saved their email choices (the profile page): `user_id`. The games app looks
# again at the "your turn" emails waiting for them (games.actions.outbox).
email_choices_changed = Signal()
