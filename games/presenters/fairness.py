"""Deals anyone can verify (docs/fair-deals.md).

Each round's deal is committed to at the table by `commitment(game_id, round, seed, secret)`,
an HMAC-SHA256 keyed by the game's `deal_secret`; the seed and the secret stay on the server
until the game is finished (`revealed`). Then `verify` recomputes every round's commitment
from the revealed (or pasted) seed and secret, and replays the game from that seed with the
engine's own code, as a replay does, comparing every event the shuffle decides (the deal,
each hand, the starter and the cards set aside, every card drawn, every reshuffle) with what
was recorded.

The commitments are computed here, from the game's seed and secret, rather than stored with
the deal: the engine (and so the deal event) knows nothing of the secret, and the two values
are fixed when the table is created, so what the table showed at a deal is what this module
gives for it now. Nothing here returns the seed or the secret of a game that is not revealed.

The verify page (`page_rounds`, `own_check`) reads every event row and re-deals the whole
game; a game that does not move gives the same answer every time, so each is computed once
per (game, last event) and kept in the Django cache, which every process shares (Redis when
REDIS_URL is set). A game that moves on has a new last event, hence a new key: an older
answer is never shown for it. The cache may forget (a restart, its memory limit): the answer
is then computed again, the same.
"""

import hashlib
import hmac
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

from django.core.cache import cache

from games import engine
from games.engine.types import Event
from games.models import Game, GameEvent

PREFIX = "wct-deal"
# The events the seed decides; every other event is somebody's choice.
SEEDED = ("round_start", "deal", "hand", "draw", "drew", "reshuffle")
# A round that went wrong lists at most this many differences (and how many more there were).
PROBLEMS_SHOWN = 6
# How long the verify page's answers stay in the cache (recomputed, the same, after it).
CACHE_SECONDS = 24 * 60 * 60

T = TypeVar("T")


def commitment(game_id: int, round_number: int, seed: int | str, secret: str) -> str:
    """The hex HMAC-SHA256, keyed by the secret (its text, as UTF-8), of
    "wct-deal:<game id>:<round>:<seed>"."""
    message = f"{PREFIX}:{game_id}:{round_number}:{seed}".encode()
    return hmac.new(str(secret).encode(), message, hashlib.sha256).hexdigest()


def short(value: str) -> str:
    """The first six and last four characters: enough to compare at a glance."""
    return f"{value[:6]}…{value[-4:]}"


def revealed(game: Game) -> bool:
    """Whether the seed and secret may be shown. Only a finished game's: an aborted game's
    seed would show every hand, which its replay keeps hidden (docs/fair-deals.md)."""
    return game.status == Game.Status.FINISHED


def stored_rows(game: Game) -> list[GameEvent]:
    return list(
        GameEvent.objects.filter(game_id=game.pk)
        .order_by("seq")
        .only("seq", "kind", "seat", "action", "events")
    )


def dealt_rounds(rows: Iterable[GameEvent]) -> list[int]:
    """The rounds dealt so far, in order, from the public deal events."""
    rounds: list[int] = []
    for row in rows:
        for event in row.events:
            if event.get("type") == "deal" and event.get("round") not in rounds:
                rounds.append(event.get("round"))
    return rounds


def shown_commitments(game: Game, rows: Iterable[GameEvent]) -> list[tuple[int, str]]:
    """[(round, commitment)] as the table showed them, one for each round dealt so far."""
    return [(r, commitment(game.pk, r, game.seed, game.deal_secret)) for r in dealt_rounds(rows)]


def _once(kind: str, game: Game, compute: Callable[[], T]) -> T:
    key = f"fairness:{kind}:{game.pk}:{game.last_seq}"
    found = cache.get(key)
    if found is None:
        found = compute()
        cache.set(key, found, CACHE_SECONDS)
    return cast(T, found)


def page_rounds(game: Game) -> list[int]:
    """dealt_rounds of the game as of its last event (`game.last_seq`), read from its rows
    once per (game, last event)."""
    return _once(
        "rounds",
        game,
        lambda: dealt_rounds([row for row in stored_rows(game) if row.seq <= game.last_seq]),
    )


def page_commitments(game: Game) -> list[tuple[int, str]]:
    """shown_commitments, from `page_rounds`."""
    return [(r, commitment(game.pk, r, game.seed, game.deal_secret)) for r in page_rounds(game)]


def own_check(game: Game) -> "Verification":
    """verify_game(game) against its own seed and secret, computed once per (game, last
    event). Only for a revealed game: the answer names cards."""
    if not revealed(game):
        raise ValueError("Only a finished game's deals are checked.")
    return _once("check", game, lambda: verify_game(game))


@dataclass
class RoundCheck:
    round: int
    shown: str | None  # what the table showed (None: the record has no such deal)
    recomputed: str  # from the seed and secret being checked
    reached: bool = False  # whether the replay got to this round's deal
    problems: list[str] = field(default_factory=list)
    hands: int = 0
    draws: int = 0
    reshuffles: int = 0

    def tally(self, dealt: Event) -> None:
        """Counts one event of this seed in the round: a hand, the cards drawn, a reshuffle;
        the deal marks the round reached."""
        if dealt["type"] == "deal":
            self.reached = True
        self.hands += dealt["type"] == "hand"
        self.draws += len(dealt.get("cards", ())) if dealt["type"] == "drew" else 0
        self.reshuffles += dealt["type"] == "reshuffle"

    @property
    def commitment_ok(self) -> bool:
        return self.shown is not None and hmac.compare_digest(self.shown, self.recomputed)

    @property
    def deal_ok(self) -> bool:
        return self.reached and not self.problems

    @property
    def ok(self) -> bool:
        return self.commitment_ok and self.deal_ok

    @property
    def problems_shown(self) -> list[str]:
        return self.problems[:PROBLEMS_SHOWN]

    @property
    def problems_more(self) -> int:
        return max(0, len(self.problems) - PROBLEMS_SHOWN)


@dataclass
class Verification:
    rounds: list[RoundCheck]
    stopped: str = ""  # why the replay could not go on to the end, or ""

    @property
    def ok(self) -> bool:
        return bool(self.rounds) and not self.stopped and all(r.ok for r in self.rounds)

    @property
    def failed_rounds(self) -> list[int]:
        return [r.round for r in self.rounds if not r.ok]


def verify_game(
    game: Game,
    seed: int | str | None = None,
    secret: str | None = None,
    rows: Sequence[GameEvent] | None = None,
) -> Verification:
    """`verify` for a game's stored rows, with its own seed and secret unless others are
    given. The caller decides who may see the answer: it names cards."""
    rows = stored_rows(game) if rows is None else rows
    return verify(
        game.pk,
        game.engine_options(),
        game.seed if seed is None else seed,
        game.deal_secret if secret is None else secret,
        rows,
        dict(shown_commitments(game, rows)),
    )


def verify(
    game_id: int,
    options: engine.Options,
    seed: int | str,
    secret: str,
    rows: Sequence[GameEvent],
    shown: Mapping[int, str],
) -> Verification:
    """Checks the recorded `rows` (objects with seq, kind, seat, action, events, in order)
    against `seed` and `secret`. `shown` is {round: commitment} as the table showed them.

    Replays `engine.GameState.new(options, seed)` with each row's action, as the replay does, and
    compares the seeded events each row produced with the recorded ones. A recorded move the
    re-dealt cards cannot make stops the replay: the later rounds are left not reached.
    """
    checks: dict[int, RoundCheck] = {}

    def check(r: int) -> RoundCheck:
        if r not in checks:
            checks[r] = RoundCheck(r, shown.get(r), commitment(game_id, r, seed, secret))
        return checks[r]

    for r in shown:
        check(r)
    try:
        state = engine.GameState.new(options, seed)
    except ValueError as exc:
        stopped = f"This seed cannot start a game: {exc}"
    else:
        stopped = _replay(state, rows, check)
    return Verification([checks[r] for r in sorted(checks)], stopped)


def _replay(
    state: engine.GameState, rows: Sequence[GameEvent], check: Callable[[int], RoundCheck]
) -> str:
    """Replays `rows` on `state`, comparing each row's seeded events with the recorded ones
    in the RoundCheck of their round (`check`); returns why the replay stopped, or ""."""
    current = 1
    for row in rows:
        try:
            produced = _produced(state, row)
        except engine.IllegalAction as exc:
            who = _seat_name(row.seat)
            check(current).problems.append(
                f"Event #{row.seq}: the recorded move of {who} cannot be made with the cards "
                f"this seed deals ({exc})."
            )
            return (
                f"The replay stopped at event #{row.seq}, in round {current}: the "
                "rounds after it could not be checked."
            )
        current = _compare(row, produced, current, check)
    return ""


def _produced(state: engine.GameState, row: GameEvent) -> list[Event]:
    """The events that replaying recorded row `row` gives (raises engine.IllegalAction)."""
    if row.action is not None:
        # A recorded action without a seat is refused by the engine itself, as any seat it
        # does not have (IllegalAction, which the replay reports).
        return state.act(cast(int, row.seat), row.action)
    if row.kind == "deal":
        return state.initial_events()
    return []  # a moderator's note: the engine's state stays as it is


def _compare(
    row: GameEvent, produced: list[Event], current: int, check: Callable[[int], RoundCheck]
) -> int:
    """Compares the seeded events replaying `row` produced with those it recorded, one by
    one, in the RoundCheck of the round each belongs to; returns the round it ends in."""
    made = [e for e in produced if e.get("type") in SEEDED]
    kept: list[Event] = [e for e in row.events if e.get("type") in SEEDED]
    for i in range(max(len(made), len(kept))):
        mine = made[i] if i < len(made) else None
        theirs = kept[i] if i < len(kept) else None
        if mine is not None and mine["type"] in ("round_start", "deal"):
            current = mine["round"]
        elif mine is None and theirs is not None and theirs["type"] in ("round_start", "deal"):
            current = theirs.get("round", current)
        round_check = check(current)
        if mine is not None:
            round_check.tally(mine)
        if mine != theirs:
            round_check.problems.append(_difference(row.seq, theirs, mine))
    return current


def _cards(codes: Iterable[str]) -> str:
    return ", ".join(engine.card_name(c) for c in codes) or "none"


def _differing(recorded: Iterable[str], dealt: Iterable[str]) -> tuple[list[str], list[str]]:
    """The cards in one list and not the other (as many times as they differ)."""
    a, b = Counter(recorded), Counter(dealt)
    return sorted((a - b).elements()), sorted((b - a).elements())


def _seat_name(seat: int | None) -> str:
    return f"seat {seat + 1}" if seat is not None else "the table"


def _missing(where: str, recorded: Event | None, dealt: Event | None) -> str:
    """A seeded event that only one side has, in words."""
    if recorded is None and dealt is not None:
        return f"{where}: this seed gives a {dealt['type']} the record does not have."
    if recorded is not None:
        return f"{where}: the record has a {recorded.get('type')} this seed does not give."
    raise ValueError("Two missing events do not differ.")


def _difference(seq: int, recorded: Event | None, dealt: Event | None) -> str:
    """One recorded event that the seed does not give, in words."""
    where = f"Event #{seq}"
    if recorded is None or dealt is None:
        return _missing(where, recorded, dealt)
    kind = dealt["type"]
    if recorded.get("type") != kind:
        return f"{where}: the record has a {recorded.get('type')} where this seed gives a {kind}."
    if kind == "hand":
        if recorded.get("seat") != dealt["seat"]:
            return f"{where}: the record deals a hand to another seat than this seed does."
        extra, missing = _differing(recorded.get("cards", []), dealt["cards"])
        return (
            f"{where}: {_seat_name(dealt['seat'])}'s dealt hand differs: the record has "
            f"{_cards(extra)} where this seed deals {_cards(missing)}."
        )
    if kind == "deal":
        starter = recorded.get("starter")
        if starter != dealt["starter"]:
            return (
                f"{where}: the starting discard differs: the record has "
                f"{_cards([starter] if starter else [])}, "
                f"this seed turns {_cards([dealt['starter']])}."
            )
        if recorded.get("set_aside") != dealt["set_aside"]:
            return (
                f"{where}: the cards set aside under the starter differ: the record has "
                f"{_cards(recorded.get('set_aside') or [])}, this seed gives "
                f"{_cards(dealt['set_aside'])}."
            )
        return f"{where}: the deal's dealer, hand sizes or first player differ."
    if kind == "drew":
        extra, missing = _differing(recorded.get("cards", []), dealt["cards"])
        return (
            f"{where}: the cards {_seat_name(dealt['seat'])} drew differ: the record has "
            f"{_cards(extra)} where this seed gives {_cards(missing)}."
        )
    if kind == "reshuffle":
        return (
            f"{where}: the reshuffle differs: the record has {recorded.get('size')} cards, "
            f"this seed {dealt['size']}."
        )
    return f"{where}: the {kind} differs from what this seed gives."
