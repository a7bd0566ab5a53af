import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models


def validate_time_zone(value):
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a known time zone.")


class User(AbstractUser):
    """A player. The profile lives on the user: there is exactly one per user."""

    email = models.EmailField("email address", unique=True)
    email_confirmed = models.BooleanField(default=False)
    display_name = models.CharField(max_length=40, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])
    notify_turn_email = models.BooleanField(
        "email me when it is my turn (turn-by-turn games)", default=True
    )
    notify_reminder_email = models.BooleanField(
        "email me a reminder at half time of a deadline", default=True
    )

    @property
    def name(self):
        return self.display_name or self.username

    def __str__(self):
        return self.name
