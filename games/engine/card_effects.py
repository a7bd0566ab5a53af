"""What a played card does, penalties, tag-ins, and the continuation steps that wait on choices."""

from typing import cast

from .cards import (
    COLOR,
    DRAW2,
    KIND,
    NUMBER,
    PASSING,
    REVERSE,
    SKIP,
    TEAM_DRAW4,
    TEAM_PLAY,
    WILD,
)
from .common import FORCED, GIVE, PICK_SWAP, PLAY
from .state import State
from .types import Event


class CardEffects(State):
    __slots__ = ()

    def _hit(self, v: int, k: int, reason: str, ev: list[Event]) -> None:
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

    def _tag_in(self, s: int, ev: list[Event]) -> None:
        p = (s + self.half) % self.n
        if not self.hands[p]:
            self._ask_give(s, len(self.hands[s]) // 2, "tag_in")

    def _ask_give(self, s: int, k: int, reason: str) -> None:
        self.pending = GIVE
        self.give_seat = s
        self.give_count = k
        self.give_reason = reason

    # ------------------------------------------------------------------ running effects

    def _run(self, ev: list[Event]) -> None:
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

    def _effect(self, s: int, code: str, was_last: bool, ev: list[Event]) -> None:
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
            # `s` or its partner holds cards, so there is a next seat (likewise below).
            v = cast(int, self._next_in(s))
            ev.append({"type": "skip", "seat": v, "visible_to": None})
            self.turn = self._next_in(v)
        elif kind == REVERSE:
            self.direction = -self.direction
            ev.append({"type": "reverse", "direction": self.direction, "visible_to": None})
            self.turn = self._next_in(s)
        elif kind == DRAW2:
            v = cast(int, self._adjacent(s))
            if self.options.stacking:
                self.penalty += 2
                ev.append({"type": "penalty", "seat": v, "total": self.penalty, "visible_to": None})
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
            if not self._playable().isdisjoint(ph):
                self.turn = p
                ev.append({"type": "team_play", "seat": p, "visible_to": None})
            else:
                self.ops += [["next", p], ["hit", s, 2, "team_play"]]
        elif kind == TEAM_DRAW4:
            x = cast(int, self._adjacent(s))
            self.ops += [
                ["next", x],
                ["hit", (x + self.half) % self.n, 2, "penalty"],
                ["hit", x, 2, "penalty"],
            ]
        self._run(ev)

    def _play(self, s: int, code: str, color: str | None, ev: list[Event]) -> None:
        hand = self.hands[s]
        hand.remove(code)
        self.discard.append(code)
        if color is None:
            color = COLOR[code]
        self.color = color
        self.passes = 0
        self.pending = None
        self.forced = None
        ev.append({"type": "play", "seat": s, "card": code, "color": color, "visible_to": None})
        if hand:
            if KIND[code] == NUMBER:  # the common case, without the machinery
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
