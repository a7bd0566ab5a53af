"""The bot account's page (docs/bot-api.md): turning a new account into a bot account, and
its API tokens: create (the raw token shown once, on the answer to the POST, and never
again), list and revoke."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from . import bot_tokens, text
from .models import ApiToken


class BecomeBotForm(forms.Form):
    password = forms.CharField(
        label="Your password, to confirm",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    understood = forms.BooleanField(
        label="I understand: this account will be a bot account for good, played by my "
        "program through the Bot API."
    )

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


class TokenForm(forms.Form):
    name = forms.CharField(
        label="Token name", max_length=60, help_text='Where it is used, e.g. "laptop" or "server".'
    )

    def clean_name(self):
        name = self.cleaned_data["name"]
        text.validate(name, "A token name")
        return name


def _page(request, *, status=200, **context):
    user = request.user
    context.setdefault("become_form", BecomeBotForm(user))
    context.setdefault("token_form", TokenForm())
    context.update(
        may_become=bot_tokens.may_become_bot(user),
        tokens=user.api_tokens.all() if user.is_bot else [],
        token_limit=bot_tokens.settings.API_TOKENS_PER_BOT,
    )
    return render(request, "accounts/bot.html", context, status=status)


@login_required
def bot_account(request):
    """GET: the page. POST: turn this account into a bot account (password to confirm)."""
    if request.method != "POST":
        return _page(request)
    form = BecomeBotForm(request.user, request.POST)
    if not form.is_valid():
        return _page(request, become_form=form, status=400)
    try:
        bot_tokens.make_bot_account(request.user)
    except bot_tokens.TokenRefused as exc:
        return _page(request, error=str(exc), status=403)
    messages.success(request, "This is now a bot account. Create a token for your program.")
    return redirect("accounts:bot")


@login_required
@require_POST
def create_token(request):
    if not request.user.is_bot:
        return _page(request, error="Only a bot account has API tokens.", status=403)
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, token_form=form, status=400)
    try:
        token, raw = bot_tokens.issue(request.user, form.cleaned_data["name"])
    except bot_tokens.TooManyTokensToday as exc:
        return _page(request, error=str(exc), status=429)
    except bot_tokens.TokenRefused as exc:
        return _page(request, error=str(exc), status=409)
    # Shown on this answer only: the database has its digest, nothing can show it again.
    response = render(request, "accounts/bot_token_created.html", {"token": token, "raw": raw})
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def revoke_token(request, token_id):
    token = ApiToken.objects.filter(pk=token_id, user=request.user).first()
    if token is None:
        raise Http404("You have no such token.")
    bot_tokens.revoke(token)
    messages.success(request, f"The token {token.name} is revoked: it no longer works.")
    return redirect("accounts:bot")
