"""`PublicTable`: the table at one position as every reader sees it, each piece rendered at
most once (the plates, the direction and the piles, the status bar's round and scores, the
round's result), from the public view `view(None)` and the seats only."""

from collections.abc import Sequence
from typing import Any

from django.urls import get_script_prefix
from django.utils.functional import cached_property
from django.utils.safestring import SafeString, mark_safe
from markupsafe import Markup

from games import engine
from games.models import Game, GameEvent, Seat
from games.presenters import ratings as rating_views
from games.presenters.describe import seat_names
from games.presenters.table import pieces, pile, plates, render, status
from games.presenters.table import result as outcome
from games.store import EventRow, spectators


class PublicTable:
    """The table at one position as every reader sees it, each piece rendered at most once.

    Built from `state.view(None)` and the seats only. A push builds one for all the seats
    it renders (games.effects.seat_pushes); a page or a resync builds its own. The plates
    carry no position: the felt places them around the reader by CSS (static/css/table.css,
    `data-me`), so one plate's markup serves every reader but the two it is rendered for
    with a `role` (their own seat, their partner's).

    What it reads beyond the rows and seats it is given (the spectators' count, the
    plates' ratings, the table opened to play again) is read the first time it is asked
    for, once per push, not once per reader; a replay's step (presenters.replay) asks for
    the ratings alone.
    """

    def __init__(
        self,
        game: Game,
        state: engine.GameState,
        seats: Sequence[Seat],
        rows: Sequence[EventRow | GameEvent],
    ) -> None:
        self.game, self.state, self.seats, self.rows = game, state, seats, rows
        self.view = view = state.view(None)
        self.players = game.players
        self.half = half = game.players // 2
        self.seq = game.last_seq
        # The log names a seat by who sits there; the plates and the status line add that
        # a bot plays for them.
        self.log_names = seat_names(seats)
        self.log_names_key = tuple(self.log_names.items())
        self.bots = {s.number for s in seats if s.is_bot}
        self.bot_accounts = {
            s.number for s in seats if s.user_id and s.user is not None and s.user.is_bot
        }
        self.names = {
            number: name if number in self.bots else name + plates.stand_in_note(game, number)
            for number, name in self.log_names.items()
        }
        # Read once per push: the prefix is a context-local look-up, and every plate and
        # reader's form needs it.
        self.script_prefix = get_script_prefix()
        self.finished = game.status != Game.Status.ACTIVE or bool(view.get("game_over"))
        self.waiting = set(view.get("waiting_on") or [])
        self.choosing = set(view.get("choosing") or [])
        self.picked = set(view.get("picked") or [])
        self.teams = plates.teams(self)
        self._scores_key = plates.scores_key(view, half)
        # This position's plates: see plate().
        self._slotted: dict[int, str] = {}
        self._plates: dict[tuple[int, str | None], SafeString] = {}
        self._results: dict[int | None, SafeString] = {}
        # The move log holds only the rows after this event (a push that sends only the
        # moves a page does not have yet: games.push.changes); None, every row given.
        self.log_after: int | None = None

    def name(self, number: int) -> str:
        return self.names.get(number, f"Seat {number + 1}")

    # --- what it reads ------------------------------------------------------------------------

    @cached_property
    def watching(self) -> int | None:
        """How many watch (a read of the cache, Redis in production), or None if nobody may."""
        return spectators.count(self.game.pk) if self.game.spectators else None

    @cached_property
    def ratings(self) -> dict[int, str]:
        """A rated game's plates carry each person's rating (a casual game, which every
        game with a bot is, reads nothing)."""
        return rating_views.plate_ratings(self.game, self.seats) if self.game.rated else {}

    @cached_property
    def rematch(self) -> int | None:
        """Play again: the open table a player of this finished game opened after it."""
        if self.game.status != Game.Status.FINISHED:
            return None
        return (
            Game.objects.filter(rematch_of=self.game.pk, status=Game.Status.OPEN)
            .values_list("pk", flat=True)
            .first()
        )

    @cached_property
    def rematch_held(self) -> set[int]:
        """...and the seats it still holds for their people, who may decline them there."""
        if not self.rematch:
            return set()
        return set(
            Seat.objects.held().filter(game_id=self.rematch).values_list("number", flat=True)
        )

    # --- the seats ----------------------------------------------------------------------------

    @cached_property
    def plate_data(self) -> list[dict[str, Any]]:
        return plates.plate_data(self)

    def plate(self, number: int, role: str | None = None) -> SafeString:
        """Seat `number`'s plate for a reader whose seat it is (`role` "you"), whose
        partner's it is ("partner"), or neither (None): rendered once per push with its
        reader's places as markers, which are filled in here for each role."""
        key = (number, role)
        found = self._plates.get(key)
        if found is None:
            slotted = self._slotted.get(number)
            if slotted is None:
                slotted = self._slotted[number] = plates.render_plate(
                    tuple(self.plate_data[number].items())
                )
            found = self._plates[key] = render.fill_slots(slotted, role)
        return found

    def plate_list(self, seat: int | None) -> list[SafeString]:
        """Every plate in seat order, as reader `seat` (None: a spectator) sees them."""
        partner = None if seat is None else (seat + self.half) % self.players
        return [
            self.plate(
                number, "you" if number == seat else "partner" if number == partner else None
            )
            for number in range(self.players)
        ]

    def plates_for(self, seat: int | None) -> SafeString:
        return mark_safe("".join(self.plate_list(seat)))

    def scores(self, yours: int | None) -> Markup:
        """The status bar's score of each team, for a reader of team `yours` (None: of none)."""
        return plates.scores(self._scores_key, yours)

    # --- the status bar, the middle of the felt, the result -----------------------------------

    @cached_property
    def deal_commitment(self) -> str:
        """Once per push, like the rest of what every reader sees alike."""
        return status.deal_commitment(self.game, self.view)

    @cached_property
    def round_line(self) -> Markup:
        return status.round_line(self)

    @cached_property
    def deal_check(self) -> Markup:
        return status.deal_check(self)

    @property
    def deal_check_on_page(self) -> Markup:
        """The deal's check where the page places it, among its links: with the version its
        rendering inside the fragments has, which a push compares."""
        return Markup(pieces.versioned(str(self.deal_check), self.seq))

    @cached_property
    def direction(self) -> Markup:
        return pile.direction(self.view)

    @cached_property
    def piles(self) -> Markup:
        return pile.piles(self.view)

    @cached_property
    def discard_summary(self) -> Markup:
        return pile.discard_summary(self.view)

    @cached_property
    def discard_cards(self) -> Markup:
        return pile.discard_cards(self.view)

    @cached_property
    def centre(self) -> Markup:
        """The piles and the discard pile's list under them."""
        return self.piles + pile.discard_list(self.discard_summary, self.discard_cards)

    @cached_property
    def result(self) -> Markup:
        return outcome.result(self)

    def result_for(self, seat: int | None) -> SafeString:
        """The result as reader `seat` (None: a spectator) reads it: its headline speaks
        from their team's side, filled in once per team and push."""
        team = None if seat is None else seat % self.half
        found = self._results.get(team)
        if found is None:
            found = self._results[team] = mark_safe(
                str(self.result).replace(outcome.HEADLINE_SLOT, outcome.headline(self, team), 1)
            )
        return found
