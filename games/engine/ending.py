"""How a round and the game end: winning, blocked rounds, ranking."""

from typing import cast

from .cards import DRAW2, KIND, TEAM_DRAW4
from .common import FORCED, GIVE, OVER, PICK_SETUP, PICK_SWAP
from .state import State
from .types import Event, RoundResult, Step


class Ending(State):
    __slots__ = ()

    # ------------------------------------------------------------------ round and game end

    def _win(self, s: int, code: str, ev: list[Event]) -> None:
        self.penalty = 0
        self.ops = []
        if self.options.final_card_penalty:
            kind = KIND[code]
            if kind == DRAW2 or kind == TEAM_DRAW4:
                v = cast(int, self._adjacent(s))  # the winner's own team is still in play
                self._take(v, 2, "final", ev)
                if kind == TEAM_DRAW4:
                    self._take((v + self.half) % self.n, 2, "final", ev)
        team = s % self.half
        points = sum(self._team_points(t) for t in range(self.half) if t != team)
        self.scores[team] += points
        self._end_round(team, points, False, ev)

    def _end_round(
        self,
        winner: int | None,
        points: int,
        blocked: bool,
        ev: list[Event],
        conceded: bool = False,
    ) -> None:
        half = self.half
        for t in range(half):
            if not self.departed[t]:
                self.last_points[t] = self._team_points(t)
        result: RoundResult = {
            "winner": winner,
            "blocked": blocked,
            "points": points,
            "hands": [list(h) for h in self.hands],
        }
        if conceded:
            result["conceded"] = True
        self.round_over = result
        self.last_round = result
        # mypy's extra checks refuse to spread a RoundResult into an Event, whose other keys
        # are optional; the keys are the same either way.
        ev.append(
            {
                "type": "round_over",
                **result,  # type: ignore[typeddict-item]
                "scores": list(self.scores),
                "visible_to": None,
            }
        )
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

    def _end_game(self, winner: int | None, ev: list[Event]) -> None:
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
        ev.append({"type": "game_over", **self.game_over, "visible_to": None})  # type: ignore[typeddict-item]

    def _ranking(self, winner: int | None) -> list[list[int]]:
        def key(t: int) -> tuple[bool, bool, int, int]:
            return (self.departed[t], t != winner, -self.scores[t], self.last_points[t])

        teams = sorted(range(self.half), key=key)
        ranking: list[list[int]] = []
        for i, t in enumerate(teams):
            if i and key(t) == key(teams[i - 1]):
                ranking.append([t, ranking[-1][1]])
            else:
                ranking.append([t, i + 1])
        return ranking

    def _pass_turn(self, seat: int, ev: list[Event]) -> None:
        ev.append({"type": "pass_turn", "seat": seat, "visible_to": None})
        self.passes += 1
        if self.passes >= sum(1 for h in self.hands if h):
            self._end_round(None, 0, True, ev)
            return
        self.turn = self._next_in(seat)

    def _concede(self, seat: int, ev: list[Event]) -> None:
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
            pending == GIVE and self.give_seat in gone
        ):
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
        ops: list[Step] = []
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
