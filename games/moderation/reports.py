"""Players' reports to the moderators: the one way a report is filed, for the report form
(games.moderation.views) and a chat line's Report button (games.moderation.chat).

A reporter has at most one open report about each player at a table, and one about the
table itself: a second is refused and stores nothing (the moderators read the first, and
the chat's log holds every line). And at most REPORT_RATE_LIMIT reports in any
REPORT_RATE_WINDOW seconds, so that one person cannot bury the moderators' list.
"""

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts import ratelimit

from .models import Report

RATE_SCOPE = "report"


class ReportRefused(Exception):
    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


def _already(game, reported):
    about = f"{reported.name} at table {game.pk}" if reported else f"table {game.pk}"
    return (
        f"You have already reported {about}: a moderator will read that report. "
        f"Nothing new was sent."
    )


def _span(seconds):
    if seconds >= 3600:
        hours = round(seconds / 3600)
        return "1 hour" if hours == 1 else f"{hours} hours"
    minutes = max(1, round(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def file(game, reporter, *, reported=None, reason=Report.Reason.OTHER, text=""):
    """Stores `reporter`'s report about `reported` (None: the table itself) at `game` and
    returns it; raises ReportRefused (409: an open report about the same; 429: too many)."""
    if Report.objects.open().filter(game=game, reporter=reporter, reported=reported).exists():
        raise ReportRefused(_already(game, reported), 409)
    limit, window = settings.REPORT_RATE_LIMIT, settings.REPORT_RATE_WINDOW
    if ratelimit.hit(RATE_SCOPE, reporter.pk, window) > limit:
        wait = max(1, ratelimit.retry_after(RATE_SCOPE, reporter.pk))
        raise ReportRefused(
            f"Too many reports: at most {limit} in {_span(window)}. "
            f"Try again in {_span(wait)}. Nothing was sent.",
            429,
        )
    try:
        with transaction.atomic():
            return Report.objects.create(
                game=game, reporter=reporter, reported=reported, reason=reason, text=text
            )
    except IntegrityError:  # the same report, sent twice at once: the other one stored it
        raise ReportRefused(_already(game, reported), 409) from None
