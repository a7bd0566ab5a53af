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


_UNSUBSCRIBE_SALT = "accounts.unsubscribe"
# The kinds of game email a link can turn off, and the profile field that does it.
UNSUBSCRIBE_KINDS = ("turn", "reminder")


def unsubscribe_token(user, kind):
    """A signed token that turns email `kind` ("turn" or "reminder") off for `user`
    without logging in (views.unsubscribe). It does not expire: an old email's link must
    still work, and all it can do is stop emails."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=_UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token):
    """(user_pk, kind), or raises signing.BadSignature."""
    data = signing.loads(token, salt=_UNSUBSCRIBE_SALT)
    if (
        not isinstance(data, dict)
        or data.get("k") not in UNSUBSCRIBE_KINDS
        or not isinstance(data.get("u"), int)
    ):
        raise signing.BadSignature("not an unsubscribe token")
    return data["u"], data["k"]
