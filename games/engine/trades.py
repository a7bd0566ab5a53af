"""The four trades between partners: setup pass, symbol swap, half pass and tag-in pass."""

from bisect import insort
from collections.abc import Sequence
from typing import cast

from .cards import RANK, card_name
from .common import GIVE, PICK_SETUP, PICK_SWAP, PLAY, IllegalAction, rank
from .state import State
from .types import Action, Event

# What a simultaneous pick records while its pass or swap is still open: the public "someone
# has chosen" and the chooser's own card. Events of nothing else leave every other seat's
# hand, decision and legal actions as they were.
PICK_EVENTS = frozenset({"picked", "pick"})


def only_picks(events: Sequence[Event]) -> bool:
    """Whether `events` (one action's) only record a pick that left the pass or swap open."""
    return all(event.get("type") in PICK_EVENTS for event in events)


class Trades(State):
    __slots__ = ()

    # ------------------------------------------------------------------ trades

    def _finish_setup(self, ev: list[Event]) -> None:
        # Every picker has picked by now.
        picks, n, half = cast(list[str], self.picks), self.n, self.half
        hands = self.hands
        for s in self.pickers:
            hands[s].remove(picks[s])
        for s in self.pickers:
            p = (s + half) % n
            insort(hands[p], picks[s], key=rank)
        ev.append({"type": "setup_pass", "seats": list(self.pickers), "visible_to": None})
        for s in self.pickers:
            p = (s + half) % n
            self.received[s] = [picks[p]]
            self.gave[s] = [picks[s]]
            ev.append(
                {
                    "type": "traded",
                    "seat": s,
                    "partner": p,
                    "gave": picks[s],
                    "received": picks[p],
                    "visible_to": [s],
                }
            )
        self.pickers = []
        self.picks = [None] * n
        self.pending = None
        self.stage = PLAY
        self.round_over = None
        self.turn = self._first_player()

    def _finish_swap(self, ev: list[Event]) -> None:
        a, b = self.pickers
        picks = cast(list[str], self.picks)  # both partners have picked by now
        ca, cb = picks[a], picks[b]
        ha, hb = self.hands[a], self.hands[b]
        ha.remove(ca)
        hb.remove(cb)
        insort(ha, cb, key=rank)
        insort(hb, ca, key=rank)
        self.received[a], self.gave[a] = [cb], [ca]
        self.received[b], self.gave[b] = [ca], [cb]
        ev.append({"type": "swap", "seats": [a, b], "visible_to": None})
        ev.append(
            {
                "type": "traded",
                "seat": a,
                "partner": b,
                "gave": ca,
                "received": cb,
                "visible_to": [a],
            }
        )
        ev.append(
            {
                "type": "traded",
                "seat": b,
                "partner": a,
                "gave": cb,
                "received": ca,
                "visible_to": [b],
            }
        )
        self.pickers = []
        self.picks = [None] * self.n
        self.pending = None
        self._run(ev)

    def _act_pick(self, seat: int, action: Action, ev: list[Event]) -> None:
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

    def _act_give(self, seat: int, action: Action, ev: list[Event]) -> None:
        if self.pending != GIVE:
            raise IllegalAction("There are no cards to give right now.")
        if seat != self.give_seat:
            raise IllegalAction(f"Seat {self.give_seat} gives cards now, not you.")
        cards = action.get("cards")
        k = self.give_count
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction(
                f"Say which {k} card(s) to give, e.g. {{'type': 'give', 'cards': ['R1']}}."
            )
        if len(cards) != k:
            raise IllegalAction(f"Give exactly {k} card(s), not {len(cards)}.")
        hand = self.hands[seat]
        left = list(hand)
        for c in cards:
            if c not in left:
                raise IllegalAction(
                    f"You do not hold {card_name(c)}" + (" that many times." if c in hand else ".")
                )
            left.remove(c)
        p = (seat + self.half) % self.n
        self.hands[seat] = left
        ph = self.hands[p]
        for c in cards:
            insort(ph, c, key=rank)
        given = sorted(cards, key=rank)
        self.received[p] = given
        self.received[seat] = []
        self.gave[seat] = given
        self.gave[p] = []
        reason = self.give_reason
        ev.append(
            {
                "type": "give",
                "seat": seat,
                "to": p,
                "count": k,
                "reason": reason,
                "visible_to": None,
            }
        )
        ev.append({"type": "gave", "seat": seat, "to": p, "cards": given, "visible_to": [seat, p]})
        ev.append({"type": "in", "seat": p, "visible_to": None})
        self.pending = None
        self.give_seat = None
        self.give_count = 0
        self.give_reason = None
        self._run(ev)
