"""Replays and exports, rebuilt from the stored event rows and the engine.

A replay never reads a stored picture of the state: step k is
`GameState.new(options, seed)` with the actions of event rows 1..k applied in
order (rows without an action — the deal, moderator notes — change nothing).
What a reader sees at a step comes from `view(seat)` and `events_for` only.

Who sees what (see docs/history.md):
- PUBLIC: `view(None)` and the public events; anyone who may watch the table.
- a SEAT: `view(seat)` and that seat's events; the seated player, or anyone
  once the game is finished.
- ALL hands: every seat's hand and every event; only once the game is finished.
"""

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine import GameState
from games.engine.types import Event, SeatView
from games.models import TEAM_SHAPES, Game, GameEvent, Seat
from games.presenters import describe, fairness
from games.presenters.cards import COLOR_NAMES, card_face
from games.presenters.table import PublicTable

STAFF_ONLY: list[int] = []  # a `visible_to` that no seat matches: moderator notes
LOG_LINES = 40


class NotAllowed(Exception):
    """The reader may not see this replay or this perspective."""


@dataclass(frozen=True)
class Perspective:
    seat: int | None = None  # None: public
    all_hands: bool = False

    @property
    def label(self) -> str:
        if self.all_hands:
            return "all hands"
        return "public view" if self.seat is None else f"view of seat {self.seat + 1}"


def is_finished(game: Game) -> bool:
    return game.status == Game.Status.FINISHED


def seat_of(game: Game, user: User | AnonymousUser) -> int | None:
    if not user.is_authenticated:
        return None
    return game.seats.filter(user=user).values_list("number", flat=True).first()


def may_watch(game: Game, user: User | AnonymousUser, seat: int | None = None) -> bool:
    """Whether `user` may open this game's replay at all (public view at least)."""
    if game.status == Game.Status.OPEN:
        return False
    if seat is not None or user.is_staff:
        return True
    if game.private:
        return False
    # A running game is watched live only where the table allows spectators.
    return game.status != Game.Status.ACTIVE or game.spectators


def choose_perspective(
    game: Game, user: User | AnonymousUser, *, seat: int | None = None, all_hands: bool = False
) -> Perspective:
    """The perspective `user` asked for, or NotAllowed.

    While a game runs (or after it was aborted) a player may follow only their
    own seat; anything else is refused. Once it is finished every seat and all
    hands may be shown to anyone who may watch.
    """
    own = seat_of(game, user)
    if not may_watch(game, user, own):
        raise NotAllowed("You may not watch this table.")
    if all_hands:
        if not is_finished(game):
            raise NotAllowed("Every hand is shown only once the game is over.")
        return Perspective(all_hands=True)
    if seat is None:
        return Perspective()
    if not isinstance(seat, int) or not 0 <= seat < game.players:
        raise NotAllowed("There is no such seat at this table.")
    if seat != own and not is_finished(game):
        raise NotAllowed("You can follow only your own seat while the game is not over.")
    return Perspective(seat=seat)


def rows_of(game: Game) -> list[GameEvent]:
    return list(
        GameEvent.objects.filter(game_id=game.pk)
        .order_by("seq")
        .only("seq", "kind", "seat", "actor", "action", "events", "created_at")
    )


def state_at(game: Game, rows: Sequence[GameEvent], step: int) -> engine.GameState:
    """The engine game after event rows 1..step."""
    state = engine.GameState.new(game.engine_options(), game.seed)
    for row in rows[:step]:
        if row.action is not None:
            # A recorded action always names its seat; the engine refuses one that does
            # not (IllegalAction), as it refuses any seat it does not have.
            state.act(cast(int, row.seat), row.action)
    return state


def visible_events(events: Iterable[Event], perspective: Perspective) -> list[Event]:
    if perspective.all_hands:
        return [e for e in events if e.get("visible_to") != STAFF_ONLY]
    return engine.events_for(events, perspective.seat)


class StepTable(PublicTable):
    """The table as every reader saw it at one step: the live table's own plates, direction
    and piles (presenters.table.PublicTable), from that step's public view and the event
    rows up to it.

    Two things PublicTable reads are about the game now, not about the step, and are put
    back to the step's: whether the game is over (a finished game's plates would otherwise
    show nobody to play at any step) and the stand-in notes on the names (a bot that played
    for someone at the end did not at step 5).
    """

    def __init__(
        self,
        game: Game,
        state: engine.GameState,
        seats: Sequence[Seat],
        rows: Sequence[GameEvent],
    ) -> None:
        super().__init__(game, state, seats, rows)
        self.finished = bool(self.view.get("game_over"))
        self.names = dict(self.log_names)


def frame(
    game: Game,
    rows: Sequence[GameEvent],
    step: int,
    perspective: Perspective,
    names: Mapping[int, str],
    reader: int | None = None,
    seats: Sequence[Seat] | None = None,
) -> dict[str, Any]:
    """What the reader sees at `step` (1 = after the deal): a dict for the template.

    `reader` is the reader's own seat at this table (None: they did not play): the log
    calls it "you" and its plate says so, whichever perspective they follow, as the table
    did. `seats` are the game's Seat rows (read here when not given).
    """
    total = len(rows)
    step = max(1, min(step, total))
    state = state_at(game, rows, step)
    view = state.view(perspective.seat)
    half = game.players // 2
    seats_info = _seat_plates(state, view, perspective, names, reader)
    log = _log(rows, step, perspective, reader, names, game.players)
    row = rows[step - 1]
    table = StepTable(game, state, seats_of(game) if seats is None else seats, rows[:step])
    # The followed seat sits at the bottom of the felt, as a player's own seat does on the
    # table; with none followed, the reader's own seat, else seat 1.
    me = perspective.seat if perspective.seat is not None else reader if reader is not None else 0
    color = view.get("color")
    return {
        "step": step,
        "total": total,
        "row": {
            "seq": row.seq,
            "seat": row.seat,
            "kind": row.kind,
            "actor": row.actor,
            "who": names.get(row.seat, "") if row.seat is not None else "",
        },
        "view": view,
        "seats": seats_info,
        "hands": [s for s in seats_info if s["faces"] is not None],
        "top": engine.card_name(view["discard"][-1]) if view["discard"] else "",
        "color": COLOR_NAMES.get(color, color) if color else "",
        "log": log[-LOG_LINES:],
        # As the table's log reads: newest move first, each move's own steps in order.
        "moves": sorted(log[-LOG_LINES:], key=lambda line: -line["seq"]),
        "current": [line["text"] for line in log if line["current"]],
        "table": table,
        "me": me,
        # Rendered only when the template asks: the tests fold thousands of frames.
        "plates": functools.partial(table.plates_for, reader),
        "scores": functools.partial(table.scores, None if reader is None else reader % half),
        **_headline(view, names),
    }


def _seat_plates(
    state: GameState,
    view: SeatView,
    perspective: Perspective,
    names: Mapping[int, str],
    reader: int | None,
) -> list[dict[str, Any]]:
    """Each seat's plate at this step, with the hand the perspective shows (all of them,
    the followed seat's, or none)."""
    n, half = len(view["hand_sizes"]), len(view["hand_sizes"]) // 2
    hands: list[list[str] | None]
    if perspective.all_hands:
        hands = [state.view(s)["hand"] for s in range(n)]
    elif perspective.seat is not None:
        hands = [view["hand"] if s == perspective.seat else None for s in range(n)]
    else:
        hands = [None] * n
    return [
        {
            "number": s,
            "name": names.get(s, f"Seat {s + 1}"),
            "team": s % half,
            "shape": TEAM_SHAPES[s % half],
            "cards": view["hand_sizes"][s],
            "hand": None if hand is None else [engine.card_name(c) for c in hand],
            "faces": None if hand is None else [card_face(c) for c in hand],
            "out": view["out"][s],
            "departed": view["departed"][s],
            "to_play": view.get("turn") == s and not view.get("game_over"),
            "followed": s == perspective.seat,
            "you": s == reader,
        }
        for s, hand in enumerate(hands)  # one per seat
    ]


def _log(
    rows: Sequence[GameEvent],
    step: int,
    perspective: Perspective,
    reader: int | None,
    names: Mapping[int, str],
    players: int,
) -> list[dict[str, Any]]:
    """The lines of the moves up to `step` the perspective may see, the step's own marked."""
    current = rows[step - 1].seq
    return [
        {
            "seq": row.seq,
            "text": describe.describe(event, reader, names, players),
            "current": row.seq == current,
        }
        for row in rows[:step]
        for event in visible_events(row.events, perspective)
    ]


def _headline(view: SeatView, names: Mapping[int, str]) -> dict[str, str | None]:
    """Whose turn it is, and the team that won the round or the game, if one did."""
    outcome, over = view.get("round_over"), view.get("game_over")
    round_winner = outcome.get("winner") if outcome else None
    game_winner = over.get("winner") if over else None
    turn = view.get("turn")
    return {
        "turn_name": (
            names.get(turn, f"Seat {turn + 1}") if turn is not None and not over else None
        ),
        "round_winner": TEAM_SHAPES[round_winner] if round_winner is not None else None,
        "game_winner": TEAM_SHAPES[game_winner] if game_winner is not None else None,
    }


def seats_of(game: Game) -> list[Seat]:
    return list(game.seats.select_related("user"))


def seat_names(game: Game, seats: Iterable[Seat] | None = None) -> dict[int, str]:
    """{seat: name} as the table's log names them (presenters.describe.seat_names)."""
    return describe.seat_names(seats if seats is not None else seats_of(game))


def export(game: Game) -> dict[str, Any]:
    """The JSON export of a finished game: the whole log (docs/history.md says why)."""
    if not is_finished(game):
        raise NotAllowed("Only a finished game can be exported.")
    seats = list(game.seats.select_related("user"))
    names = describe.seat_names(seats)
    final = engine.GameState.from_dict(game.snapshot.state).view(None)
    events = []
    rows = rows_of(game)
    for row in rows:
        shown = [e for e in row.events if e.get("visible_to") != STAFF_ONLY]
        events.append(
            {
                "seq": row.seq,
                "kind": row.kind,
                "seat": row.seat,
                "actor": row.actor,
                "at": row.created_at.isoformat(),
                "action": row.action,
                "events": shown,
                # The move log's line for each of `events`, as a reader who did not play reads it.
                "lines": [describe.describe(e, None, names, game.players) for e in shown],
            }
        )
    return {
        "format": "wild-cards-teams/1",
        "game": game.pk,
        "exported_at": timezone.now().isoformat(),
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "options": {
            "players": game.players,
            "stacking": game.stacking,
            "final_card_penalty": game.final_card_penalty,
            "target_score": game.target_score,
            "pace": game.pace,
        },
        # GameState.new(options, seed) then every "action" in order replays the game.
        "seed": game.seed,
        # With the seed, what anyone needs to check the deals (docs/fair-deals.md): each
        # round's commitment is HMAC-SHA256(deal_secret, "wct-deal:<game>:<round>:<seed>").
        "deal_secret": game.deal_secret,
        "commitments": [
            {"round": r, "commitment": c} for r, c in fairness.shown_commitments(game, rows)
        ],
        "seats": [
            {
                "seat": s.number,
                "team": s.team,
                "player": s.user.username if s.user_id else None,
                "name": s.label(),
                "bot": s.bot_level or None,
            }
            for s in seats
        ],
        "result": {"game_over": final["game_over"], "scores": final["scores"]},
        "events": events,
    }
