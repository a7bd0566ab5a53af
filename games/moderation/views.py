"""The report form: a player reports a table, or a player seated at it, to the moderators
(filed through games.moderation.reports)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from accounts import text as person_text
from accounts.models import User
from games.models import Game
from games.moderation import reports
from games.moderation.models import Report
from games.presenters import replay


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class ReportForm(forms.ModelForm):
    class Meta:
        model = Report
        fields = ["reported", "reason", "text"]
        labels = {"reported": "Player (leave empty to report the table)"}

    def __init__(self, *args, game, reporter, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reported"].required = False
        self.fields["reported"].queryset = (
            User.objects.filter(seats__game=game).exclude(pk=reporter.pk).order_by("username")
        )

    def clean_text(self):
        report_text = self.cleaned_data.get("text", "")
        person_text.validate(report_text, "The report")
        return report_text


@login_required
def report(request, game_id):
    """A player reports a table, or a player seated at it, to the moderators."""
    game = get_object_or_404(Game, pk=game_id)
    own = replay.seat_of(game, request.user)
    if game.private and own is None and game.host_id != request.user.pk:
        raise Http404("No such table")
    if request.method == "POST":
        form = ReportForm(request.POST, game=game, reporter=request.user)
        status = 400
        if form.is_valid():
            try:
                reports.file(game, request.user, **form.cleaned_data)
            except reports.ReportRefused as exc:
                form.add_error(None, str(exc))
                status = exc.status
            else:
                messages.success(request, "Thank you: the moderators will look at your report.")
                back = request.POST.get("next", "")
                if not back.startswith("/") or back.startswith("//"):
                    back = reverse(
                        {
                            Game.Status.OPEN: "lobby:table",
                            Game.Status.ACTIVE: "games:play",
                        }.get(game.status, "history:replay"),
                        args=[game.pk],
                    )
                return redirect(back)
        return render(
            request,
            "moderation/report.html",
            {"game": game, "form": form, "next": request.POST.get("next", "")},
            status=status,
        )
    else:
        form = ReportForm(
            game=game, reporter=request.user, initial={"reported": _int(request.GET.get("player"))}
        )
    return render(
        request,
        "moderation/report.html",
        {"game": game, "form": form, "next": request.GET.get("next", "")},
    )
