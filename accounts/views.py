import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.db import IntegrityError, transaction
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from . import emails, push, ratelimit, signals
from .forms import LoginForm, ProfileForm, SignUpForm, clean_address, login_name
from .models import PushSubscription, User
from .ratelimit import in_words
from .tokens import read_email_token, read_unsubscribe_token

TOO_MANY_LOGINS = "Too many log-in attempts. Please wait a few minutes and try again."
TOO_MANY_SIGNUPS = "Too many sign-ups from your address. Please try again later."
TOO_MANY_RESETS = (
    "Too many password reset requests from your network address. You can ask again in {wait}."
)
TOO_MANY_EMAIL_CHANGES = (
    "You have changed your email address too many times. You can change it again in {wait}."
)
LINK_JUST_SENT = (
    "We sent you a confirmation link less than {interval} ago: it may take a while to arrive."
    " You can ask for another in {wait}."
)
NO_MORE_LINKS_TODAY = (
    "We have sent you {count} confirmation emails today, the most we send in a day."
    " You can ask for another in {wait}."
)
DAY = 24 * 60 * 60


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
        # Counted as the form will read it: " hank" and "HANK" are hank's attempts too.
        username = login_name(request.POST.get("username", ""))
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
        ratelimit.hit("login-user", login_name(self.request.POST.get("username", "")), window)
        ratelimit.hit("login-ip", ratelimit.client_ip(self.request), window)
        return super().form_invalid(form)

    def form_valid(self, form):
        name = form.get_user().get_username()
        # Names differing only in case share a count; an account whose name folds like
        # another's (only the admin can make one) must not lift the other's lock.
        if User.objects.filter(username__iexact=name).count() == 1:
            ratelimit.reset("login-user", login_name(name))
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
            address = form.cleaned_data["email"]
            user = create_account(form, address)
            login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
            messages.success(
                request, f"Welcome, {user.name}! We sent a confirmation link to {address}."
            )
            return redirect(settings.LOGIN_REDIRECT_URL)
        return render(request, "accounts/signup.html", {"form": form}, status=400)
    form = SignUpForm()
    return render(request, "accounts/signup.html", {"form": form})


def owner_of(address, other_than=None):
    """The account `address` is attached to, if it is not `other_than`'s."""
    accounts = User.objects.filter(email__iexact=address)
    if other_than is not None:
        accounts = accounts.exclude(pk=other_than.pk)
    return accounts.first()


def create_account(form, address):
    """Signs up the way the visitor sees it whether or not `address` is taken: the account
    is made and logged in. A free address is attached (unconfirmed) and gets its link; a
    taken one stays pending on the new account and its owner is told instead."""
    owner = owner_of(address)
    user = form.save(commit=False)
    if owner is None:
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            # Taken by a sign-up that won the race: answered like any taken address.
            owner = owner_of(address)
            if owner is None:
                raise
    if owner is not None:
        user.email, user.pending_email = None, address
        user.save()
    form.save_m2m()
    mail_about_address(user, address, owner, during="signup")
    return user


def mail_about_address(user, address, owner, during):
    """The one mail an address change (or a resend) causes: the link if the address is
    free, else the notice to its owner (none for a resend: the owner was told once).
    Counted for the account either way, so that the limits answer the same too."""
    if owner is None:
        emails.send_confirmation(user, address)
    elif during is not None:
        emails.send_address_in_use(owner, during)
    # The interval runs from the latest mail; the day's count from the first.
    ratelimit.reset("confirm-recent", user.pk)
    ratelimit.hit("confirm-recent", user.pk, settings.CONFIRM_RESEND_INTERVAL)
    ratelimit.hit("confirm-day", user.pk, DAY)


def confirmation_refusal(user):
    """Why `user` may not have another confirmation link now, or ""."""
    if ratelimit.count("confirm-day", user.pk) >= settings.CONFIRM_RESEND_DAILY:
        return NO_MORE_LINKS_TODAY.format(
            count=settings.CONFIRM_RESEND_DAILY,
            wait=in_words(ratelimit.retry_after("confirm-day", user.pk)),
        )
    if ratelimit.count("confirm-recent", user.pk):
        return LINK_JUST_SENT.format(
            interval=in_words(settings.CONFIRM_RESEND_INTERVAL),
            wait=in_words(ratelimit.retry_after("confirm-recent", user.pk)),
        )
    return ""


def confirm_email(request, token):
    try:
        user_pk, address = read_email_token(token)
    except signing.BadSignature:
        return render(request, "accounts/confirm_email.html", {"ok": False}, status=400)
    ok = confirm_address(user_pk, address)
    return render(request, "accounts/confirm_email.html", {"ok": ok}, status=200 if ok else 400)


def confirm_address(user_pk, address):
    """Confirms the user's attached address, or attaches their pending one if it is still
    free. False when the link is for neither (replaced since, or taken meanwhile)."""
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_pk).first()
        if user is None:
            return False
        if user.email and user.email == address:
            if not user.email_confirmed:
                user.email_confirmed = True
                user.save(update_fields=["email_confirmed"])
            return True
        if not user.pending_email or user.pending_email != address:
            return False
        if owner_of(address, other_than=user) is not None:
            return False
        user.email, user.email_confirmed, user.pending_email = address, True, ""
        try:
            with transaction.atomic():
                user.save(update_fields=["email", "email_confirmed", "pending_email"])
        except IntegrityError:  # attached to another account a moment ago
            return False
        return True


@login_required
@require_POST
def resend_confirmation(request):
    user = request.user
    address = user.address_to_confirm
    if not address:
        return redirect("accounts:profile")
    refusal = confirmation_refusal(user)
    if refusal:
        context = profile_context(user, ProfileForm(instance=user), error=refusal)
        return render(request, "accounts/profile.html", context, status=429)
    mail_about_address(user, address, owner_of(address, other_than=user), during=None)
    messages.info(request, f"We sent a new confirmation link to {address}.")
    return redirect("accounts:profile")


@login_required
def profile(request):
    user = request.user
    if request.method == "POST":
        on_profile = user.address_on_profile.lower()
        attached = (user.email or "").lower()
        form = ProfileForm(request.POST, instance=user)
        if not form.is_valid():
            return render(request, "accounts/profile.html", profile_context(user, form), status=400)
        address = form.cleaned_data["email"]
        new_address = address not in (on_profile, attached)
        if new_address and (
            ratelimit.count("email-change", user.pk) >= settings.EMAIL_CHANGE_RATE_LIMIT
        ):
            wait = in_words(ratelimit.retry_after("email-change", user.pk))
            context = profile_context(user, form, error=TOO_MANY_EMAIL_CHANGES.format(wait=wait))
            return render(request, "accounts/profile.html", context, status=429)
        user = form.save(commit=False)
        if new_address:
            ratelimit.hit("email-change", user.pk, settings.EMAIL_CHANGE_RATE_WINDOW)
            # Attached only when the link is followed: until then mail still goes to the
            # old address, and a taken address is never attached at all.
            user.pending_email = address
        elif address == attached:
            user.pending_email = ""  # back to the attached address: nothing to confirm
        user.save()
        if new_address:
            mail_about_address(user, address, owner_of(address, other_than=user), "change")
            messages.info(request, f"Please confirm {address}: we sent you a link.")
        # Emails already waiting are looked at again under the new choices.
        signals.email_choices_changed.send(sender=User, user_id=user.pk)
        messages.success(request, "Your profile is saved.")
        return redirect("accounts:profile")
    form = ProfileForm(instance=user)
    return render(request, "accounts/profile.html", profile_context(user, form))


def profile_context(user, form, **more):
    """The profile page's context: the form, and the devices getting Web Push."""
    devices = PushSubscription.objects.filter(user=user).order_by("created_at", "pk")
    return {"form": form, "push_devices": list(devices), **more}


@login_required
@require_POST
def push_subscribe(request):
    """A browser's `PushSubscription.toJSON()`, posted by static/js/push.js (CSRF header,
    as every post of the site): 201 {"id"} for a new device, 200 for one the account has,
    400 {"detail"} with the reason for one the site does not take
    (in words, as the Bot API answers)."""
    try:
        data = json.loads(request.body or b"null")
        row, created = push.subscribe(request.user, data, request.headers.get("User-Agent", ""))
    except (ValueError, push.Refused) as exc:
        reason = str(exc) if isinstance(exc, push.Refused) else "expected JSON"
        return JsonResponse({"detail": reason}, status=400)
    if created:
        # "Your turn" rows already waiting (for the daily email's hour, say) are looked at
        # again, so that the new device hears of them by its own rules.
        signals.email_choices_changed.send(sender=User, user_id=request.user.pk)
    return JsonResponse({"id": row.pk, "label": row.label}, status=201 if created else 200)


@login_required
@require_POST
def push_remove(request, subscription_id):
    """Removes one of the account's devices (the profile's button, or push.js when the
    device turns notifications off or logs out); another account's is not found (404)."""
    if subscription_id == 0:
        raise Http404
    row = get_object_or_404(PushSubscription, pk=subscription_id, user=request.user)
    row.delete()
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"removed": subscription_id})
    messages.success(request, f"{row.label or 'The device'} gets no more notifications.")
    return redirect("accounts:profile")


class PasswordChangeView(RefuseInvalidForm, auth_views.PasswordChangeView):
    pass


class PasswordResetView(RefuseInvalidForm, auth_views.PasswordResetView):
    """Django's reset, limited so that it cannot be made to mail one address over and over:
    PASSWORD_RESET_RATE_LIMIT requests per email address and PASSWORD_RESET_IP_LIMIT per
    client address in PASSWORD_RESET_RATE_WINDOW.

    Past the address's limit the answer is the done page as always, and no email goes out:
    the answer never depends on whether an account uses the address (and the address is
    counted whether or not one does). Past the client's limit the form is refused (429):
    that count is the client's own and says nothing about any account."""

    def post(self, request, *args, **kwargs):
        ip = ratelimit.client_ip(request)
        window = settings.PASSWORD_RESET_RATE_WINDOW
        if ratelimit.hit("reset-ip", ip, window) > settings.PASSWORD_RESET_IP_LIMIT:
            wait = in_words(ratelimit.retry_after("reset-ip", ip))
            context = self.get_context_data(
                form=self.form_class(), error=TOO_MANY_RESETS.format(wait=wait)
            )
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        address = clean_address(form.cleaned_data["email"])
        window = settings.PASSWORD_RESET_RATE_WINDOW
        if ratelimit.hit("reset-address", address, window) > settings.PASSWORD_RESET_RATE_LIMIT:
            return redirect(self.get_success_url())
        return super().form_valid(form)


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
    form_class=emails.PasswordResetForm,
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


UNSUBSCRIBE_WHAT = {"turn": '"your turn" emails', "reminder": "deadline reminders"}


# The one-click POST (RFC 8058) comes from the mail provider, with no session or CSRF
# cookie: the signed token is the proof, and all it can do is stop one kind of email.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    """A game email's one-click link: GET asks (a link checker that follows links must
    not unsubscribe anyone), POST turns that kind of email off. No log-in needed."""
    try:
        user_pk, kind = read_unsubscribe_token(token)
        user = User.objects.get(pk=user_pk)
    except (signing.BadSignature, User.DoesNotExist):
        return render(request, "accounts/unsubscribe.html", {"invalid": True}, status=400)
    context = {"kind": kind, "what": UNSUBSCRIBE_WHAT[kind], "account": user}
    if request.method == "POST":
        if kind == "turn":
            user.turn_email = User.TurnEmail.NONE
        else:
            user.notify_reminder_email = False
        user.save(update_fields=["turn_email" if kind == "turn" else "notify_reminder_email"])
        context["done"] = True
    return render(request, "accounts/unsubscribe.html", context)
