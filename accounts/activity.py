"""When a player was last on the site: what decides whether an email would reach someone
who is not already looking at the table.

A request of a logged-in user (accounts.middleware.SeenMiddleware), a socket opening and
the heartbeat every open page sends over its socket all call `seen`. The column is
written at most once a minute per user (SEEN_WRITE_SECONDS), so an open page costs one
short UPDATE a minute, never one per request. A player counts as present while the last
sign of them is younger than EMAIL_AWAY_MINUTES: a page left open keeps them present,
closing it makes them away a few minutes later.
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.models import User


def seen(user_id, now=None):
    """Records that `user_id` is on the site now (one UPDATE, skipped when the stored time
    is younger than SEEN_WRITE_SECONDS). Returns True if the row was written."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.SEEN_WRITE_SECONDS)
    return bool(
        User.objects.filter(pk=user_id)
        .filter(Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=stale))
        .update(last_seen_at=now)
    )


def away_window():
    return timedelta(minutes=settings.EMAIL_AWAY_MINUTES)


def present_until(user):
    """The moment `user` stops counting as present if nothing more is seen of them, or
    None if they were never seen."""
    if user.last_seen_at is None:
        return None
    return user.last_seen_at + away_window()


def is_present(user, now=None):
    until = present_until(user)
    return until is not None and until > (now or timezone.now())
