"""What one seat knows beyond its current view, folded from its own visible event stream.

`SeatMemory.build(view, history)` reads only `view(seat)` and `events_for(events, seat)`:
cards the seat traded with its partner, colours a seat could not play on (it drew on its
turn, or could not answer a Wild Team Play), and colours players chose with a Wild. It never
sees a hidden card, so anything sampled from it is consistent with what a person could know.

It also infers soft evidence from the other seats' moves, read as moves of Normal (the
policy the other seats are modelled by): `lean[s][k]` is a log-weight per card of class k
(a colour, or "W" for any Wild) in seat s's hand. Normal's scores are linear in how many
cards of a colour it holds (+3 a card for a Wild's colour, -3 a card for the colour it
sheds), so under a softmax of those scores the likelihood of an observed move is, up to its
normaliser, a product of one factor per held card of that colour: a per-card log-weight.
The sampler deals each seat's hidden cards with these weights (sampling.sample_world).
"""

import math
from collections import Counter

from games.engine.cards import COLOR, COLORS, DECK, FACE, IS_WILD

FULL_DECK = Counter(DECK)
CLASSES = (*COLORS, "W")

# The inferences, each measured alone on the ladder (docs/bots.md); per-card log-weights.
# wild_colour: a seat that named colour C with a Wild or Wild Team Draw 4 holds more C
#   (Normal names the colour it holds most of).
# wild_void: a seat that spent a plain Wild had nothing else playable, so it likely holds
#   no card of the colour that was in play (Normal keeps Wilds for need).
# colour_change: a seat that changed colour with a matching face holds few of the new
#   colour (Normal sheds the colour it holds least of).
# partner_pass: the card the partner handed this seat in the setup pass or a symbol swap
#   is of a colour it holds many of (Normal passes from its strongest colour).
# partner_give: the partner keeps few cards of the colours it gave this seat in a half pass
#   or tag-in (Normal gives whole colour groups).
# void_memory: a seat known to lack a class that then takes unseen cards still lacks it in
#   its old cards (a scale on the log of the share of new cards, see SeatMemory._arrive).
LEANS = {
    "wild_colour": 0.8,
    "wild_void": -2.0,
    "colour_change": -0.5,
    "partner_pass": 0.6,
    "partner_give": -1.0,
    "void_memory": 1.0,
}
ALL_INFERENCES = frozenset(LEANS)
# What Hard uses on the site: none, since the ladder did not find them worth a win
# (docs/bots.md: the three that sharpen the samples, together, lost 0.482 of 400 games to
# Hard without them). The ladder and `infercheck` still measure any set.
INFERENCES: frozenset[str] = frozenset()
# The ones that move sample probability toward the real hands (infercheck).
SHARPENING = frozenset(("wild_colour", "wild_void", "void_memory"))


def _sizes_before(view, history):
    """The hand sizes before the first event of a history that starts mid-round (no `deal`):
    the view's sizes minus what the events changed. None when a `deal` sets them."""
    sizes = list(view["hand_sizes"])
    for e in history:
        t = e["type"]
        if t == "deal" or t == "concede":
            return None
        if t == "play":
            sizes[e["seat"]] += 1
        elif t == "draw":
            sizes[e["seat"]] -= e["count"]
        elif t == "give":
            sizes[e["seat"]] += e["count"]
            sizes[e["to"]] -= e["count"]
    return sizes if min(sizes) >= 0 else None


class _Stream:
    """What `SeatMemory.fold` follows from event to event: the colour and face in play, a
    Wild Team Play awaiting its answer (seat, colour), the hand sizes (None until known) and
    the seat that just drew on its turn (its next play may be forced)."""

    __slots__ = ("color", "face", "last_wtp", "sizes", "drew")

    def __init__(self, sizes):
        self.color = None
        self.face = None
        self.last_wtp = None
        self.sizes = None if sizes is None else list(sizes)
        self.drew = None


class SeatMemory:
    __slots__ = (
        "seat",
        "partner",
        "n",
        "half",
        "partner_known",
        "voids",
        "chose",
        "partner_pref",
        "lean",
        "infer",
    )

    def __init__(self, seat, n, infer=INFERENCES):
        self.seat = seat
        self.n = n
        self.half = n // 2
        self.partner = (seat + self.half) % n
        self.infer = frozenset(infer)
        self.reset()

    def reset(self):
        # Cards this seat gave its partner and has not seen leave the partner's hand since.
        self.partner_known = Counter()
        # seat -> set of colours (and "W" for any Wild) it is known not to hold.
        self.voids = {s: set() for s in range(self.n)}
        # seat -> colours it chose with Wilds this round, latest last.
        self.chose = {s: [] for s in range(self.n)}
        self.partner_pref = dict.fromkeys(COLORS, 0.0)
        # seat -> class -> per-card log-weight inferred from its moves (other seats only).
        self.lean = {s: dict.fromkeys(CLASSES, 0.0) for s in range(self.n)}

    @classmethod
    def build(cls, view, history, infer=INFERENCES):
        m = cls(view["seat"], view["players"], infer)
        m.fold(history, _sizes_before(view, history))
        m.finish(view)
        return m

    def _lean(self, s, k, signal):
        if signal in self.infer and s != self.seat:
            self.lean[s][k] += LEANS[signal]

    def _dilute(self, s, sizes, k):
        """Seat s took k cards nobody saw: the evidence about its old cards covers a smaller
        share of its hand."""
        if not k or not any(self.lean[s].values()):
            return
        old = sizes[s] if sizes is not None else None
        f = old / (old + k) if old is not None and old > 0 else math.pow(0.85, k)
        lean = self.lean[s]
        for c in lean:
            lean[c] *= f

    def _arrive(self, s, sizes, k, swap=False):
        """k cards nobody saw arrived in seat s's hand (for a swap, in place of one it
        gave), so what it was known to lack no longer holds for the whole hand. With
        `void_memory` the void becomes a lean: of its m old cards none was of that class,
        so a sampled card is of it about k / (m + k) as often as a random one."""
        old = None if sizes is None else sizes[s] - (1 if swap else 0)
        if swap:
            self._dilute(s, None if old is None else [old] * self.n, k)
        else:
            self._dilute(s, sizes, k)
            if sizes is not None:
                sizes[s] += k
        void = self.voids[s]
        if void and "void_memory" in self.infer and s != self.seat and old and k:
            w = LEANS["void_memory"] * math.log(k / (old + k))
            lean = self.lean[s]
            for c in void:
                lean[c] = min(lean[c], w)
        void.clear()

    def _read_play(self, s, c, color, face, sizes, forced):
        """What a play by seat s says about the rest of its hand, as Normal would have
        chosen it. `color`, `face`: what was in play; `forced`: the card had to be played
        (just drawn, or answering a Wild Team Play), so it shows no choice."""
        if forced or color is None:
            return
        if c in IS_WILD:
            if c == "WTD4" and sizes is not None:
                # Normal also throws it at a team about to win: no sign of need then.
                team = s % self.half
                if any(sizes[t] + sizes[t + self.half] <= 3 for t in range(self.half) if t != team):
                    return
            if c == "WTP" and (sizes is None or sizes[(s + self.half) % self.n] <= 1):
                return  # Normal plays it to let a partner with one card go out
            self._lean(s, color, "wild_void")
        elif COLOR[c] != color and FACE[c] == face:
            self._lean(s, COLOR[c], "colour_change")

    def fold(self, history, sizes=None):
        """`sizes`: the hand sizes before the first event, if known (a `deal` sets them).
        Each kind of event has its handler (`_FOLDS`); kinds without one say nothing."""
        now = _Stream(sizes)
        for e in history:
            handler = self._FOLDS.get(e["type"])
            if handler is not None:
                handler(self, e, now)
        self.partner_known = +self.partner_known

    def _fold_play(self, e, now):
        s, c = e["seat"], e["card"]
        known = self.partner_known
        if s == self.partner and known[c] > 0:
            known[c] -= 1
        last_wtp = now.last_wtp
        answering = last_wtp is not None and s == (last_wtp[0] + self.half) % self.n
        self._read_play(s, c, now.color, now.face, now.sizes, now.drew == s or answering)
        if now.sizes is not None:
            now.sizes[s] -= 1
        now.color, now.face = e["color"], FACE[c]
        if c in IS_WILD:
            self.chose[s].append(e["color"])
            if c != "WTP":
                self._lean(s, e["color"], "wild_colour")
        now.last_wtp = (s, e["color"]) if c == "WTP" else None
        now.drew = None

    def _fold_draw(self, e, now):
        s = e["seat"]
        reason = e["reason"]
        k = e["count"]
        now.drew = s if reason == "turn" else None
        if reason == "turn" and now.color is not None:
            # Nothing playable: no card of the colour in play, no Wild. The drawn card
            # was played at once or was unplayable too, so the whole hand is void.
            self._dilute(s, now.sizes, k)
            if now.sizes is not None:
                now.sizes[s] += k
            self.voids[s].update((now.color, "W"))
        else:
            last_wtp = now.last_wtp
            if reason == "team_play" and last_wtp is not None and last_wtp[0] == s:
                q = (s + self.half) % self.n
                self.voids[q].update((last_wtp[1], "W"))
            self._arrive(s, now.sizes, k)
        now.last_wtp = None

    def _fold_traded(self, e, now):
        me, p = self.seat, self.partner
        if e["seat"] == me:
            known = self.partner_known
            known[e["gave"]] += 1
            r = e["received"]
            if known[r] > 0:
                known[r] -= 1
            elif COLOR[r] is not None:
                self._lean(p, COLOR[r], "partner_pass")
        for s in (me, p):
            self.voids[s].clear()

    def _fold_swap(self, e, now):
        for s in e["seats"]:
            self._arrive(s, now.sizes, 1, swap=True)

    def _fold_gave(self, e, now):
        known = self.partner_known
        if e["seat"] == self.seat:
            known.update(e["cards"])
        elif e["seat"] == self.partner:
            for c in e["cards"]:
                if known[c] > 0:
                    known[c] -= 1
            for col in {COLOR[c] for c in e["cards"]} - {None}:
                self._lean(self.partner, col, "partner_give")

    def _fold_give(self, e, now):
        self.voids[e["seat"]].clear()
        if now.sizes is not None:
            now.sizes[e["seat"]] -= e["count"]
        self._arrive(e["to"], now.sizes, e["count"])

    def _fold_deal(self, e, now):
        self.reset()
        now.color = COLOR[e["starter"]]
        now.face = FACE[e["starter"]]
        now.sizes = list(e["hand_sizes"])
        now.last_wtp = now.drew = None

    def _fold_concede(self, e, now):
        team = e["team"]
        if team == self.partner % self.half:
            self.partner_known.clear()
        if now.sizes is not None:
            now.sizes[team] = now.sizes[team + self.half] = 0

    _FOLDS = {
        "play": _fold_play,
        "draw": _fold_draw,
        "traded": _fold_traded,
        "swap": _fold_swap,
        "setup_pass": _fold_swap,
        "gave": _fold_gave,
        "give": _fold_give,
        "deal": _fold_deal,
        "concede": _fold_concede,
    }

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
