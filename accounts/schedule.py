"""When a player is willing to be emailed: their quiet hours and the hour of their daily
email, in their own time zone. Pure: every moment is passed in, nothing is read or
written.
"""

import zoneinfo
from datetime import UTC, datetime, time, timedelta

# A reminder whose deadline falls inside quiet hours goes this long before they begin.
QUIET_LEAD = timedelta(minutes=15)


def zone(user):
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def _at(day, clock, tz):
    # Compared and stored in UTC: two aware datetimes with the same zone compare by their
    # wall clocks, which is wrong across a change of summer time.
    return datetime.combine(day, clock, tz).astimezone(UTC)


def quiet_stretch(user, moment):
    """(start, end) of the player's quiet hours that `moment` falls in, or None (none
    set, or `moment` outside them). Quiet hours may run past midnight (22:00 to 07:00)."""
    start, end = user.quiet_start, user.quiet_end
    if start is None or end is None or start == end:
        return None
    tz = zone(user)
    today = moment.astimezone(tz).date()
    for day in (today - timedelta(days=1), today):
        begins = _at(day, start, tz)
        ends = _at(day if end > start else day + timedelta(days=1), end, tz)
        if begins <= moment < ends:
            return begins, ends
    return None


def next_digest(user, after):
    """The first moment at or after `after` at which the player's daily email goes."""
    tz = zone(user)
    hour = time(user.digest_hour)
    day = after.astimezone(tz).date()
    slot = _at(day, hour, tz)
    return slot if slot >= after else _at(day + timedelta(days=1), hour, tz)


def early_reminder(user, remind_at, due, started):
    """When a reminder due at `remind_at` must go instead, or None when it may go then:
    if `remind_at` falls in quiet hours that the deadline `due` falls in too, the reminder
    goes before those quiet hours begin (QUIET_LEAD), and never before the decision
    `started` (a decision begun inside them is reminded of at once)."""
    stretch = quiet_stretch(user, remind_at)
    if stretch is None or due > stretch[1]:
        return None
    return max(stretch[0] - QUIET_LEAD, started)
