import zoneinfo

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm, UsernameField
from django.db import models
from django.utils.html import format_html, format_html_join

from . import text
from .models import User

TIME_ZONE_CHOICES = [(tz, tz) for tz in sorted(zoneinfo.available_timezones())]
TIME_ZONE_ERROR = "Choose a time zone from the list, such as Europe/Paris or America/New_York."


def clean_address(value):
    return value.strip().lower()


def clean_display_name(form):
    name = form.cleaned_data.get("display_name", "")
    # Others read it on every plate and line of the log: no text direction overrides.
    text.validate(name, "A display name")
    return name


class SignUpForm(UserCreationForm):
    # Not a model field of the form: the model's unique check would tell anyone that an
    # address is taken. The view decides what to do with a taken one (docs/security.md).
    email = forms.EmailField(label="Email address", required=True)
    # Filled in by the page from the browser's own setting (static/js/timezone.js); a
    # browser without JavaScript, or with a zone Python does not know, gets UTC.
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput)
    field_order = ["username", "email", "display_name"]

    class Meta:
        model = User
        fields = ("username", "display_name", "time_zone")

    clean_display_name = clean_display_name

    def clean_time_zone(self):
        zone = self.cleaned_data.get("time_zone") or ""
        return zone if zone in zoneinfo.available_timezones() else "UTC"

    def clean_email(self):
        email = clean_address(self.cleaned_data["email"])
        # On the instance before the password validators run, so that a password like
        # the address is still refused.
        self.instance.email = email
        return email


class LoginForm(AuthenticationForm):
    pass


# The log-in form's own username field, with the length AuthenticationForm gives it.
_USERNAME = User._meta.get_field(User.USERNAME_FIELD)
assert isinstance(_USERNAME, models.CharField)
_LOGIN_NAME = UsernameField(max_length=_USERNAME.max_length)


def login_name(raw):
    """The name a log-in is counted under: as the form hands it to authentication
    (stripped, NFKC), in lower case so that "HANK" counts for hank. Lower case, not
    casefold(), matches the database's case-insensitive comparison, which sign-up uses to
    refuse a name differing from another only in case (casefold would make "straße" and
    "strasse", two accounts, share a count)."""
    return _LOGIN_NAME.to_python(raw).lower()


class ZoneSearch(forms.TextInput):
    """A text box with the zone names as suggestions (a <datalist>): the browser searches
    them as one types, "york" finding America/New_York."""

    def render(self, name, value, attrs=None, renderer=None):
        box = super().render(name, value, {**(attrs or {}), "list": "time-zones"}, renderer)
        options = format_html_join(
            "",
            '<option value="{}">{}</option>',
            ((zone, zone.replace("_", " ")) for zone, _ in TIME_ZONE_CHOICES),
        )
        return format_html('{}<datalist id="time-zones">{}</datalist>', box, options)


class ProfileForm(forms.ModelForm):
    # A text box searching the zone names (a <datalist>, templates/accounts/profile.html)
    # rather than a list of some 600 of them; still only a known zone is accepted.
    time_zone = forms.ChoiceField(
        choices=TIME_ZONE_CHOICES,
        error_messages={"invalid_choice": TIME_ZONE_ERROR},
        widget=ZoneSearch(attrs={"autocomplete": "off", "spellcheck": "false"}),
        help_text="Type to search, e.g. Paris or New York.",
    )
    # Not a model field of the form, for the same reason as at sign-up; a new address is
    # only attached once confirmed (accounts.views.profile).
    email = forms.EmailField(label="Email address")
    field_order = ["display_name", "email"]
    # The profile page shows the fields in these groups (templates/accounts/profile.html).
    GROUPS = (
        ("You", ("display_name", "email", "time_zone")),
        (
            "Emails about your games",
            ("turn_email", "digest_hour", "notify_reminder_email", "quiet_start", "quiet_end"),
        ),
        ("Notifications on your devices", ("turn_push", "notify_reminder_push")),
        ("Tables", ("allow_bot_invitations",)),
    )
    # Web Push's choices (docs/notifications.md): kept as they are when a post carries
    # none of them (a form from before they were on the page, a client that never sends
    # them), which the always-checked `turn_push` radio tells apart from a cleared box.
    PUSH_FIELDS = ("turn_push", "notify_reminder_push")

    class Meta:
        model = User
        fields = (
            "display_name",
            "time_zone",
            "turn_email",
            "digest_hour",
            "notify_reminder_email",
            "turn_push",
            "notify_reminder_push",
            "quiet_start",
            "quiet_end",
            "allow_bot_invitations",
        )
        widgets = {
            "turn_email": forms.RadioSelect,
            "turn_push": forms.RadioSelect,
            "quiet_start": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "quiet_end": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }
        labels = {
            "turn_email": "Email me when it is my turn",
            "notify_reminder_email": "Remind me by email when half my time is gone",
            "turn_push": "Notify my devices when it is my turn",
            "notify_reminder_push": "Notify my devices when half my time is gone",
            "allow_bot_invitations": "Bot accounts may invite me to tables",
        }
        help_texts = {
            "quiet_start": "Leave both empty for none. Emails wait until your quiet hours "
            "end, except a reminder whose deadline falls inside them: that "
            "one comes before they begin.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial.setdefault("email", self.instance.address_on_profile)
        if self.is_bound and "turn_push" not in self.data:
            for name in self.PUSH_FIELDS:
                del self.fields[name]
        else:
            # The same three choices as the emails', said of a notification.
            self.fields["turn_push"].choices = [
                (User.TurnEmail.IMMEDIATE, "As soon as I am away"),
                (User.TurnEmail.DIGEST, "Once a day, all my games in one notification"),
                (User.TurnEmail.NONE, "Never"),
            ]

    clean_display_name = clean_display_name

    def clean_email(self):
        return clean_address(self.cleaned_data["email"])

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("quiet_start"), cleaned.get("quiet_end")
        if (start is None) != (end is None):
            self.add_error(
                "quiet_end" if end is None else "quiet_start",
                "Give both ends of your quiet hours, or neither.",
            )
        elif start is not None and start == end:
            self.add_error("quiet_end", "Quiet hours must end at another time than they start.")
        return cleaned

    def groups(self):
        return [
            (legend, [self[name] for name in names if name in self.fields])
            for legend, names in self.GROUPS
        ]
