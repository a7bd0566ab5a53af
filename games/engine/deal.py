"""Shuffling, dealing a round and drawing cards."""

import random
from bisect import insort

from .cards import COLOR, DECK, IS_NUMBER
from .common import PICK_SETUP, SETUP, IllegalAction, rank
from .state import State
from .types import Event


def shuffle(cards: list[str], key: str) -> None:
    """Fisher-Yates from a generator seeded by `key`: the same key, the same order, on every
    machine and in every process (string seeds are hashed with SHA-512, not hash())."""
    rand = random.Random(key).random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


class Dealing(State):
    __slots__ = ()

    # ------------------------------------------------------------------ dealing

    def _deal(self, ev: list[Event]) -> None:
        """Shuffle, deal seven each from the seat after the dealer, turn the starter card,
        and open the setup pass."""
        deck = list(DECK)
        shuffle(deck, f"{self.seed}:{self.round}:0")
        n, half, departed = self.n, self.half, self.departed
        seats = [(self.dealer + i) % n for i in range(1, n + 1)]
        seats = [s for s in seats if not departed[s % half]]
        hands: list[list[str]] = [[] for _ in range(n)]
        for _ in range(7):
            for s in seats:
                hands[s].append(deck.pop())
        for h in hands:
            h.sort(key=rank)
        set_aside: list[str] = []
        while True:
            c = deck.pop()
            if c in IS_NUMBER:
                break
            set_aside.append(c)
        self.hands = hands
        self.draw = deck
        self.discard = set_aside + [c]
        self.color = COLOR[c]
        self._reset_round()
        self.stage = SETUP
        self.pending = PICK_SETUP
        self.pickers = sorted(seats)
        ev.extend(self._deal_events())

    def _reset_round(self) -> None:
        """What every round starts without: no turn, no choice pending, nothing traded."""
        n = self.n
        self.direction = 1
        self.turn = None
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

    def _deal_events(self) -> list[Event]:
        first = self._first_player()
        ev: list[Event] = [
            {
                "type": "deal",
                "round": self.round,
                "dealer": self.dealer,
                "starter": self.discard[-1],
                "set_aside": self.discard[:-1],
                "hand_sizes": [len(h) for h in self.hands],
                "first": first,
                "visible_to": None,
            }
        ]
        for s, h in enumerate(self.hands):
            if h:
                ev.append({"type": "hand", "seat": s, "cards": list(h), "visible_to": [s]})
        return ev

    def initial_events(self) -> list[Event]:
        """The events of the opening deal (a public `deal` and each seat's private `hand`),
        valid until the first pick of the setup pass: Game.new itself returns none."""
        if self.stage != SETUP or self.round != 1 or any(p is not None for p in self.picks):
            raise IllegalAction("The deal is already under way.")
        return self._deal_events()

    def _first_player(self) -> int | None:
        n, half = self.n, self.half
        s = self.dealer
        for _ in range(n):
            s = (s + 1) % n
            if not self.departed[s % half]:
                return s
        return None

    # ------------------------------------------------------------------ drawing

    def _reshuffle(self, ev: list[Event]) -> bool:
        if len(self.discard) <= 1:
            return False
        cards = self.discard[:-1]
        self.discard = self.discard[-1:]
        self.reshuffles += 1
        shuffle(cards, f"{self.seed}:{self.round}:{self.reshuffles}")
        self.draw = cards
        ev.append({"type": "reshuffle", "size": len(cards), "visible_to": None})
        return True

    def _take(self, s: int, k: int, reason: str, ev: list[Event]) -> list[str]:
        """Seat s draws up to k cards (reshuffling when needed); returns how many it got."""
        draw = self.draw
        hand = self.hands[s]
        got: list[str] = []
        for _ in range(k):
            if not draw:
                if not self._reshuffle(ev):
                    break
                draw = self.draw
            c = draw.pop()
            got.append(c)
            insort(hand, c, key=rank)
        ev.append(
            {"type": "draw", "seat": s, "count": len(got), "reason": reason, "visible_to": None}
        )
        if got:
            ev.append({"type": "drew", "seat": s, "cards": got, "visible_to": [s]})
        return got
