"""The state of a game of Wild Cards Teams and the rules that move it.

A `GameState` (the contract's `Game`) is plain data plus the rules. Decisions come in
through `act`, which validates everything first (raising `IllegalAction` and changing
nothing), then applies the decision and returns the events it caused. Effects that must wait
for somebody's choice (the effect of a card after a half pass, the rest of a Wild Team Draw 4
after a tag-in pass) are kept as a small stack of continuation steps, `ops`, run as soon as
the pending choice is made.

What each seat may see is in `visibility.py`; the time-out moves in `auto.py`.
"""

from collections.abc import Callable
from typing import Self, cast

from . import auto, visibility
from .card_effects import CardEffects
from .cards import (
    COLOR,
    COLOR_NAMES,
    COLORS,
    FACE,
    IS_DRAW2,
    IS_WILD,
    PLAYABLE,
    POINTS,
    RANK,
    card_name,
)
from .common import (
    FORCED,
    GIVE,
    OVER,
    PICK_SWAP,
    PLAY,
    SETUP,
    IllegalAction,
    rank,
)
from .deal import Dealing
from .ending import Ending
from .options import Options
from .snapshot import Snapshot
from .trades import Trades
from .types import Action, Event, SeatView, Step


class GameState(Dealing, CardEffects, Trades, Ending, Snapshot):
    # The fields (and their slots) are those of state.State, which every mixin derives from.
    __slots__ = ()

    # ------------------------------------------------------------------ construction

    def _blank(self, options: Options, seed: int | str) -> None:
        if not isinstance(options, Options):
            raise ValueError("options must be an Options")
        n = options.players
        self.options = options
        self.n = n
        self.half = n // 2
        self.seed = seed
        self.round = 1
        self.dealer = 0
        self.hands = [[] for _ in range(n)]
        self.draw = []  # top of the pile is the END of the list
        self.discard = []  # top is the end
        self.color = None
        self.scores = [0] * self.half
        self.departed = [False] * self.half
        self.left = []  # teams in the order they left
        self.last_points = [0] * self.half
        self.stage = PLAY
        self._reset_round()
        self.round_over = None
        self.last_round = None
        self.game_over = None

    @classmethod
    def new(cls, options: Options, seed: int | str) -> Self:
        """A new game: round 1 dealt from a shuffle fixed by `seed`, the setup pass pending."""
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise ValueError("The seed must be a whole number or a string.")
        g = cls.__new__(cls)
        g._blank(options, seed)
        g._deal([])
        return g

    @classmethod
    def from_position(
        cls,
        options: Options,
        *,
        hands: list[list[str]],
        draw_pile: list[str],
        discard: list[str],
        turn: int,
        direction: int = 1,
        color: str | None = None,
        dealer: int = 0,
        scores: list[int] | None = None,
        seed: int | str = 0,
    ) -> Self:
        """A position in the middle of round 1 with `turn` to act and no choice pending.

        hands: per seat, lists of codes (an empty hand is an out seat). draw_pile: first is the
        top. discard: last is the top. color defaults to the top card's colour and is required
        when the top card is a Wild. scores: per-team totals carried in.
        """
        g = cls.__new__(cls)
        g._blank(options, seed)
        n = g.n
        _check_cards(n, hands, draw_pile, discard)
        g.hands = [sorted(h, key=rank) for h in hands]
        for s in range(g.half):
            if not g.hands[s] and not g.hands[s + g.half]:
                raise ValueError(f"Both partners of team {s} have empty hands: that team has won.")
        g.draw = list(reversed(draw_pile))
        g.discard = list(discard)
        top = g.discard[-1]
        if color is None:
            color = COLOR[top]
            if color is None:
                raise ValueError("Say which colour is in play on top of a Wild.")
        if color not in COLORS:
            raise ValueError(f"{color!r} is not a colour (R, Y, G or B).")
        g.color = color
        if direction not in (1, -1):
            raise ValueError("direction is 1 (clockwise) or -1.")
        g.direction = direction
        if type(turn) is not int or not 0 <= turn < n or not g.hands[turn]:
            raise ValueError("turn must be a seat that holds cards.")
        g.turn = turn
        if type(dealer) is not int or not 0 <= dealer < n:
            raise ValueError("dealer must be a seat.")
        g.dealer = dealer
        if scores is not None:
            if len(scores) != g.half:
                raise ValueError(f"Give one score for each of the {g.half} teams.")
            g.scores = [int(x) for x in scores]
        return g

    @classmethod
    def from_view(
        cls,
        view: SeatView,
        *,
        hands: list[list[str]],
        draw_pile: list[str],
        seed: int | str = 0,
        history: list[Event] | None = None,
    ) -> Self:
        """A game consistent with what one seat sees, with the hidden cards filled in by the
        caller (a guess): how a searching bot imagines the table. hands: every seat's cards,
        the viewer's own included; draw_pile: first is the top.

        Works for an ordinary turn or a waiting penalty, and for the choices the viewer is
        asked to make: the setup pass and a symbol swap (the other choosers' picks are
        unknown, so they are left to be made again), the card it drew and must play, and a
        half pass or tag-in give. What follows a tag-in give depends on how the viewer came
        to draw, which only its events tell: pass `history` (the viewer's visible events).
        Raises ValueError for anything else."""
        decision = view.get("decision")
        if decision not in ("turn", "penalty", "setup", "swap", "forced", "give"):
            raise ValueError("from_view needs a position where somebody is to play or choose.")
        n = view["players"]
        if len(hands) != n or [len(h) for h in hands] != view["hand_sizes"]:
            raise ValueError("The guessed hands do not match the hand sizes in the view.")
        if len(draw_pile) != view["draw_pile_size"]:
            raise ValueError("The guessed draw pile does not match its size in the view.")
        g = cls.__new__(cls)
        g._blank(Options.from_dict(view["options"]), seed)
        g.round = view["round"]
        g.dealer = view["dealer"]
        g.hands = [sorted(h, key=rank) for h in hands]
        g.draw = list(reversed(draw_pile))
        g.discard = list(view["discard"])
        g.color = view["color"]
        g.direction = view["direction"]
        g.turn = view["turn"]
        g.scores = list(view["scores"])
        g.departed = [view["departed"][t] for t in range(g.half)]
        g.penalty = view["penalty"]
        me = view.get("seat")
        if me is not None:  # the viewer's own latest trade, so its view comes out the same
            g.received[me] = list(view.get("received", ()))
            g.gave[me] = list(view.get("gave", ()))
        if decision in ("setup", "swap"):
            g.pending = decision
            g.pickers = list(view["choosing"])
            if me in g.pickers and view.get("my_pick") is not None:
                g.picks[me] = view["my_pick"]
            if decision == "setup":
                g.stage = SETUP
            else:
                # A symbol swap: the player of the passing card moves on once it is done.
                g.ops = [["next", view["turn"]]]
        elif decision == "forced":
            code = view.get("must_play")
            if code is None or code not in g.hands[cast(int, view["turn"])]:
                raise ValueError("Only the seat that must play its drawn card knows it.")
            g.pending = FORCED
            g.forced = code
        elif decision == "give":
            giver = cast(int, view["giving"])
            g.pending = GIVE
            g.give_seat = giver
            g.give_count = view["give_count"]
            g.give_reason = view["give_reason"]
            g.ops = _give_continuation(view, giver, g.partner(giver), history)
        return g

    # ------------------------------------------------------------------ small helpers

    def partner(self, seat: int) -> int:
        return (seat + self.half) % self.n

    def _next_in(self, s: int) -> int | None:
        """The next seat in the direction of play that holds cards (out and departed seats,
        whose hands are empty, are passed over)."""
        n, d, hands = self.n, self.direction, self.hands
        for _ in range(n):
            s = (s + d) % n
            if hands[s]:
                return s
        return None

    def _adjacent(self, s: int) -> int | None:
        """The next seat in the direction of play, in or out; departed seats are skipped."""
        n, d, departed, half = self.n, self.direction, self.departed, self.half
        for _ in range(n):
            s = (s + d) % n
            if not departed[s % half]:
                return s
        return None

    def _playable(self) -> frozenset[str]:
        return PLAYABLE[(FACE[self.discard[-1]], self.color)]

    def _can_draw(self) -> bool:
        return bool(self.draw) or len(self.discard) > 1

    def _team_points(self, team: int) -> int:
        h = self.hands
        return sum(POINTS[c] for c in h[team]) + sum(POINTS[c] for c in h[team + self.half])

    def waiting_on(self) -> list[int]:
        """Seats that have a decision pending now."""
        p = self.pending
        if p is None:
            return [] if self.turn is None or self.stage != PLAY else [self.turn]
        if p is GIVE or p == GIVE:
            return [cast(int, self.give_seat)]
        if p == FORCED:
            return [cast(int, self.turn)]
        return [s for s in self.pickers if self.picks[s] is None]

    def must_give(self, seat: int) -> int:
        return self.give_count if self.pending == GIVE and self.give_seat == seat else 0

    # ------------------------------------------------------------------ the public surface

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat` now but `concede`; [] when it has nothing to decide.
        One entry per distinct card code, one per colour for a Wild. A `give` is not listed:
        the view's `must_give` says how many cards to give."""
        pending = self.pending
        if pending is None:
            if seat != self.turn:  # also None once the game is over
                return []
            return self._turn_actions(self.hands[seat])
        if pending == FORCED:
            if seat != self.turn:
                return []
            c = cast(str, self.forced)
            if c in IS_WILD:
                return [{"type": "play", "card": c, "color": k} for k in COLORS]
            return [{"type": "play", "card": c}]
        if pending == GIVE:
            return []
        if seat in self.pickers and self.picks[seat] is None:
            return [{"type": "pass", "card": c} for c in dict.fromkeys(self.hands[seat])]
        return []

    def _turn_actions(self, hand: list[str]) -> list[Action]:
        """The legal actions of an ordinary turn, or of a turn with a penalty waiting."""
        if self.penalty:
            acts: list[Action] = [
                {"type": "play", "card": c} for c in dict.fromkeys(hand) if c in IS_DRAW2
            ]
            acts.append({"type": "take_penalty"})
            return acts
        playable = PLAYABLE[(FACE[self.discard[-1]], self.color)]
        acts = []
        prev = None
        for c in hand:  # in hand order, so copies of a card sit side by side
            if c != prev and c in playable:
                if c in IS_WILD:
                    acts += [{"type": "play", "card": c, "color": k} for k in COLORS]
                else:
                    acts.append({"type": "play", "card": c})
            prev = c
        if not acts:
            return (
                [{"type": "draw"}]
                if self.draw or len(self.discard) > 1
                else [{"type": "pass_turn"}]
            )
        return acts

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply one decision of `seat` and return the events it caused.

        Raises IllegalAction, with a message for the player, and changes nothing, when the
        action is not legal now. Every check happens before the first change.
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(f"There is no seat {seat!r} at this table.")
        if not isinstance(action, dict):
            raise IllegalAction("An action must be a dict with a 'type'.")
        kind = action.get("type")
        if kind == "play" and self.pending is None and seat == self.turn and not self.penalty:
            # The ordinary turn, the hottest path of all: checked inline.
            code = action.get("card")
            hand = self.hands[seat]
            if (
                type(code) is str
                and code in hand
                and code in PLAYABLE[(FACE[self.discard[-1]], self.color)]
            ):
                color = action.get("color")
                if (color in COLORS) if code in IS_WILD else (color is None):
                    ev: list[Event] = []
                    self._play(seat, code, color, ev)
                    return ev
        if self.stage == OVER:
            raise IllegalAction("The game is over.")
        if self.departed[seat % self.half]:
            raise IllegalAction("Your team has left this game.")
        act = _ACTIONS.get(kind) if isinstance(kind, str) else None
        if act is None:
            raise IllegalAction(
                f"Unknown action {kind!r}: play, draw, pass_turn, pass, give, "
                "take_penalty or concede."
            )
        ev = []
        act(self, seat, action, ev)
        return ev

    # ------------------------------------------------------------------ checks and actions

    def _act_play(self, seat: int, action: Action, ev: list[Event]) -> None:
        self._check_play(seat, action)
        self._play(seat, action["card"], action.get("color"), ev)

    def _act_draw(self, seat: int, action: Action, ev: list[Event]) -> None:
        self._check_turn(seat)
        if self.penalty:
            raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
        if not self._playable().isdisjoint(self.hands[seat]):
            raise IllegalAction("You hold a playable card, so you must play instead of drawing.")
        if not self._can_draw():
            raise IllegalAction("There is nothing left to draw: pass your turn.")
        self.passes = 0
        code = self._take(seat, 1, "turn", ev)[0]
        if not self.hands[(seat + self.half) % self.n]:
            # Partner out: the tag-in pass comes before the drawn card is dealt with.
            self.ops.append(["after_draw", seat, code])
            self._tag_in(seat, ev)
        elif code in self._playable():
            self.pending = FORCED
            self.forced = code
        else:
            self.turn = self._next_in(seat)

    def _act_pass_turn(self, seat: int, action: Action, ev: list[Event]) -> None:
        self._check_turn(seat)
        if self.penalty:
            raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
        if not self._playable().isdisjoint(self.hands[seat]):
            raise IllegalAction("You hold a playable card, so you must play it.")
        if self._can_draw():
            raise IllegalAction("You can still draw a card, so you cannot pass.")
        self._pass_turn(seat, ev)

    def _act_take_penalty(self, seat: int, action: Action, ev: list[Event]) -> None:
        self._check_turn(seat)
        if not self.penalty:
            raise IllegalAction("There is no penalty waiting for you.")
        k, self.penalty = self.penalty, 0
        self.passes = 0
        self.ops += [["next", seat], ["hit", seat, k, "penalty"]]
        self._run(ev)

    def _act_concede(self, seat: int, action: Action, ev: list[Event]) -> None:
        self._concede(seat, ev)

    def _check_turn(self, seat: int) -> None:
        if self.stage == SETUP:
            raise IllegalAction("Everyone is still choosing a card to pass to their partner.")
        p = self.pending
        if p == GIVE:
            who = "You" if self.give_seat == seat else f"Seat {self.give_seat}"
            raise IllegalAction(f"{who} must first give {self.give_count} card(s) to a partner.")
        if p == PICK_SWAP:
            raise IllegalAction("The partners are still choosing cards to swap.")
        if seat != self.turn:
            raise IllegalAction("It is not your turn.")
        if p == FORCED:
            raise IllegalAction(
                f"You must play the card you drew, {card_name(cast(str, self.forced))}."
            )

    def _check_play(self, seat: int, action: Action) -> None:
        code = action.get("card")
        if not isinstance(code, str) or code not in RANK:
            raise IllegalAction("Say which card to play, e.g. {'type': 'play', 'card': 'R7'}.")
        color = action.get("color")
        if self.pending == FORCED and seat == self.turn:
            if code != self.forced:
                raise IllegalAction(
                    f"You must play the card you drew, {card_name(cast(str, self.forced))}."
                )
        else:
            self._check_turn(seat)
        if code not in self.hands[seat]:
            raise IllegalAction(f"You do not hold {card_name(code)}.")
        if self.penalty:
            if code not in IS_DRAW2:
                raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
        elif code not in self._playable():
            top = self.discard[-1]
            on = (
                card_name(top)
                if COLOR[top]
                else (f"{card_name(top)} ({COLOR_NAMES[cast(str, self.color)]})")
            )
            raise IllegalAction(f"{card_name(code)} cannot be played on {on}.")
        if code in IS_WILD:
            if color not in COLORS:
                raise IllegalAction("Choose a colour for your Wild: R, Y, G or B.")
        elif color is not None:
            raise IllegalAction("Only a Wild takes a colour.")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # a game changes: it is no dict key

    def __repr__(self) -> str:
        return (
            f"<GameState {self.n}p round {self.round} stage {self.stage} turn {self.turn} "
            f"pending {self.pending}>"
        )

    # What a seat sees and the time-out moves live in their own modules.
    view = visibility.view
    auto_action = auto.auto_action


# What `act` does for each kind of action (but the ordinary turn, checked inline there).
_ACTIONS: dict[str, Callable[[GameState, int, Action, list[Event]], None]] = {
    "play": GameState._act_play,
    "pass": GameState._act_pick,
    "draw": GameState._act_draw,
    "pass_turn": GameState._act_pass_turn,
    "take_penalty": GameState._act_take_penalty,
    "give": GameState._act_give,
    "concede": GameState._act_concede,
}


def _check_cards(n: int, hands: list[list[str]], draw_pile: list[str], discard: list[str]) -> None:
    """Game.from_position's checks of the cards it is given: a hand per seat, every code a
    card, a top card on the discard pile. Raises ValueError."""
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"Give one hand for each of the {n} seats.")
    for cards in [*hands, draw_pile, discard]:
        for c in cards:
            if c not in RANK:
                raise ValueError(f"{c!r} is not a card.")
    if not discard:
        raise ValueError("The discard pile needs a top card.")


def _give_continuation(
    view: SeatView, giver: int, partner: int, history: list[Event] | None
) -> list[Step]:
    """The steps that wait on a half pass or tag-in give, rebuilt from public facts.

    A half pass follows the giver's partner playing its last card: that card's effect comes
    next. A tag-in follows a draw of the giver, and what comes next depends on why it drew:
    its own turn (the drawn card may have to be played), a Wild Team Play penalty, or a
    penalty (after a Wild Team Draw 4's first victim, the second still draws)."""
    if view["give_reason"] == "half_pass":
        return [["effect", partner, view["discard"][-1], True]]
    if history is None:
        raise ValueError("Rebuilding a tag-in give needs the giver's events.")
    events = list(history)
    k = len(events) - 1
    while k >= 0 and not (
        events[k]["type"] == "draw" and events[k]["seat"] == giver and events[k]["count"]
    ):
        k -= 1
    if k < 0:
        raise ValueError("No draw of the giver explains this tag-in.")
    reason = events[k]["reason"]
    if reason == "turn":
        drew = next(
            (e for e in events[k + 1 :] if e["type"] == "drew" and e["seat"] == giver), None
        )
        if drew is None:
            raise ValueError("Only the giver knows the card it drew.")
        return [["after_draw", giver, drew["cards"][0]]]
    if reason == "team_play":
        return [["next", partner]]
    j = k - 1
    while j >= 0 and events[j]["type"] != "play":
        j -= 1
    if j >= 0 and events[j]["card"] == "WTD4":
        hits = [e for e in events[j + 1 : k] if e["type"] == "draw" and e["reason"] == "penalty"]
        if not hits:  # the giver is the first victim: its partner draws two after the give
            return [["next", giver], ["hit", partner, 2, "penalty"]]
        return [["next", hits[0]["seat"]]]
    return [["next", giver]]
