"""The table options a game is created with."""

from dataclasses import dataclass, fields
from typing import Self

from .types import OptionsDict


@dataclass(frozen=True)
class Options:
    """The choices of the person who sets up the table; they hold for the whole game.

    target_score None means a single round; otherwise rounds continue until a team's total
    reaches it (50..5000). Bad values raise ValueError.
    """

    players: int = 4
    stacking: bool = False
    final_card_penalty: bool = True
    target_score: int | None = None

    def __post_init__(self) -> None:
        if type(self.players) is not int or self.players not in (4, 6, 8):
            raise ValueError("A table seats 4, 6 or 8 players.")
        for name in ("stacking", "final_card_penalty"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false.")
        t = self.target_score
        if t is not None and (type(t) is not int or not 50 <= t <= 5000):
            raise ValueError("The target score is a whole number from 50 to 5000.")

    def to_dict(self) -> OptionsDict:
        # Every field is a plain value, so a shallow copy is the whole of it; asdict's deep
        # copy cost more than the rest of a view (every seat's view carries the options).
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[return-value]

    @classmethod
    def from_dict(cls, d: OptionsDict) -> Self:
        return cls(**d)
