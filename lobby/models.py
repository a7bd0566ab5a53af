from django.conf import settings
from django.db import models


class InvitationQuerySet(models.QuerySet):
    def pending(self):
        """Neither accepted, declined nor cancelled, at a table still open."""
        return self.filter(accepted_at__isnull=True, closed_at__isnull=True, game__status="open")


class Invitation(models.Model):
    """A host's invitation of a bot account (docs/bot-accounts.md) to one empty seat of an
    open table. The seat stays empty until the bot accepts (lobby.services.accept_invitation),
    so a person may still take it meanwhile; the invitation then lapses."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="invitations")
    seat = models.PositiveSmallIntegerField()
    bot = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    # Declined by the bot, cancelled by the host, or lapsed when someone else took the
    # seat (`closed_by` says which).
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(
        max_length=10,
        blank=True,
        choices=[("bot", "Declined"), ("host", "Cancelled"), ("lapsed", "Seat taken by another")],
    )

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            # One open invitation per seat: a second one would race the first to it.
            models.UniqueConstraint(
                fields=["game", "seat"],
                name="invitation_one_open_per_seat",
                condition=models.Q(accepted_at__isnull=True, closed_at__isnull=True),
            ),
        ]

    def __str__(self):
        return f"Invitation of {self.bot} to seat {self.seat} of table {self.game_id}"
