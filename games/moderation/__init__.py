"""Moderation, in one place: players' reports, the moderators' actions on tables, accounts
and the chat, who may take each, and the admin they are taken from (docs/security.md,
"Moderators' permissions and their own tables").

- `models`: `Report` (the lobby's table and permission, kept where they were).
- `reports`: the one way a report is filed (the report form, a chat line's Report button).
- `staff`: who may moderate what, and where a moderation is written (a table's log, or
  the admin's record of a game that is over).
- `actions`: abort a table, hand a seat to a bot, remove a player, change a table's
  options, resolve a report, suspend, ban, lift.
- `chat`: a chat line reported, hidden or shown; a person muted or unmuted.
- `views`: the report form.
- `admin`: the admin the moderators use (games, events, chat, reports, and the
  moderation actions of the accounts' admin); `games.admin`, which Django's admin looks
  for, only imports it.

Its modules sit in the games app's layers (pyproject.toml): `admin` and `views` with the
entry points, `actions` and `chat` over `staff` and `reports`, over `games.actions`;
`models` under `games.models`. The accounts and the lobby import nothing of it.
"""
