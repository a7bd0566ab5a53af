from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, views as auth_views
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_POST

from . import emails, ratelimit
from .forms import LoginForm, ProfileForm, SignUpForm
from .models import User
from .tokens import read_email_token

TOO_MANY_LOGINS = "Too many log-in attempts. Please wait a few minutes and try again."
TOO_MANY_SIGNUPS = "Too many sign-ups from your address. Please try again later."


class RefuseInvalidForm:
    """A form sent back with its errors answers 400, not 200 (docs/security.md): the
    page still shows every message, and a client (or a test) can tell it was refused."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class LoginView(RefuseInvalidForm, auth_views.LoginView):
    """Django's log-in, refusing further attempts once a user or address fails too often."""

    form_class = LoginForm
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        ip = ratelimit.client_ip(request)
        if (
            ratelimit.count("login-user", username) >= settings.LOGIN_RATE_LIMIT
            or ratelimit.count("login-ip", ip) >= settings.LOGIN_RATE_IP_LIMIT
        ):
            # Not even checked: a blocked attempt must not test a password.
            context = self.get_context_data(form=self.form_class(request), error=TOO_MANY_LOGINS)
            response = self.render_to_response(context)
            response.status_code = 429
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        window = settings.LOGIN_RATE_WINDOW
        ratelimit.hit("login-user", self.request.POST.get("username", ""), window)
        ratelimit.hit("login-ip", ratelimit.client_ip(self.request), window)
        return super().form_invalid(form)

    def form_valid(self, form):
        ratelimit.reset("login-user", form.get_user().get_username())
        return super().form_valid(form)


def signup(request):
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    if request.method == "POST":
        ip = ratelimit.client_ip(request)
        if ratelimit.hit("signup-ip", ip, settings.SIGNUP_RATE_WINDOW) > settings.SIGNUP_RATE_LIMIT:
            context = {"form": SignUpForm(), "error": TOO_MANY_SIGNUPS}
            return render(request, "accounts/signup.html", context, status=429)
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            emails.send_confirmation(user)
            login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
            messages.success(
                request, f"Welcome, {user.name}! We sent a confirmation link to {user.email}."
            )
            return redirect(settings.LOGIN_REDIRECT_URL)
        return render(request, "accounts/signup.html", {"form": form}, status=400)
    form = SignUpForm()
    return render(request, "accounts/signup.html", {"form": form})


def confirm_email(request, token):
    try:
        user_pk, email = read_email_token(token)
    except signing.BadSignature:
        return render(request, "accounts/confirm_email.html", {"ok": False}, status=400)
    updated = User.objects.filter(pk=user_pk, email=email).update(email_confirmed=True)
    return render(request, "accounts/confirm_email.html", {"ok": bool(updated)},
                  status=200 if updated else 400)


@login_required
@require_POST
def resend_confirmation(request):
    if not request.user.email_confirmed:
        emails.send_confirmation(request.user)
        messages.info(request, f"We sent a new confirmation link to {request.user.email}.")
    return redirect("accounts:profile")


@login_required
def profile(request):
    user = request.user
    old_email = user.email
    if request.method == "POST":
        form = ProfileForm(request.POST, instance=user)
        if form.is_valid():
            user = form.save(commit=False)
            email_changed = user.email != old_email
            if email_changed:
                user.email_confirmed = False
            user.save()
            if email_changed:
                emails.send_confirmation(user)
                messages.info(request, f"Please confirm {user.email}: we sent you a link.")
            messages.success(request, "Your profile is saved.")
            return redirect("accounts:profile")
        return render(request, "accounts/profile.html", {"form": form}, status=400)
    else:
        form = ProfileForm(instance=user)
    return render(request, "accounts/profile.html", {"form": form})


class PasswordChangeView(RefuseInvalidForm, auth_views.PasswordChangeView):
    pass


class PasswordResetView(RefuseInvalidForm, auth_views.PasswordResetView):
    pass


class PasswordResetConfirmView(RefuseInvalidForm, auth_views.PasswordResetConfirmView):
    def dispatch(self, *args, **kwargs):
        response = super().dispatch(*args, **kwargs)
        if not self.validlink and response.status_code == 200:
            response.status_code = 400  # the page says the link is not valid
        return response


password_change = PasswordChangeView.as_view(
    template_name="accounts/password_change.html",
    success_url=reverse_lazy("accounts:password_change_done"),
)
password_change_done = auth_views.PasswordChangeDoneView.as_view(
    template_name="accounts/password_change_done.html"
)
password_reset = PasswordResetView.as_view(
    template_name="accounts/password_reset.html",
    subject_template_name="emails/password_reset_subject.txt",
    email_template_name="emails/password_reset_body.txt",
    html_email_template_name="emails/password_reset_body.html",
    success_url=reverse_lazy("accounts:password_reset_done"),
)
password_reset_done = auth_views.PasswordResetDoneView.as_view(
    template_name="accounts/password_reset_done.html"
)
password_reset_confirm = PasswordResetConfirmView.as_view(
    template_name="accounts/password_reset_confirm.html",
    success_url=reverse_lazy("accounts:password_reset_complete"),
)
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(
    template_name="accounts/password_reset_complete.html"
)
