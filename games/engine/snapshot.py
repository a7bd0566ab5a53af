"""Snapshots: a game as JSON-safe data and back, exactly."""

from typing import Self

from .options import Options
from .state import State
from .types import GameOver, RoundResult, SnapshotDict


class Snapshot(State):
    __slots__ = ()

    def to_dict(self) -> SnapshotDict:
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
    def from_dict(cls, d: SnapshotDict) -> Self:
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


def _copy_result(r: RoundResult | None) -> RoundResult | None:
    if r is None:
        return None
    copy = r.copy()
    copy["hands"] = [list(h) for h in r["hands"]]
    return copy


def _copy_over(o: GameOver | None) -> GameOver | None:
    if o is None:
        return None
    return {"winner": o["winner"], "ranking": [list(x) for x in o["ranking"]]}
