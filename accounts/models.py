import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models


def validate_time_zone(value):
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a known time zone.")


class User(AbstractUser):
    """A player. The profile lives on the user: there is exactly one per user."""

    # The attached address: where mail goes, and what makes an address taken. NULL for an
    # account whose sign-up named an address another account has (NULLs never collide).
    # django-stubs types AbstractUser.email as never NULL; here NULL is meant (above).
    email = models.EmailField(  # type: ignore[assignment]
        "email address", unique=True, null=True, blank=True
    )
    email_confirmed = models.BooleanField(default=False)
    # An address given but not attached until its owner follows the link sent there, so
    # naming an address, taken or free, changes nothing another person could notice.
    pending_email = models.EmailField("address waiting for confirmation", blank=True)
    display_name = models.CharField(max_length=40, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])

    class TurnEmail(models.TextChoices):
        IMMEDIATE = "immediate", "As soon as I am away"
        DIGEST = "digest", "Once a day, all my games in one email"
        NONE = "none", "Never"

    turn_email = models.CharField(
        "email me when it is my turn (turn-by-turn games)",
        max_length=10,
        choices=TurnEmail,
        default=TurnEmail.IMMEDIATE,
        help_text="Only ever when you are away from the site, and at most once a game "
        "until you have been back.",
    )
    digest_hour = models.PositiveSmallIntegerField(
        "send the daily email at",
        default=8,
        choices=[(h, f"{h:02d}:00") for h in range(24)],
        help_text="In your time zone.",
    )
    notify_reminder_email = models.BooleanField(
        "email me a reminder at half time of a deadline", default=True
    )
    # Web Push to the devices the player subscribed (PushSubscription): the same rules as
    # the emails, each channel with its own choices (docs/notifications.md).
    turn_push = models.CharField(
        "notify my devices when it is my turn (turn-by-turn games)",
        max_length=10,
        choices=TurnEmail,
        default=TurnEmail.IMMEDIATE,
        help_text="A notification on each device you turned them on for; only when you are "
        'away, at most once a game until you have been back. "Never" also stops "your '
        'game is starting" from Find a game.',
    )
    notify_reminder_push = models.BooleanField(
        "notify my devices at half time of a deadline", default=True
    )
    # Quiet hours, in the player's time zone; both empty: none. An email waits until they
    # end, except a reminder whose deadline falls inside them (games.actions.outbox).
    quiet_start = models.TimeField("quiet hours from", null=True, blank=True)
    quiet_end = models.TimeField("quiet hours until", null=True, blank=True)
    # The last sign of the player on the site (accounts.activity): a request, a socket, an
    # open page's heartbeat. Emails about a game wait while it is recent.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    banned_at = models.DateTimeField(null=True, blank=True)
    suspended_until = models.DateTimeField(null=True, blank=True)
    # A person's consent to be invited by programs (lobby.services.invite_bot): off by
    # default, so that no program can put a person's name on its tables unasked.
    allow_bot_invitations = models.BooleanField(
        "bot accounts may invite me to tables",
        default=False,
        help_text="A bot account hosting a table may invite you to a seat; the invitation "
        "waits in your lobby until you accept or decline it.",
    )
    is_bot = models.BooleanField(
        "bot account",
        default=False,
        help_text="A bot account: its seats are played by a program through the Bot API "
        "(docs/bot-api.md).",
    )

    # Django's docs extend the abstract user's Meta so; django-stubs does not declare it.
    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]
        # The moderators' account actions (suspend, ban, lift); changing a user's fields is
        # another power (games.moderation.staff).
        permissions = [("ban_user", "Can ban, suspend and lift accounts")]

    @property
    def name(self):
        return self.display_name or self.username

    def __str__(self):
        return self.name

    def clean(self):
        super().clean()
        # AbstractUser.clean turns a missing address into "", which would collide in the
        # unique index with the next account that has none.
        self.email = self.email or None

    @property
    def address_to_confirm(self):
        """The address a confirmation link is (or would be) sent to, or ""."""
        if self.pending_email:
            return self.pending_email
        return self.email if self.email and not self.email_confirmed else ""

    @property
    def address_on_profile(self):
        return self.pending_email or self.email or ""

    # --- Moderation. Restrictions are checked by accounts.backends.PlayerBackend,
    # so a banned or suspended user can neither log in nor keep a session.
    def restriction(self, now=None):
        """'banned', 'suspended' or None."""
        from django.utils import timezone

        if self.banned_at is not None:
            return "banned"
        if self.suspended_until is not None and self.suspended_until > (now or timezone.now()):
            return "suspended"
        return None

    @property
    def is_restricted(self):
        return self.restriction() is not None


class AccountAudit(models.Model):
    """One moderator action on an account: who, when, why. Append-only."""

    class Action(models.TextChoices):
        SUSPEND = "suspend", "Suspended"
        BAN = "ban", "Banned"
        LIFT = "lift", "Restriction lifted"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="audits")
    moderator = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    action = models.CharField(max_length=10, choices=Action)
    reason = models.TextField()
    until = models.DateTimeField(null=True, blank=True)  # end of a suspension
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.get_action_display()}: {self.user} by {self.moderator}"


class ApiToken(models.Model):
    """A bot account's key to the Bot API (accounts.bot_tokens issues, checks and revokes
    them). Only the SHA-256 digest of the token is kept: the raw token is shown once."""

    class Scope(models.TextChoices):
        PLAY = "play", "Play: read this account's seats and make its moves"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)  # the token's first characters, to tell them apart
    scope = models.CharField(max_length=20, choices=Scope, default=Scope.PLAY)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (its `PushSubscription.toJSON()`): where the push
    service takes messages for it, and the keys they are encrypted to (RFC 8291). Sent to
    by games.actions.webpush; dropped when the push service answers 404 or 410."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    # The push service's URL for this browser: unique, so a browser shared by two accounts
    # one after the other belongs to the one that subscribed last.
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's P-256 key, base64url
    auth = models.CharField(max_length=40)  # its 16-byte auth secret, base64url
    # What the profile calls the device: "Chrome on Android", from its User-Agent.
    label = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    # Pushes in a row the service refused for a while (429, 5xx, unreachable).
    failures = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.label or 'a device'} of {self.user}"

    def info(self) -> dict[str, object]:
        """What pywebpush takes: the subscription's JSON."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
