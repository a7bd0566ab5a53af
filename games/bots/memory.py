"""What one seat knows beyond its current view, folded from its own visible event stream.

`SeatMemory.build(view, history)` reads only `view(seat)` and `events_for(events, seat)`:
cards the seat traded with its partner, colours a seat could not play on (it drew on its
turn, or could not answer a Wild Team Play), and colours players chose with a Wild. It never
sees a hidden card, so anything sampled from it is consistent with what a person could know.
"""

from collections import Counter

from games.engine.cards import COLOR, COLORS, DECK, FACE, IS_WILD

FULL_DECK = Counter(DECK)


class SeatMemory:
    __slots__ = ("seat", "partner", "n", "half", "partner_known", "voids", "chose",
                 "partner_pref")

    def __init__(self, seat, n):
        self.seat = seat
        self.n = n
        self.half = n // 2
        self.partner = (seat + self.half) % n
        self.reset()

    def reset(self):
        # Cards this seat gave its partner and has not seen leave the partner's hand since.
        self.partner_known = Counter()
        # seat -> set of colours (and "W" for any Wild) it is known not to hold.
        self.voids = {s: set() for s in range(self.n)}
        # seat -> colours it chose with Wilds this round, latest last.
        self.chose = {s: [] for s in range(self.n)}
        self.partner_pref = dict.fromkeys(COLORS, 0.0)

    @classmethod
    def build(cls, view, history):
        m = cls(view["seat"], view["players"])
        m.fold(history)
        m.finish(view)
        return m

    def fold(self, history):
        me, p = self.seat, self.partner
        known = self.partner_known
        color = None
        face = None
        last_wtp = None  # (seat, colour) of a Wild Team Play awaiting its answer
        for e in history:
            t = e["type"]
            if t == "play":
                s, c = e["seat"], e["card"]
                if s == p and known[c] > 0:
                    known[c] -= 1
                color, face = e["color"], FACE[c]
                if c in IS_WILD:
                    self.chose[s].append(e["color"])
                last_wtp = (s, e["color"]) if c == "WTP" else None
            elif t == "draw":
                s = e["seat"]
                reason = e["reason"]
                if reason == "turn" and color is not None:
                    # Nothing playable: no card of the colour in play, no Wild. The drawn card
                    # was played at once or was unplayable too, so the whole hand is void.
                    self.voids[s].update((color, "W"))
                elif reason == "team_play" and last_wtp is not None and last_wtp[0] == s:
                    q = (s + self.half) % self.n
                    self.voids[q].update((last_wtp[1], "W"))
                    self.voids[s].clear()
                else:
                    self.voids[s].clear()
                last_wtp = None
            elif t == "traded":
                if e["seat"] == me:
                    known[e["gave"]] += 1
                    r = e["received"]
                    if known[r] > 0:
                        known[r] -= 1
                for s in (me, p):
                    self.voids[s].clear()
            elif t == "swap" or t == "setup_pass":
                for s in e["seats"]:
                    self.voids[s].clear()
            elif t == "gave":
                if e["seat"] == me:
                    known.update(e["cards"])
                elif e["seat"] == p:
                    for c in e["cards"]:
                        if known[c] > 0:
                            known[c] -= 1
            elif t == "give":
                self.voids[e["to"]].clear()
                self.voids[e["seat"]].clear()
            elif t == "deal":
                self.reset()
                known = self.partner_known
                color = COLOR[e["starter"]]
                face = FACE[e["starter"]]
            elif t == "concede":
                team = e["team"]
                if team == p % self.half:
                    known.clear()
        self.partner_known = +known

    def finish(self, view):
        """Reconcile with the view: the partner cannot hold more known cards than it holds,
        and colours it is likely to hold get a preference score."""
        size = view["hand_sizes"][self.partner]
        if size == 0:
            self.partner_known = Counter()
        elif sum(self.partner_known.values()) > size:
            keep = Counter()
            for c in sorted(self.partner_known.elements())[:size]:
                keep[c] += 1
            self.partner_known = keep
        pref = self.partner_pref
        for c, k in self.partner_known.items():
            col = COLOR[c]
            if col is not None:
                pref[col] += 2.0 * k
        for i, col in enumerate(reversed(self.chose[self.partner][-3:])):
            pref[col] += 1.5 / (1 + i)
        for col in self.voids[self.partner]:
            if col in pref:
                pref[col] -= 3.0

    def unknown_pool(self, view):
        """Counter of cards this seat cannot locate: the deck minus the discard pile, its own
        hand and the cards it knows its partner holds."""
        pool = FULL_DECK.copy()
        pool.subtract(view["discard"])
        pool.subtract(view["hand"])
        pool.subtract(self.partner_known)
        return pool
