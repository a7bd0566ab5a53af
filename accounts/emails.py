"""One function per kind of email; templates live under templates/emails/."""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from .tokens import make_email_token


def _send(kind, to, context):
    subject = render_to_string(f"emails/{kind}_subject.txt", context).strip()
    text = render_to_string(f"emails/{kind}_body.txt", context)
    html = render_to_string(f"emails/{kind}_body.html", context)
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [to])
    message.attach_alternative(html, "text/html")
    message.send()


def send_confirmation(user, address=None):
    """The link that attaches `address` (the user's pending one, or their own) once followed."""
    address = address or user.email
    path = reverse("accounts:confirm_email", args=[make_email_token(user, address)])
    _send("confirm", address, {"user": user, "link": settings.SITE_URL + path})


def send_address_in_use(owner, during):
    """Tells an address's owner that someone named it for another account (`during` is
    "signup" or "change"). The visitor was answered as if the address were free, so this
    is the only place the attempt shows; it carries no link that does anything."""
    _send("address_in_use", owner.email, {
        "user": owner,
        "during": during,
        "login": settings.SITE_URL + reverse("accounts:login"),
        "reset": settings.SITE_URL + reverse("accounts:password_reset"),
    })
