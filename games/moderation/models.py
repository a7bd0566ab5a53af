"""The players' reports to the moderators.

`Report` is written here, with the rest of moderation, but keeps the lobby app's label, as
it had before moderation was gathered in one package: its table (`lobby_report`), its
migrations, its permission (`lobby.change_report`, which moderators' groups hold) and its
admin address stay what they were, so moving the code moved no data. Django registers it
when `games.models` imports this module.
"""

from django.conf import settings
from django.db import models


class ReportQuerySet(models.QuerySet):
    def open(self):
        """Not yet resolved by a moderator."""
        return self.filter(resolved_at__isnull=True)


class Report(models.Model):
    """A player's report about a table or a player at it, for the moderators (admin).
    Filed through games.moderation.reports only: one open report per reporter, table and
    player (or the table itself), and a limit per reporter."""

    class Reason(models.TextChoices):
        CHEATING = "cheating", "Cheating or collusion"
        ABUSE = "abuse", "Abusive name or behaviour"
        STALLING = "stalling", "Stalling or leaving"
        OTHER = "other", "Something else"

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    # None: the report is about the table itself.
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports_received",
    )
    reason = models.CharField(max_length=10, choices=Reason, default=Reason.OTHER)
    text = models.TextField("what happened", max_length=2000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    note = models.TextField("moderator's note", blank=True)

    objects = ReportQuerySet.as_manager()

    class Meta:
        app_label = "lobby"
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["resolved_at", "-created_at"])]
        constraints = [
            # One open report per reporter, table and player: a second one says nothing the
            # moderators do not already have to read. Two constraints, since NULLs (a report
            # about the table itself) never collide in a unique index.
            models.UniqueConstraint(
                fields=["reporter", "game", "reported"],
                name="report_one_open_per_player",
                condition=models.Q(resolved_at__isnull=True, reported__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["reporter", "game"],
                name="report_one_open_per_table",
                condition=models.Q(resolved_at__isnull=True, reported__isnull=True),
            ),
        ]

    def __str__(self):
        about = self.reported or f"table {self.game_id}"
        return f"Report on {about} by {self.reporter}"
