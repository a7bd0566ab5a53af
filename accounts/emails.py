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


def send_confirmation(user):
    path = reverse("accounts:confirm_email", args=[make_email_token(user)])
    _send("confirm", user.email, {"user": user, "link": settings.SITE_URL + path})
