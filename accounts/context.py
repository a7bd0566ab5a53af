"""Template context every page gets from the accounts app."""

from django.http import HttpRequest

from . import vapid


def web_push(request: HttpRequest) -> dict[str, str]:
    """VAPID_PUBLIC_KEY: the site's Web Push key (base64url of its uncompressed point), which
    templates/base.html hands static/js/push.js; "" when Web Push is off."""
    return {"VAPID_PUBLIC_KEY": vapid.public_key()}
