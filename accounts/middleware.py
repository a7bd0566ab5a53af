import zoneinfo

from django.utils import timezone

from accounts import activity


class UserTimezoneMiddleware:
    """Shows times in the signed-in user's own time zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            try:
                timezone.activate(zoneinfo.ZoneInfo(user.time_zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)


class SeenMiddleware:
    """Records that a logged-in user is on the site (accounts.activity.seen: at most one
    write a minute), so that no "your turn" email goes to someone who is here."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        # Not the browser fetching the service worker by itself (the `Service-Worker:
        # script` header, config/webapp.py): it does so after showing a push too, when
        # the player is away, and would count them present and hold back the next one.
        by_itself = request.headers.get("Service-Worker") == "script"
        if user is not None and user.is_authenticated and not by_itself:
            activity.seen(user.pk)
        return self.get_response(request)
