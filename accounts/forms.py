import zoneinfo

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm, UsernameField

from .models import User

TIME_ZONE_CHOICES = [(tz, tz) for tz in sorted(zoneinfo.available_timezones())]


def clean_address(value):
    return value.strip().lower()


class SignUpForm(UserCreationForm):
    # Not a model field of the form: the model's unique check would tell anyone that an
    # address is taken. The view decides what to do with a taken one (docs/security.md).
    email = forms.EmailField(label="Email address", required=True)
    field_order = ["username", "email", "display_name"]

    class Meta:
        model = User
        fields = ("username", "display_name")

    def clean_email(self):
        email = clean_address(self.cleaned_data["email"])
        # On the instance before the password validators run, so that a password like
        # the address is still refused.
        self.instance.email = email
        return email


class LoginForm(AuthenticationForm):
    pass


# The log-in form's own username field, with the length AuthenticationForm gives it.
_LOGIN_NAME = UsernameField(max_length=User._meta.get_field(User.USERNAME_FIELD).max_length)


def login_name(raw):
    """The name a log-in is counted under: as the form hands it to authentication
    (stripped, NFKC), in lower case so that "HANK" counts for hank. Lower case, not
    casefold(), matches the database's case-insensitive comparison, which sign-up uses to
    refuse a name differing from another only in case (casefold would make "straße" and
    "strasse", two accounts, share a count)."""
    return _LOGIN_NAME.to_python(raw).lower()


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=TIME_ZONE_CHOICES)
    # Not a model field of the form, for the same reason as at sign-up; a new address is
    # only attached once confirmed (accounts.views.profile).
    email = forms.EmailField(label="Email address")
    field_order = ["display_name", "email"]

    class Meta:
        model = User
        fields = ("display_name", "time_zone", "notify_turn_email", "notify_reminder_email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial.setdefault("email", self.instance.address_on_profile)

    def clean_email(self):
        return clean_address(self.cleaned_data["email"])
