from django import forms

from games.models import Game, Seat


class TableForm(forms.ModelForm):
    SCORING = [("single", "Single round"), ("target", "Play to a target score")]

    scoring = forms.ChoiceField(choices=SCORING, initial="single", widget=forms.RadioSelect)
    target_score = forms.IntegerField(min_value=50, max_value=5000, initial=500, required=False)
    # The host's choice; a table with a bot is casual whatever it says (docs/ratings.md).
    # Not required: a form that does not send it makes a casual table, the model's default.
    rated = forms.TypedChoiceField(
        choices=[
            ("rated", "Rated: the result moves each player's rating"),
            ("casual", "Casual: no rating changes"),
        ],
        coerce=lambda value: value == "rated",
        # Any value may stand for "no choice"; django-stubs allows only a string or None.
        empty_value=False,  # type: ignore[arg-type]
        initial="casual",
        required=False,
        widget=forms.RadioSelect,
        label="Rated or casual",
    )

    # Real time only; a form that does not send it (turn by turn, an older page) gets steady bots.
    bot_speed = forms.ChoiceField(
        choices=Game.BotSpeed.choices,
        initial=Game.BotSpeed.STEADY,
        required=False,
        widget=forms.RadioSelect,
        label="Site bots' speed (real time)",
    )

    class Meta:
        model = Game
        # The target score is a field of this form's own (above): checked with the single
        # round's choice, and set apart from the model's fields.
        fields = [name for name in Game.TABLE_OPTIONS if name != "target_score"]
        widgets = {
            "players": forms.RadioSelect,
            "pace": forms.RadioSelect,
            "move_seconds": forms.RadioSelect,
            "turn_hours": forms.RadioSelect,
            "missed_deadline": forms.RadioSelect,
        }
        labels = {
            "stacking": "Stack draw cards",
            "final_card_penalty": "Final-card draw penalty",
            "spectators": "Allow spectators",
            "private": "Private table (joined by invite link)",
            "bot_accounts": "Bot accounts may join",
            "move_seconds": "Move timer (real time)",
            "turn_hours": "Deadline per turn (turn by turn)",
            "missed_deadline": "When a deadline is missed",
        }

    def clean(self):
        data = super().clean()
        if data.get("scoring") == "target":
            if data.get("target_score") is None:
                self.add_error("target_score", "Choose a target score from 50 to 5000.")
        else:
            data["target_score"] = None
        data["bot_speed"] = data.get("bot_speed") or Game.BotSpeed.STEADY
        return data

    def table_options(self):
        options = {name: self.cleaned_data[name] for name in self.Meta.fields}
        options["target_score"] = self.cleaned_data["target_score"]
        return options


class BotForm(forms.Form):
    level = forms.ChoiceField(choices=Seat.BotLevel.choices)


class InviteBotForm(forms.Form):
    username = forms.CharField(max_length=150, label="Bot account's username")


class FindForm(forms.Form):
    """Find a game (docs/matchmaking.md): the table size, the pace with its timer (a
    table's own choices, games.models.Game), rated or casual, and site bots after a wait."""

    BOTS = [("off", "No bots: wait for people")] + [
        (str(seconds), f"After {seconds} s") for seconds in (10, 30, 60, 120)
    ]

    players = forms.TypedChoiceField(
        choices=[(4, "4"), (6, "6"), (8, "8"), (0, "Any")],
        coerce=int,
        initial=4,
        widget=forms.RadioSelect,
        label="Table size",
    )
    pace = forms.ChoiceField(
        choices=Game.Pace.choices, initial=Game.Pace.REALTIME, widget=forms.RadioSelect
    )
    move_seconds = forms.TypedChoiceField(
        choices=Game.MOVE_SECONDS,
        coerce=int,
        initial=30,
        widget=forms.RadioSelect,
        label="Move timer (real time)",
    )
    turn_hours = forms.TypedChoiceField(
        choices=Game.TURN_HOURS,
        coerce=int,
        initial=24,
        widget=forms.RadioSelect,
        label="Deadline per turn (turn by turn)",
    )
    rated = forms.TypedChoiceField(
        choices=[("casual", "Casual"), ("rated", "Rated")],
        coerce=lambda value: value == "rated",
        initial="casual",
        widget=forms.RadioSelect,
        label="Rated or casual",
    )
    bots = forms.ChoiceField(
        choices=BOTS,
        initial="off",
        widget=forms.RadioSelect,
        label="Fill the empty seats with bots",
    )

    def clean(self):
        data = super().clean()
        if data.get("rated") and data.get("bots", "off") != "off":
            # A table with a site bot is recorded casual (docs/ratings.md).
            self.add_error("bots", "A table with a bot is casual: choose casual for bots.")
        return data

    def search_options(self):
        data = self.cleaned_data
        return {
            "players": data["players"],
            "pace": data["pace"],
            "move_seconds": data["move_seconds"],
            "turn_hours": data["turn_hours"],
            "rated": data["rated"],
            "bots_after": None if data["bots"] == "off" else int(data["bots"]),
        }
