from django.conf import settings
from django.db import models


class Report(models.Model):
    """A player's report about a table or a player at it, for the moderators (admin)."""

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
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="reports_received",
    )
    reason = models.CharField(max_length=10, choices=Reason, default=Reason.OTHER)
    text = models.TextField("what happened", max_length=2000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    note = models.TextField("moderator's note", blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["resolved_at", "-created_at"])]

    def __str__(self):
        about = self.reported or f"table {self.game_id}"
        return f"Report on {about} by {self.reporter}"
