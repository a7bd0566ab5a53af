from django.conf import settings
from django.core import signing

_SALT = "accounts.email-confirmation"


def make_email_token(user, address=None):
    # Binding the address means a token stops working once the email changes, and a link
    # sent to a pending address can attach that address and no other.
    address = address or user.email
    return signing.dumps({"u": user.pk, "e": address}, salt=_SALT, compress=True)


def read_email_token(token):
    """Returns (user_pk, email) or raises signing.BadSignature (expired included)."""
    data = signing.loads(token, salt=_SALT, max_age=settings.EMAIL_CONFIRM_MAX_AGE)
    return data["u"], data["e"]
