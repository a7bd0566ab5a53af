import zoneinfo

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from .models import User

TIME_ZONE_CHOICES = [(tz, tz) for tz in sorted(zoneinfo.available_timezones())]


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=True)

    class Meta:
        model = User
        fields = ("username", "email", "display_name")

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email address already exists.")
        return email


class LoginForm(AuthenticationForm):
    pass


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=TIME_ZONE_CHOICES)

    class Meta:
        model = User
        fields = ("display_name", "email", "time_zone", "notify_turn_email", "notify_reminder_email")

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        taken = User.objects.filter(email__iexact=email).exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError("Another account uses this email address.")
        return email
