"""One function per kind of email; templates live under templates/emails/."""

import logging

from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from .tokens import make_email_token

log = logging.getLogger(__name__)


def _send(kind, to, context):
    subject = render_to_string(f"emails/{kind}_subject.txt", context).strip()
    text = render_to_string(f"emails/{kind}_body.txt", context)
    html = render_to_string(f"emails/{kind}_body.html", context)
    message = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [to])
    message.attach_alternative(html, "text/html")
    _deliver(message, kind, context["user"].pk)


def _deliver(message, kind, user, *, raise_errors=True):
    """Sends `message` and logs one line naming its user (the address stays out of the
    logs); an SMTP error is logged in one line too, and raised unless told otherwise (the
    request's error log has its traceback)."""
    try:
        message.send()
    except Exception as exc:
        log.error("email %s to user %s failed: %s", kind, user, exc, extra={"user": user})
        if raise_errors:
            raise
        return
    log.info("email %s sent to user %s", kind, user, extra={"user": user})


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, its email logged like every other. As in Django, an SMTP error
    does not change the page's answer (which must not tell whether the address has an
    account)."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        subject = "".join(render_to_string(subject_template_name, context).splitlines())
        text = render_to_string(email_template_name, context)
        message = EmailMultiAlternatives(subject, text, from_email, [to_email])
        if html_email_template_name is not None:
            message.attach_alternative(
                render_to_string(html_email_template_name, context), "text/html"
            )
        _deliver(message, "password_reset", context["user"].pk, raise_errors=False)


def send_confirmation(user, address=None):
    """The link that attaches `address` (the user's pending one, or their own) once followed."""
    address = address or user.email
    path = reverse("accounts:confirm_email", args=[make_email_token(user, address)])
    _send("confirm", address, {"user": user, "link": settings.SITE_URL + path})


def send_address_in_use(owner, during):
    """Tells an address's owner that someone named it for another account (`during` is
    "signup" or "change"). The visitor was answered as if the address were free, so this
    is the only place the attempt shows; it carries no link that does anything."""
    _send(
        "address_in_use",
        owner.email,
        {
            "user": owner,
            "during": during,
            "login": settings.SITE_URL + reverse("accounts:login"),
            "reset": settings.SITE_URL + reverse("accounts:password_reset"),
        },
    )
