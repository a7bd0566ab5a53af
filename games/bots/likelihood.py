"""How likely the other seats' moves were in a sampled world, read as moves of Normal.

Hard's sampler deals the hidden cards consistently with what the seat knows, but every
such deal is equally likely to it. The other seats' moves say more: a seat that turned play
to Blue with a matching number, when it could have stayed in Yellow, holds few Yellows if
it plays like Normal (which sheds the colour it holds least of); one that named Green with
a Wild holds Greens; one that drew had nothing playable, and the cards it still holds from
then were unplayable then.

`Trails.build(view, history)` reads the seat's own visible events once per decision: for
each other seat, its plays and draws since it last took part in a trade (whose cards nobody
else saw), each play with the public table as it was then (top card, colour, hand sizes,
direction, and what everyone had seen: voids and Wild colours, as Normal remembers them).
`Trails.log_weight(hands, rng)` then walks each seat's trail backwards from its sampled
hand: a play puts the card back, a draw takes the drawn cards out (the one played at once
if it was, else cards that were unplayable then, else any), so the walk knows the hand each
move was chosen from, and scores the move by a softened Normal:

- a card played by choice: Normal's card scores as a softmax at `TEMPERATURE`, mixed with
  `EPSILON` of a uniform choice (other players are not Normal, and the walk's guesses about
  which cards were drawn are guesses);
- a Wild's colour: the same over Normal's colour scores;
- a draw on the seat's turn: the hand it drew from had no playable card, else `EPSILON`.

The search draws its worlds from a pool of samples in proportion to these weights
(sampling-importance-resampling, `resample`). Only public events and the seat's own are
read, so nothing here can see a hidden card.
"""

import math
from collections import Counter

from games.engine.cards import COLOR, FACE, IS_WILD, KIND, PLAYABLE, REVERSE

from .policies import EMPTY_PREF, Ctx, card_scores, wild_scores

TEMPERATURE = 2.0
EPSILON = 0.05
# Trails older than this many of a seat's moves say little about its hand now.
MAX_TRAIL = 16


class _Play:
    __slots__ = ("card", "color", "state", "top", "in_play")

    def __init__(self, card, color, state, top, in_play):
        self.card = card
        self.color = color  # the colour named, for a Wild
        self.state = state  # the public table before the play, None if it showed no choice
        self.top = top
        self.in_play = in_play


class _Draw:
    __slots__ = ("count", "turn", "top", "in_play", "then_played")

    def __init__(self, count, turn, top, in_play):
        self.count = count
        self.turn = turn  # drawn on the seat's own turn: it had nothing playable
        self.top = top
        self.in_play = in_play
        self.then_played = False  # the drawn card was played at once


class _Public:
    """The public table as `Trails._fold` follows it from event to event: top card, colour in
    play, hand sizes (None before a `deal`), direction, who has left, what everyone has seen
    (voids, Wild colours), the seat that just drew on its turn and a Wild Team Play awaiting
    its answer (seat, colour)."""

    __slots__ = (
        "n",
        "top",
        "color",
        "sizes",
        "direction",
        "departed",
        "voids",
        "chose",
        "drew",
        "wtp",
    )

    def __init__(self, n):
        self.n = n
        self.top = self.color = None
        self.sizes = None
        self.direction = 1
        self.departed = [False] * n
        self.voids = {s: set() for s in range(n)}
        self.chose = {s: [] for s in range(n)}
        self.drew = None
        self.wtp = None

    def ctx(self, s):
        """Normal's view of the table before seat s plays, copied so later events leave it."""
        return Ctx(
            s,
            self.n,
            None,
            list(self.sizes),
            list(self.departed),
            self.direction,
            self.top,
            self.color,
            0,
            EMPTY_PREF,
            {k: set(v) for k, v in self.voids.items()},
            {k: list(v) for k, v in self.chose.items()},
        )


class Trails:
    """Per other seat, its moves since its last unseen trade, oldest first."""

    __slots__ = ("seat", "n", "half", "trails")

    def __init__(self, seat, n):
        self.seat = seat
        self.n = n
        self.half = n // 2
        self.trails = {s: [] for s in range(n) if s != seat}

    @classmethod
    def build(cls, view, history):
        t = cls(view["seat"], view["players"])
        t._fold(history)
        return t

    def _fold(self, history):
        """Each kind of event has its handler (`_FOLDS`); kinds without one say nothing, and
        nothing is read before the history's first `deal`, which anchors the hand sizes."""
        table = _Public(self.n)
        for e in history:
            t = e["type"]
            if t != "deal" and table.sizes is None:
                continue  # the round began before this history: nothing to anchor to
            handler = self._FOLDS.get(t)
            if handler is not None:
                handler(self, e, table)
        trails = self.trails
        for s in trails:
            trails[s] = trails[s][-MAX_TRAIL:]

    def _fold_deal(self, e, table):
        trails = self.trails
        for s in trails:
            trails[s] = []
        table.top, table.color = e["starter"], COLOR[e["starter"]]
        table.sizes = list(e["hand_sizes"])
        table.direction = 1
        table.voids = {s: set() for s in range(self.n)}
        table.chose = {s: [] for s in range(self.n)}
        table.drew = table.wtp = None

    def _fold_play(self, e, table):
        trails = self.trails
        s, c = e["seat"], e["card"]
        if s in trails:
            forced = table.drew == s
            state = None if forced else table.ctx(s)
            if forced and trails[s] and isinstance(trails[s][-1], _Draw):
                trails[s][-1].then_played = True
            trails[s].append(_Play(c, e["color"], state, table.top, table.color))
        table.sizes[s] -= 1
        table.top, table.color = c, e["color"]
        if c in IS_WILD:
            table.chose[s].append(e["color"])
        elif KIND[c] == REVERSE:
            table.direction = -table.direction
        table.wtp = (s, e["color"]) if c == "WTP" else None
        table.drew = None

    def _fold_draw(self, e, table):
        s, k = e["seat"], e["count"]
        turn = e["reason"] == "turn"
        if s in self.trails:
            self.trails[s].append(_Draw(k, turn, table.top, table.color))
        table.sizes[s] += k
        table.drew = s if turn else None
        voids, wtp = table.voids, table.wtp
        if turn:
            voids[s].update((table.color, "W"))
        else:
            if e["reason"] == "team_play" and wtp and wtp[0] == s:
                voids[(s + self.half) % self.n].update((wtp[1], "W"))
            voids[s].clear()
        table.wtp = None

    def _fold_swap(self, e, table):
        for s in e["seats"]:
            table.voids[s].clear()
            if s in self.trails:
                self.trails[s] = []  # a card came in that only its partner saw

    def _fold_give(self, e, table):
        s, to = e["seat"], e["to"]
        table.sizes[s] -= e["count"]
        table.sizes[to] += e["count"]
        table.voids[to].clear()
        for x in (s, to):
            if x in self.trails:
                self.trails[x] = []

    def _fold_concede(self, e, table):
        team, half = e["team"], self.half
        table.departed[team] = table.departed[team + half] = True
        table.sizes[team] = table.sizes[team + half] = 0

    _FOLDS = {
        "deal": _fold_deal,
        "play": _fold_play,
        "draw": _fold_draw,
        "swap": _fold_swap,
        "setup_pass": _fold_swap,
        "give": _fold_give,
        "concede": _fold_concede,
    }

    def log_weight(self, hands, rng):
        """The log-likelihood of every other seat's trail, given the sampled `hands`."""
        total = 0.0
        for s, trail in self.trails.items():
            if trail:
                total += _seat_log_weight(trail, hands[s], rng)
        return total


def _playable(cards, top, color):
    ok = PLAYABLE[(FACE[top], color)]
    return [c for c in cards if c in ok]


def _seat_log_weight(trail, hand_now, rng):
    hand = Counter(hand_now)
    total = 0.0
    for item in reversed(trail):
        if isinstance(item, _Play):
            hand[item.card] += 1
            state = item.state
            if state is None:
                continue
            held = list(hand.elements())
            options = list(dict.fromkeys(_playable(held, item.top, item.in_play)))
            if len(options) > 1:
                state.hand = held
                total += _log_choice(card_scores(state, options), item.card)
            if item.card in IS_WILD:
                state.hand = held
                total += _log_choice(wild_scores(state, item.card), item.color)
        else:
            held = list(hand.elements())
            k = min(item.count, len(held))
            if item.then_played:
                # The drawn card was played at once: the walk has just put it back, and it
                # is the one card this draw brought.
                k -= 1
                hand[_played_after(trail, item)] -= 1
                held = list((+hand).elements())
            if k > 0:
                if item.turn:
                    stay = [c for c in held if c not in PLAYABLE[(FACE[item.top], item.in_play)]]
                    pick = stay if len(stay) >= k else held
                else:
                    pick = held
                for c in rng.sample(pick, k):
                    hand[c] -= 1
            hand = +hand
            if item.turn and _playable(hand, item.top, item.in_play):
                total += math.log(EPSILON)
    return total


def _played_after(trail, draw):
    """The card played straight after `draw` in its seat's trail."""
    i = trail.index(draw)
    return trail[i + 1].card


def _log_choice(scores, chosen):
    """log P(chosen) under a softmax of `scores` at TEMPERATURE, mixed with EPSILON of a
    uniform choice."""
    top = max(scores.values())
    z = 0.0
    for v in scores.values():
        z += math.exp((v - top) / TEMPERATURE)
    p = math.exp((scores[chosen] - top) / TEMPERATURE) / z
    return math.log((1.0 - EPSILON) * p + EPSILON / len(scores))


def resample(weights, rng):
    """An index drawn in proportion to `weights` (log-weights already exponentiated)."""
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0.0:
            return i
    return len(weights) - 1
