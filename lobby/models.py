import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


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


def new_search_token():
    return secrets.token_urlsafe(16)


class SearchQuerySet(models.QuerySet):
    def open(self):
        return self.filter(status=Search.Status.OPEN)

    def alive(self, now):
        """Open searches still held: a turn-by-turn one until it lapses, a real-time one
        while its page says "here" (docs/matchmaking.md)."""
        fresh = now - timedelta(seconds=settings.SEARCH_ALIVE_SECONDS)
        hidden = now - timedelta(seconds=settings.SEARCH_HIDDEN_ALIVE_SECONDS)
        return self.open().filter(
            models.Q(pace=Search.TURN_BASED)
            | models.Q(seen_at__gte=fresh)
            | models.Q(hidden=True, seen_at__gte=hidden)
        )


class Search(models.Model):
    """One person looking for a game (Find a game, docs/matchmaking.md). The matcher
    (lobby.matchmaking) seats people whose searches agree at one new table and marks
    their searches matched, with the game, in the same transaction. A real-time search
    lives while its find page says "here" over the site socket; a turn-by-turn one until
    it is cancelled, found, or SEARCH_TURN_BASED_HOURS pass."""

    class Status(models.TextChoices):
        OPEN = "open", "Looking"
        MATCHED = "matched", "Found"
        CANCELLED = "cancelled", "Cancelled"
        EXPIRED = "expired", "Lapsed"

    ANY = 0
    PLAYERS = [(4, "4 players"), (6, "6 players"), (8, "8 players"), (ANY, "Any size")]
    REALTIME, TURN_BASED = "realtime", "turn"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="searches"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)
    players = models.PositiveSmallIntegerField(choices=PLAYERS, default=4)
    pace = models.CharField(
        max_length=10, choices=[(REALTIME, "Real time"), (TURN_BASED, "Turn by turn")]
    )
    # The timer of the pace: a move's seconds in real time, a turn's hours turn by turn
    # (the same choices as a table's, games.models.Game); the other one is 0.
    move_seconds = models.PositiveSmallIntegerField(default=0)
    turn_hours = models.PositiveSmallIntegerField(default=0)
    rated = models.BooleanField(default=False)
    # Site bots fill the empty seats once the search has waited this long; None: never.
    bots_after = models.PositiveSmallIntegerField(null=True, blank=True)
    # The shown rating at the searched size (4 players for any size), read when the search
    # is made: rated searches are grouped by it.
    rating = models.IntegerField(default=1000)
    # Two people who asked to play together (the friend's link): always seated as
    # partners. Both searches point at each other.
    partner = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    token = models.CharField(max_length=32, unique=True, default=new_search_token)
    created_at = models.DateTimeField(default=timezone.now)
    # The find page's last "here", and whether the page was in the background then.
    seen_at = models.DateTimeField(default=timezone.now)
    hidden = models.BooleanField(default=False)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)

    objects = SearchQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            # One open search per person: two would let the matcher seat them twice.
            models.UniqueConstraint(
                fields=["user"],
                name="search_one_open_per_user",
                condition=models.Q(status="open"),
            ),
        ]
        indexes = [models.Index(fields=["status", "pace"], name="search_status_pace")]

    def __str__(self):
        return f"Search {self.pk} of {self.user} ({self.status})"

    @property
    def timer(self):
        return self.move_seconds if self.pace == self.REALTIME else self.turn_hours

    def timer_label(self):
        if self.pace == self.REALTIME:
            return f"real time, {self.move_seconds} s a move"
        return f"turn by turn, {self.turn_hours} hours a turn"

    def size_label(self):
        return "any size" if self.players == self.ANY else f"{self.players} players"
