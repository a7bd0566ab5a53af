"""The state of a game of Wild Cards Teams and the rules that move it.

A `Game` is plain data plus the rules. Decisions come in through `act`, which validates
everything first (raising `IllegalAction` and changing nothing), then applies the decision
and returns the events it caused. Effects that must wait for somebody's choice (the effect of
a card after a half pass, the rest of a Wild Team Draw 4 after a tag-in pass) are kept as a
small stack of continuation steps, `ops`, run as soon as the pending choice is made.

What each seat may see is in `views.py`; the time-out moves in `auto.py`.
"""

import random
from bisect import insort

from .cards import (
    COLOR,
    COLORS,
    DECK,
    DRAW2,
    FACE,
    IS_DRAW2,
    IS_NUMBER,
    IS_WILD,
    KIND,
    NUMBER,
    PASSING,
    PLAYABLE,
    POINTS,
    RANK,
    REVERSE,
    SKIP,
    TEAM_DRAW4,
    TEAM_PLAY,
    WILD,
    card_name,
    COLOR_NAMES,
)
from . import auto, views
from .options import Options

SETUP, PLAY, OVER = "setup", "play", "over"
# Pending decisions other than an ordinary turn.
PICK_SETUP, PICK_SWAP, GIVE, FORCED = "setup", "swap", "give", "forced"

_rank = RANK.__getitem__


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message is meant for the player."""


class Game:
    __slots__ = (
        "options", "n", "half", "seed", "round", "dealer", "hands", "draw", "discard",
        "color", "direction", "turn", "scores", "departed", "left", "last_points", "stage",
        "pending", "pickers", "picks", "give_seat", "give_count", "give_reason", "forced",
        "penalty", "ops", "passes", "reshuffles", "received", "gave", "round_over",
        "last_round", "game_over",
    )

    # ------------------------------------------------------------------ construction

    def _blank(self, options, seed):
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
        self.direction = 1
        self.turn = None
        self.scores = [0] * self.half
        self.departed = [False] * self.half
        self.left = []  # teams in the order they left
        self.last_points = [0] * self.half
        self.stage = PLAY
        self.pending = None
        self.pickers = []
        self.picks = [None] * n
        self.give_seat = None
        self.give_count = 0
        self.give_reason = None
        self.forced = None
        self.penalty = 0
        self.ops = []
        self.passes = 0
        self.reshuffles = 0
        self.received = [[] for _ in range(n)]
        self.gave = [[] for _ in range(n)]
        self.round_over = None
        self.last_round = None
        self.game_over = None

    @classmethod
    def new(cls, options, seed):
        """A new game: round 1 dealt from a shuffle fixed by `seed`, the setup pass pending."""
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise ValueError("The seed must be a whole number or a string.")
        g = cls.__new__(cls)
        g._blank(options, seed)
        g._deal([])
        return g

    @classmethod
    def from_position(cls, options, *, hands, draw_pile, discard, turn, direction=1,
                      color=None, dealer=0, scores=None, seed=0):
        """A position in the middle of round 1 with `turn` to act and no choice pending.

        hands: per seat, lists of codes (an empty hand is an out seat). draw_pile: first is the
        top. discard: last is the top. color defaults to the top card's colour and is required
        when the top card is a Wild. scores: per-team totals carried in.
        """
        g = cls.__new__(cls)
        g._blank(options, seed)
        n = g.n
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"Give one hand for each of the {n} seats.")
        for cards in [*hands, draw_pile, discard]:
            for c in cards:
                if c not in RANK:
                    raise ValueError(f"{c!r} is not a card.")
        if not discard:
            raise ValueError("The discard pile needs a top card.")
        g.hands = [sorted(h, key=_rank) for h in hands]
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
    def from_view(cls, view, *, hands, draw_pile, seed=0):
        """A game consistent with what one seat sees, with the hidden cards filled in by the
        caller (a guess): how a searching bot imagines the table. Only for an ordinary turn
        or a waiting penalty (no other choice pending). hands: every seat's cards, the
        viewer's own included; draw_pile: first is the top. Raises ValueError otherwise."""
        if view.get("decision") not in ("turn", "penalty"):
            raise ValueError("from_view needs a position where somebody is to play.")
        n = view["players"]
        if len(hands) != n or [len(h) for h in hands] != view["hand_sizes"]:
            raise ValueError("The guessed hands do not match the hand sizes in the view.")
        if len(draw_pile) != view["draw_pile_size"]:
            raise ValueError("The guessed draw pile does not match its size in the view.")
        g = cls.__new__(cls)
        g._blank(Options.from_dict(view["options"]), seed)
        g.round = view["round"]
        g.dealer = view["dealer"]
        g.hands = [sorted(h, key=_rank) for h in hands]
        g.draw = list(reversed(draw_pile))
        g.discard = list(view["discard"])
        g.color = view["color"]
        g.direction = view["direction"]
        g.turn = view["turn"]
        g.scores = list(view["scores"])
        g.departed = [view["departed"][t] for t in range(g.half)]
        g.penalty = view["penalty"]
        return g

    # ------------------------------------------------------------------ small helpers

    def partner(self, seat):
        return (seat + self.half) % self.n

    def _next_in(self, s):
        """The next seat in the direction of play that holds cards (out and departed seats,
        whose hands are empty, are passed over)."""
        n, d, hands = self.n, self.direction, self.hands
        for _ in range(n):
            s = (s + d) % n
            if hands[s]:
                return s
        return None

    def _adjacent(self, s):
        """The next seat in the direction of play, in or out; departed seats are skipped."""
        n, d, departed, half = self.n, self.direction, self.departed, self.half
        for _ in range(n):
            s = (s + d) % n
            if not departed[s % half]:
                return s
        return None

    def _is_out(self, s):
        return not self.hands[s] and bool(self.hands[(s + self.half) % self.n])

    def _playable(self):
        return PLAYABLE[(FACE[self.discard[-1]], self.color)]

    def _can_draw(self):
        return bool(self.draw) or len(self.discard) > 1

    def _team_points(self, team):
        h = self.hands
        return sum(POINTS[c] for c in h[team]) + sum(POINTS[c] for c in h[team + self.half])

    def waiting_on(self):
        """Seats that have a decision pending now."""
        p = self.pending
        if p is None:
            return [] if self.turn is None or self.stage != PLAY else [self.turn]
        if p is GIVE or p == GIVE:
            return [self.give_seat]
        if p == FORCED:
            return [self.turn]
        return [s for s in self.pickers if self.picks[s] is None]

    def must_give(self, seat):
        return self.give_count if self.pending == GIVE and self.give_seat == seat else 0

    # ------------------------------------------------------------------ dealing

    def _deal(self, ev):
        """Shuffle, deal seven each from the seat after the dealer, turn the starter card,
        and open the setup pass."""
        rng = random.Random(f"{self.seed}:{self.round}:0")
        deck = list(DECK)
        rng.shuffle(deck)
        n, half, departed = self.n, self.half, self.departed
        seats = [(self.dealer + i) % n for i in range(1, n + 1)]
        seats = [s for s in seats if not departed[s % half]]
        hands = [[] for _ in range(n)]
        for _ in range(7):
            for s in seats:
                hands[s].append(deck.pop())
        for h in hands:
            h.sort(key=_rank)
        set_aside = []
        while True:
            c = deck.pop()
            if c in IS_NUMBER:
                break
            set_aside.append(c)
        self.hands = hands
        self.draw = deck
        self.discard = set_aside + [c]
        self.color = COLOR[c]
        self.direction = 1
        self.turn = None
        self.stage = SETUP
        self.pending = PICK_SETUP
        self.pickers = sorted(seats)
        self.picks = [None] * n
        self.give_seat = None
        self.give_count = 0
        self.give_reason = None
        self.forced = None
        self.penalty = 0
        self.ops = []
        self.passes = 0
        self.reshuffles = 0
        self.received = [[] for _ in range(n)]
        self.gave = [[] for _ in range(n)]
        ev.extend(self._deal_events())

    def _deal_events(self):
        first = self._first_player()
        ev = [{
            "type": "deal", "round": self.round, "dealer": self.dealer,
            "starter": self.discard[-1], "set_aside": self.discard[:-1],
            "hand_sizes": [len(h) for h in self.hands], "first": first, "visible_to": None,
        }]
        for s, h in enumerate(self.hands):
            if h:
                ev.append({"type": "hand", "seat": s, "cards": list(h), "visible_to": [s]})
        return ev

    def initial_events(self):
        """The events of the opening deal (a public `deal` and each seat's private `hand`),
        valid until the first pick of the setup pass: Game.new itself returns none."""
        if self.stage != SETUP or self.round != 1 or any(p is not None for p in self.picks):
            raise IllegalAction("The deal is already under way.")
        return self._deal_events()

    def _first_player(self):
        n, half = self.n, self.half
        s = self.dealer
        for _ in range(n):
            s = (s + 1) % n
            if not self.departed[s % half]:
                return s
        return None

    # ------------------------------------------------------------------ drawing

    def _reshuffle(self, ev):
        if len(self.discard) <= 1:
            return False
        cards = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.reshuffles += 1
        random.Random(f"{self.seed}:{self.round}:{self.reshuffles}").shuffle(cards)
        self.draw = cards
        ev.append({"type": "reshuffle", "size": len(cards), "visible_to": None})
        return True

    def _take(self, s, k, reason, ev):
        """Seat s draws up to k cards (reshuffling when needed); returns how many it got."""
        draw = self.draw
        hand = self.hands[s]
        got = []
        for _ in range(k):
            if not draw:
                if not self._reshuffle(ev):
                    break
                draw = self.draw
            c = draw.pop()
            got.append(c)
            insort(hand, c, key=_rank)
        ev.append({"type": "draw", "seat": s, "count": len(got), "reason": reason,
                   "visible_to": None})
        if got:
            ev.append({"type": "drew", "seat": s, "cards": got, "visible_to": [s]})
        return got

    def _hit(self, v, k, reason, ev):
        """A penalty draw for seat v. An out seat comes back in (no half pass follows); an in
        seat whose partner is out hands over half its hand (the tag-in pass)."""
        if self.departed[v % self.half]:
            return
        was_out = not self.hands[v]
        got = self._take(v, k, reason, ev)
        if not got:
            return
        if was_out:
            ev.append({"type": "in", "seat": v, "visible_to": None})
        else:
            self._tag_in(v, ev)

    def _tag_in(self, s, ev):
        p = (s + self.half) % self.n
        if not self.hands[p]:
            self._ask_give(s, len(self.hands[s]) // 2, "tag_in")

    def _ask_give(self, s, k, reason):
        self.pending = GIVE
        self.give_seat = s
        self.give_count = k
        self.give_reason = reason

    # ------------------------------------------------------------------ running effects

    def _run(self, ev):
        """Run continuation steps until one of them needs a decision or none are left."""
        ops = self.ops
        while ops and self.pending is None and self.stage == PLAY:
            op = ops.pop()
            kind = op[0]
            if kind == "next":
                self.turn = self._next_in(op[1])
            elif kind == "hit":
                self._hit(op[1], op[2], op[3], ev)
            elif kind == "effect":
                self._effect(op[1], op[2], op[3], ev)
            elif kind == "after_draw":
                s, code = op[1], op[2]
                self.turn = s
                if code in self.hands[s] and code in self._playable():
                    self.pending = FORCED
                    self.forced = code
                else:
                    ops.append(["next", s])
            else:  # pragma: no cover - a corrupt snapshot
                raise RuntimeError(f"unknown step {op!r}")

    def _effect(self, s, code, was_last, ev):
        """The effect of a card seat s played (after any half pass), then the turn moves on."""
        kind = KIND[code]
        if kind == NUMBER or kind == WILD:
            self.turn = self._next_in(s)
        elif kind == PASSING:
            p = (s + self.half) % self.n
            if not was_last and self.hands[s] and self.hands[p]:
                self.ops.append(["next", s])
                self.pending = PICK_SWAP
                self.pickers = [s, p] if s < p else [p, s]
                self.picks = [None] * self.n
                self.turn = s
            else:
                self.turn = self._next_in(s)
        elif kind == SKIP:
            v = self._next_in(s)
            ev.append({"type": "skip", "seat": v, "visible_to": None})
            self.turn = self._next_in(v)
        elif kind == REVERSE:
            self.direction = -self.direction
            ev.append({"type": "reverse", "direction": self.direction, "visible_to": None})
            self.turn = self._next_in(s)
        elif kind == DRAW2:
            v = self._adjacent(s)
            if self.options.stacking:
                self.penalty += 2
                ev.append({"type": "penalty", "seat": v, "total": self.penalty,
                           "visible_to": None})
                if self.hands[v]:
                    self.turn = v
                else:  # an out seat takes a waiting penalty at once
                    k, self.penalty = self.penalty, 0
                    self.ops += [["next", v], ["hit", v, k, "penalty"]]
            else:
                self.ops += [["next", v], ["hit", v, 2, "penalty"]]
        elif kind == TEAM_PLAY:
            p = (s + self.half) % self.n
            ph = self.hands[p]
            playable = self._playable()
            if any(c in playable for c in ph):
                self.turn = p
                ev.append({"type": "team_play", "seat": p, "visible_to": None})
            else:
                self.ops += [["next", p], ["hit", s, 2, "team_play"]]
        elif kind == TEAM_DRAW4:
            x = self._adjacent(s)
            self.ops += [["next", x], ["hit", (x + self.half) % self.n, 2, "penalty"],
                         ["hit", x, 2, "penalty"]]
        self._run(ev)

    def _play(self, s, code, color, ev):
        hand = self.hands[s]
        hand.remove(code)
        self.discard.append(code)
        self.color = color if color is not None else COLOR[code]
        self.passes = 0
        self.pending = None
        self.forced = None
        ev.append({"type": "play", "seat": s, "card": code, "color": self.color,
                   "visible_to": None})
        if hand:
            kind = KIND[code]
            if kind == NUMBER:  # the common case, without the machinery
                self.turn = self._next_in(s)
                return
            self._effect(s, code, False, ev)
            return
        p = (s + self.half) % self.n
        if not self.hands[p]:
            self._win(s, code, ev)
            return
        ev.append({"type": "out", "seat": s, "visible_to": None})
        k = len(self.hands[p]) // 2
        if k:
            self.ops.append(["effect", s, code, True])
            self.turn = s
            self._ask_give(p, k, "half_pass")
            return
        self._effect(s, code, True, ev)

    # ------------------------------------------------------------------ round and game end

    def _win(self, s, code, ev):
        self.penalty = 0
        self.ops = []
        if self.options.final_card_penalty:
            kind = KIND[code]
            if kind == DRAW2 or kind == TEAM_DRAW4:
                v = self._adjacent(s)
                self._take(v, 2, "final", ev)
                if kind == TEAM_DRAW4:
                    self._take((v + self.half) % self.n, 2, "final", ev)
        team = s % self.half
        points = sum(self._team_points(t) for t in range(self.half) if t != team)
        self.scores[team] += points
        self._end_round(team, points, False, ev)

    def _end_round(self, winner, points, blocked, ev, conceded=False):
        half = self.half
        for t in range(half):
            if not self.departed[t]:
                self.last_points[t] = self._team_points(t)
        result = {"winner": winner, "blocked": blocked, "points": points,
                  "hands": [list(h) for h in self.hands]}
        if conceded:
            result["conceded"] = True
        self.round_over = result
        self.last_round = result
        ev.append({"type": "round_over", **result, "scores": list(self.scores),
                   "visible_to": None})
        target = self.options.target_score
        if conceded or target is None or (winner is not None and self.scores[winner] >= target):
            self._end_game(winner, ev)
            return
        # Another round: the deal moves on, scores carry over.
        self.round += 1
        d = self.dealer
        for _ in range(self.n):
            d = (d + 1) % self.n
            if not self.departed[d % half]:
                break
        self.dealer = d
        ev.append({"type": "round_start", "round": self.round, "dealer": d, "visible_to": None})
        self._deal(ev)

    def _end_game(self, winner, ev):
        self.stage = OVER
        self.turn = None
        self.pending = None
        self.pickers = []
        self.picks = [None] * self.n
        self.give_seat = None
        self.give_count = 0
        self.forced = None
        self.penalty = 0
        self.ops = []
        self.game_over = {"winner": winner, "ranking": self._ranking(winner)}
        ev.append({"type": "game_over", **self.game_over, "visible_to": None})

    def _ranking(self, winner):
        def key(t):
            return (self.departed[t], t != winner, -self.scores[t], self.last_points[t])

        teams = sorted(range(self.half), key=key)
        ranking = []
        for i, t in enumerate(teams):
            if i and key(t) == key(teams[i - 1]):
                ranking.append([t, ranking[-1][1]])
            else:
                ranking.append([t, i + 1])
        return ranking

    # ------------------------------------------------------------------ trades

    def _finish_setup(self, ev):
        picks, n, half = self.picks, self.n, self.half
        hands = self.hands
        for s in self.pickers:
            hands[s].remove(picks[s])
        for s in self.pickers:
            p = (s + half) % n
            insort(hands[p], picks[s], key=_rank)
        ev.append({"type": "setup_pass", "seats": list(self.pickers), "visible_to": None})
        for s in self.pickers:
            p = (s + half) % n
            self.received[s] = [picks[p]]
            self.gave[s] = [picks[s]]
            ev.append({"type": "traded", "seat": s, "partner": p, "gave": picks[s],
                       "received": picks[p], "visible_to": [s]})
        self.pickers = []
        self.picks = [None] * n
        self.pending = None
        self.stage = PLAY
        self.round_over = None
        self.turn = self._first_player()

    def _finish_swap(self, ev):
        a, b = self.pickers
        ca, cb = self.picks[a], self.picks[b]
        ha, hb = self.hands[a], self.hands[b]
        ha.remove(ca)
        hb.remove(cb)
        insort(ha, cb, key=_rank)
        insort(hb, ca, key=_rank)
        self.received[a], self.gave[a] = [cb], [ca]
        self.received[b], self.gave[b] = [ca], [cb]
        ev.append({"type": "swap", "seats": [a, b], "visible_to": None})
        ev.append({"type": "traded", "seat": a, "partner": b, "gave": ca, "received": cb,
                   "visible_to": [a]})
        ev.append({"type": "traded", "seat": b, "partner": a, "gave": cb, "received": ca,
                   "visible_to": [b]})
        self.pickers = []
        self.picks = [None] * self.n
        self.pending = None
        self._run(ev)

    # ------------------------------------------------------------------ the public surface

    def legal_actions(self, seat):
        """Every legal action of `seat` now but `concede`; [] when it has nothing to decide.
        One entry per distinct card code, one per colour for a Wild. A `give` is not listed:
        the view's `must_give` says how many cards to give."""
        pending = self.pending
        if pending is None:
            if seat != self.turn or self.stage != PLAY:
                return []
            hand = self.hands[seat]
            if self.penalty:
                acts = [{"type": "play", "card": c} for c in dict.fromkeys(hand)
                        if c in IS_DRAW2]
                acts.append({"type": "take_penalty"})
                return acts
            playable = PLAYABLE[(FACE[self.discard[-1]], self.color)]
            acts = []
            for c in dict.fromkeys(hand):
                if c in playable:
                    if c in IS_WILD:
                        acts += [{"type": "play", "card": c, "color": k} for k in COLORS]
                    else:
                        acts.append({"type": "play", "card": c})
            if not acts:
                return [{"type": "draw"}] if self.draw or len(self.discard) > 1 else [
                    {"type": "pass_turn"}]
            return acts
        if pending == FORCED:
            if seat != self.turn:
                return []
            c = self.forced
            if c in IS_WILD:
                return [{"type": "play", "card": c, "color": k} for k in COLORS]
            return [{"type": "play", "card": c}]
        if pending == GIVE:
            return []
        if seat in self.pickers and self.picks[seat] is None:
            return [{"type": "pass", "card": c} for c in dict.fromkeys(self.hands[seat])]
        return []

    def act(self, seat, action):
        """Apply one decision of `seat` and return the events it caused.

        Raises IllegalAction, with a message for the player, and changes nothing, when the
        action is not legal now. Every check happens before the first change.
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(f"There is no seat {seat!r} at this table.")
        if not isinstance(action, dict):
            raise IllegalAction("An action must be a dict with a 'type'.")
        kind = action.get("type")
        if self.stage == OVER:
            raise IllegalAction("The game is over.")
        if self.departed[seat % self.half]:
            raise IllegalAction("Your team has left this game.")
        ev = []
        if kind == "play":
            self._check_play(seat, action)
            self._play(seat, action["card"], action.get("color"), ev)
        elif kind == "pass":
            self._act_pick(seat, action, ev)
        elif kind == "draw":
            self._check_turn(seat)
            if self.penalty:
                raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
            if any(c in self._playable() for c in self.hands[seat]):
                raise IllegalAction("You hold a playable card, so you must play instead of drawing.")
            if not self._can_draw():
                raise IllegalAction("There is nothing left to draw: pass your turn.")
            self.passes = 0
            code = self._take(seat, 1, "turn", ev)[0]
            self.ops.append(["after_draw", seat, code])
            self._tag_in(seat, ev)
            self._run(ev)
        elif kind == "pass_turn":
            self._check_turn(seat)
            if self.penalty:
                raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
            if any(c in self._playable() for c in self.hands[seat]):
                raise IllegalAction("You hold a playable card, so you must play it.")
            if self._can_draw():
                raise IllegalAction("You can still draw a card, so you cannot pass.")
            self._pass_turn(seat, ev)
        elif kind == "take_penalty":
            self._check_turn(seat)
            if not self.penalty:
                raise IllegalAction("There is no penalty waiting for you.")
            k, self.penalty = self.penalty, 0
            self.passes = 0
            self.ops += [["next", seat], ["hit", seat, k, "penalty"]]
            self._run(ev)
        elif kind == "give":
            self._act_give(seat, action, ev)
        elif kind == "concede":
            self._concede(seat, ev)
        else:
            raise IllegalAction(f"Unknown action {kind!r}: play, draw, pass_turn, pass, give, "
                                "take_penalty or concede.")
        return ev

    # ------------------------------------------------------------------ checks and actions

    def _check_turn(self, seat):
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
            raise IllegalAction(f"You must play the card you drew, {card_name(self.forced)}.")

    def _check_play(self, seat, action):
        code = action.get("card")
        if not isinstance(code, str) or code not in RANK:
            raise IllegalAction("Say which card to play, e.g. {'type': 'play', 'card': 'R7'}.")
        color = action.get("color")
        if self.pending == FORCED and seat == self.turn:
            if code != self.forced:
                raise IllegalAction(f"You must play the card you drew, {card_name(self.forced)}.")
        else:
            self._check_turn(seat)
        if code not in self.hands[seat]:
            raise IllegalAction(f"You do not hold {card_name(code)}.")
        if self.penalty:
            if code not in IS_DRAW2:
                raise IllegalAction("A penalty is waiting: play a Draw 2 or take the penalty.")
        elif code not in self._playable():
            top = self.discard[-1]
            on = card_name(top) if COLOR[top] else f"{card_name(top)} ({COLOR_NAMES[self.color]})"
            raise IllegalAction(f"{card_name(code)} cannot be played on {on}.")
        if code in IS_WILD:
            if color not in COLORS:
                raise IllegalAction("Choose a colour for your Wild: R, Y, G or B.")
        elif color is not None:
            raise IllegalAction("Only a Wild takes a colour.")

    def _act_pick(self, seat, action, ev):
        p = self.pending
        if p != PICK_SETUP and p != PICK_SWAP:
            raise IllegalAction("There is no card to pass right now.")
        if seat not in self.pickers:
            raise IllegalAction("Only the two partners who swap choose a card now.")
        code = action.get("card")
        if not isinstance(code, str) or code not in RANK:
            raise IllegalAction("Say which card to pass, e.g. {'type': 'pass', 'card': 'R3'}.")
        if code not in self.hands[seat]:
            raise IllegalAction(f"You do not hold {card_name(code)}.")
        first = self.picks[seat] is None
        self.picks[seat] = code
        if first:
            ev.append({"type": "picked", "seat": seat, "kind": p, "visible_to": None})
        ev.append({"type": "pick", "seat": seat, "kind": p, "card": code, "visible_to": [seat]})
        if all(self.picks[s] is not None for s in self.pickers):
            if p == PICK_SETUP:
                self._finish_setup(ev)
            else:
                self._finish_swap(ev)

    def _act_give(self, seat, action, ev):
        if self.pending != GIVE:
            raise IllegalAction("There are no cards to give right now.")
        if seat != self.give_seat:
            raise IllegalAction(f"Seat {self.give_seat} gives cards now, not you.")
        cards = action.get("cards")
        k = self.give_count
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction(f"Say which {k} card(s) to give, e.g. {{'type': 'give', 'cards': ['R1']}}.")
        if len(cards) != k:
            raise IllegalAction(f"Give exactly {k} card(s), not {len(cards)}.")
        hand = self.hands[seat]
        left = list(hand)
        for c in cards:
            if c not in left:
                raise IllegalAction(f"You do not hold {card_name(c)}" + (
                    " that many times." if c in hand else "."))
            left.remove(c)
        p = (seat + self.half) % self.n
        self.hands[seat] = left
        ph = self.hands[p]
        for c in cards:
            insort(ph, c, key=_rank)
        given = sorted(cards, key=_rank)
        self.received[p] = given
        self.received[seat] = []
        self.gave[seat] = given
        self.gave[p] = []
        reason = self.give_reason
        ev.append({"type": "give", "seat": seat, "to": p, "count": k, "reason": reason,
                   "visible_to": None})
        ev.append({"type": "gave", "seat": seat, "to": p, "cards": given,
                   "visible_to": [seat, p]})
        ev.append({"type": "in", "seat": p, "visible_to": None})
        self.pending = None
        self.give_seat = None
        self.give_count = 0
        self.give_reason = None
        self._run(ev)

    def _pass_turn(self, seat, ev):
        ev.append({"type": "pass_turn", "seat": seat, "visible_to": None})
        self.passes += 1
        if self.passes >= sum(1 for h in self.hands if h):
            self._end_round(None, 0, True, ev)
            return
        self.turn = self._next_in(seat)

    def _concede(self, seat, ev):
        half, n = self.half, self.n
        team = seat % half
        p = (seat + half) % n
        self.left.append(team)
        self.last_points[team] = self._team_points(team)
        mine, theirs = self.hands[seat], self.hands[p]
        # Under the draw pile; in drawing order: the pile, the conceder's hand, the partner's.
        self.draw = theirs[::-1] + mine[::-1] + self.draw
        self.hands[seat] = []
        self.hands[p] = []
        self.departed[team] = True
        ev.append({"type": "concede", "seat": seat, "team": team, "visible_to": None})
        staying = [t for t in range(half) if not self.departed[t]]
        if len(staying) == 1:
            self.ops = []
            self.pending = None
            self._end_round(staying[0], 0, False, ev, conceded=True)
            return
        self.passes = 0
        gone = {seat, p}
        pending = self.pending
        if pending == PICK_SETUP:
            self.pickers = [s for s in self.pickers if s not in gone]
            self.picks[seat] = self.picks[p] = None
            if all(self.picks[s] is not None for s in self.pickers):
                self._finish_setup(ev)
            return
        if (pending == PICK_SWAP and seat in self.pickers) or (
                pending == GIVE and self.give_seat in gone):
            self.pending = None
            self.pickers = []
            self.picks = [None] * n
            self.give_seat = None
            self.give_count = 0
            self.give_reason = None
        if self.turn in gone:
            if pending == FORCED:
                self.pending = None
                self.forced = None
            self.penalty = 0
        # Steps that belonged to the leaving team become a plain move on from its seat.
        ops = []
        for op in self.ops:
            if op[0] in ("effect", "after_draw") and op[1] in gone:
                ops.append(["next", op[1]])
            elif op[0] == "hit" and op[1] in gone:
                continue
            else:
                ops.append(op)
        self.ops = ops
        if self.pending is None and not self.ops and self.turn in gone:
            self.turn = self._next_in(self.turn)
        self._run(ev)

    # ------------------------------------------------------------------ snapshots

    def to_dict(self):
        """A JSON-safe snapshot; Game.from_dict(g.to_dict()) is the same game."""
        return {
            "v": 1,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "round": self.round,
            "dealer": self.dealer,
            "hands": [list(h) for h in self.hands],
            "draw": list(self.draw),
            "discard": list(self.discard),
            "color": self.color,
            "direction": self.direction,
            "turn": self.turn,
            "scores": list(self.scores),
            "departed": list(self.departed),
            "left": list(self.left),
            "last_points": list(self.last_points),
            "stage": self.stage,
            "pending": self.pending,
            "pickers": list(self.pickers),
            "picks": list(self.picks),
            "give": [self.give_seat, self.give_count, self.give_reason],
            "forced": self.forced,
            "penalty": self.penalty,
            "ops": [list(op) for op in self.ops],
            "passes": self.passes,
            "reshuffles": self.reshuffles,
            "received": [list(r) for r in self.received],
            "gave": [list(r) for r in self.gave],
            "round_over": _copy_result(self.round_over),
            "last_round": _copy_result(self.last_round),
            "game_over": _copy_over(self.game_over),
        }

    @classmethod
    def from_dict(cls, d):
        try:
            if d.get("v") != 1:
                raise ValueError("unknown snapshot version")
            g = cls.__new__(cls)
            g._blank(Options.from_dict(d["options"]), d["seed"])
            g.round = d["round"]
            g.dealer = d["dealer"]
            g.hands = [list(h) for h in d["hands"]]
            g.draw = list(d["draw"])
            g.discard = list(d["discard"])
            g.color = d["color"]
            g.direction = d["direction"]
            g.turn = d["turn"]
            g.scores = list(d["scores"])
            g.departed = list(d["departed"])
            g.left = list(d["left"])
            g.last_points = list(d["last_points"])
            g.stage = d["stage"]
            g.pending = d["pending"]
            g.pickers = list(d["pickers"])
            g.picks = list(d["picks"])
            g.give_seat, g.give_count, g.give_reason = d["give"]
            g.forced = d["forced"]
            g.penalty = d["penalty"]
            g.ops = [list(op) for op in d["ops"]]
            g.passes = d["passes"]
            g.reshuffles = d["reshuffles"]
            g.received = [list(r) for r in d["received"]]
            g.gave = [list(r) for r in d["gave"]]
            g.round_over = _copy_result(d["round_over"])
            g.last_round = _copy_result(d["last_round"])
            g.game_over = _copy_over(d["game_over"])
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"not a game snapshot: {e}") from None
        return g

    def __eq__(self, other):
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return (f"<Game {self.n}p round {self.round} stage {self.stage} turn {self.turn} "
                f"pending {self.pending}>")

    # What a seat sees and the time-out moves live in their own modules.
    view = views.view
    auto_action = auto.auto_action


def _copy_result(r):
    if r is None:
        return None
    r = dict(r)
    r["hands"] = [list(h) for h in r["hands"]]
    return r


def _copy_over(o):
    if o is None:
        return None
    return {"winner": o["winner"], "ranking": [list(x) for x in o["ranking"]]}
