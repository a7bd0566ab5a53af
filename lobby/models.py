from django.conf import settings
from django.db import models


class ReportQuerySet(models.QuerySet):
    def open(self):
        """Not yet resolved by a moderator."""
        return self.filter(resolved_at__isnull=True)


class Report(models.Model):
    """A player's report about a table or a player at it, for the moderators (admin).
    Filed through lobby.reports only: one open report per reporter, table and player (or
    the table itself), and a limit per reporter."""

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

    objects = ReportQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["resolved_at", "-created_at"])]
        constraints = [
            # One open report per reporter, table and player: a second one says nothing the
            # moderators do not already have to read. Two constraints, since NULLs (a report
            # about the table itself) never collide in a unique index.
            models.UniqueConstraint(
                fields=["reporter", "game", "reported"], name="report_one_open_per_player",
                condition=models.Q(resolved_at__isnull=True, reported__isnull=False)),
            models.UniqueConstraint(
                fields=["reporter", "game"], name="report_one_open_per_table",
                condition=models.Q(resolved_at__isnull=True, reported__isnull=True)),
        ]

    def __str__(self):
        about = self.reported or f"table {self.game_id}"
        return f"Report on {about} by {self.reporter}"


class InvitationQuerySet(models.QuerySet):
    def pending(self):
        """Neither accepted, declined nor cancelled, at a table still open."""
        return self.filter(accepted_at__isnull=True, closed_at__isnull=True,
                           game__status="open")


class Invitation(models.Model):
    """A host's invitation of a bot account (docs/bot-accounts.md) to one empty seat of an
    open table. The seat stays empty until the bot accepts (lobby.services.accept_invitation),
    so a person may still take it meanwhile; the invitation then lapses."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="invitations")
    seat = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                            related_name="invitations")
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    # Declined by the bot, cancelled by the host, or lapsed when someone else took the
    # seat (`closed_by` says which).
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(max_length=10, blank=True, choices=[
        ("bot", "Declined"), ("host", "Cancelled"), ("lapsed", "Seat taken by another")])

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            # One open invitation per seat: a second one would race the first to it.
            models.UniqueConstraint(
                fields=["game", "seat"], name="invitation_one_open_per_seat",
                condition=models.Q(accepted_at__isnull=True, closed_at__isnull=True)),
        ]

    def __str__(self):
        return f"Invitation of {self.bot} to seat {self.seat} of table {self.game_id}"
