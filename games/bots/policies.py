"""The non-searching levels: `random`, Easy and Normal.

Normal's heuristics work on a small `Ctx` (own hand, public table facts and what the seat
remembers), so the same code serves the real bot (built from a view and a `SeatMemory`) and
the Hard bot's rollouts (built straight from a determinized game, where speed matters).
"""

from collections import Counter

from games.engine.cards import (
    COLOR,
    COLORS,
    DRAW2,
    IS_WILD,
    KIND,
    PASSING,
    POINTS,
    REVERSE,
    SKIP,
)

EMPTY_PREF = dict.fromkeys(COLORS, 0.0)
NO_VOIDS: dict[int, set[str]] = {}


class Weights:
    """How Normal's turn score weighs a card: `shed`, per card of its colour still held
    (the colour held least goes first); `points`, per point the card is worth, or
    `points_near` once an opponent holds `near` cards or fewer; `wild_late`, an opposing
    team's cards at or below which a Wild is played like a plain card of `WILD_PLAIN` points
    rather than kept for need (None: always kept)."""

    __slots__ = ("shed", "points", "points_near", "near", "wild_late")

    def __init__(self, shed, points, points_near, near, wild_late=None):
        self.shed = shed
        self.points = points
        self.points_near = points_near
        self.near = near
        self.wild_late = wild_late


# What a Wild played late scores as: a high card, above any number card, below the Draw 2
# and Skip that slow a team about to win.
WILD_PLAIN = 30


# Normal's: keep the points for when an opponent is about to go out.
NORMAL = Weights(shed=3.0, points=0.08, points_near=0.6, near=2)
# Measured for Hard's base move at 8 players, and not used by the site. Three of the four
# teams lose a round and are ranked by the points left in their hands, so points are shed
# from the start and the colour counts weigh half as much: a little better than NORMAL
# without the search, worse under it (docs/bots.md, "Measured: a base move that sheds
# points"); the ladder's --weights repeats those runs.
SHEDDING = Weights(shed=1.5, points=0.6, points_near=0.6, near=2)
# SHEDDING, and a Wild spent once an opposing team is one card from winning: the round is
# then nearly lost, and a Wild left in hand counts 50 points against the ranking. Better
# than NORMAL at 6 and 8 players without the search, level when the search also takes the
# turns; the site's 8-player Hard plays its turns with it and searches only the team
# choices (docs/bots.md, "Measured: searching only the choices made with the partner").
LATE_WILD = Weights(shed=1.5, points=0.6, points_near=0.6, near=2, wild_late=1)
WEIGHTS = {"normal": NORMAL, "shedding": SHEDDING, "late_wild": LATE_WILD}


class Ctx:
    """What Normal looks at for one decision of one seat."""

    __slots__ = (
        "seat",
        "n",
        "half",
        "hand",
        "sizes",
        "departed",
        "direction",
        "top",
        "color",
        "penalty",
        "pref",
        "voids",
        "chose",
        "weights",
    )

    def __init__(
        self,
        seat,
        n,
        hand,
        sizes,
        departed,
        direction,
        top,
        color,
        penalty,
        pref=EMPTY_PREF,
        voids=NO_VOIDS,
        chose=NO_VOIDS,
        weights=NORMAL,
    ):
        self.seat = seat
        self.n = n
        self.half = n // 2
        self.hand = hand
        self.sizes = sizes
        self.departed = departed  # per seat
        self.direction = direction
        self.top = top
        self.color = color
        self.penalty = penalty
        self.pref = pref  # partner's likely colours
        self.voids = voids  # seat -> colours it lacks
        self.chose = chose  # seat -> colours it chose with Wilds
        self.weights = weights  # the turn score's Weights

    @classmethod
    def from_view(cls, view, memory=None, weights=NORMAL):
        return cls(
            view["seat"],
            view["players"],
            view["hand"],
            view["hand_sizes"],
            view["departed"],
            view["direction"],
            view["discard"][-1],
            view["color"],
            view["penalty"],
            memory.partner_pref if memory else EMPTY_PREF,
            memory.voids if memory else NO_VOIDS,
            memory.chose if memory else NO_VOIDS,
            weights,
        )

    @classmethod
    def from_game(cls, g, seat, public=None, weights=NORMAL):
        """`public`: a search.PublicMemory, what every player has seen (None: nothing)."""
        half = g.half
        return cls(
            seat,
            g.n,
            g.hands[seat],
            [len(h) for h in g.hands],
            [g.departed[s % half] for s in range(g.n)],
            g.direction,
            g.discard[-1],
            g.color,
            g.penalty,
            EMPTY_PREF,
            NO_VOIDS if public is None else public.voids,
            NO_VOIDS if public is None else public.chose,
            weights,
        )

    # table geometry, from public facts only
    def adjacent(self, s, d=None):
        d = d or self.direction
        for _ in range(self.n):
            s = (s + d) % self.n
            if not self.departed[s]:
                return s
        return s

    def next_in(self, s, d=None):
        d = d or self.direction
        for _ in range(self.n):
            s = (s + d) % self.n
            if self.sizes[s]:
                return s
        return s

    def team_cards(self, t):
        return self.sizes[t] + self.sizes[t + self.half]

    def closeness(self, t):
        """How urgent it is to slow team t: 1 for the opponent team nearest to winning."""
        if t == self.seat % self.half:
            return -1.0
        mine = self.seat % self.half
        others = [u for u in range(self.half) if u != mine and not self.departed[u]]
        cards = self.team_cards(t)
        best = min(self.team_cards(u) for u in others) if others else cards
        c = 1.0 if cards <= best else 0.4
        if cards <= 4:
            c += 0.6
        elif cards <= 7:
            c += 0.2
        return c


def _counts(hand, without=None):
    counts = dict.fromkeys(COLORS, 0)
    skipped = without is None
    for c in hand:
        if not skipped and c == without:
            skipped = True
            continue
        col = COLOR[c]
        if col is not None:
            counts[col] += 1
    return counts


def most_held(hand, without=None):
    counts = _counts(hand, without)
    return max(COLORS, key=lambda col: (counts[col], -COLORS.index(col)))


# ---------------------------------------------------------------- random


def random_action(view, legal, rng):
    """Uniform over the legal actions (each Wild colour its own entry); a give is a
    uniformly random subset of the required size."""
    if legal:
        return legal[rng.randrange(len(legal))]
    return {"type": "give", "cards": rng.sample(view["hand"], view["must_give"])}


# ---------------------------------------------------------------- easy


def easy_action(view, legal, rng):
    """A beginner: plays a matching coloured card when it has one (mostly), a random card to
    its partner, and the colour it holds most of."""
    if not legal:
        return {"type": "give", "cards": rng.sample(view["hand"], view["must_give"])}
    kind = legal[0]["type"]
    if kind == "pass":
        return legal[rng.randrange(len(legal))]
    plays = [a for a in legal if a["type"] == "play"]
    if not plays:
        return legal[0]
    plain = [a for a in plays if a["card"] not in IS_WILD]
    if plain and rng.random() < 0.85:
        return plain[rng.randrange(len(plain))]
    cards = list(dict.fromkeys(a["card"] for a in plays))
    card = cards[rng.randrange(len(cards))]
    if card in IS_WILD:
        return {"type": "play", "card": card, "color": most_held(view["hand"], card)}
    return {"type": "play", "card": card}


# ---------------------------------------------------------------- normal


def card_scores(ctx, cards):
    """Normal's score for playing each card (higher is better) on an ordinary turn."""
    seat = ctx.seat
    sizes = ctx.sizes
    opp_low = min(
        (sizes[s] for s in range(ctx.n) if s % ctx.half != seat % ctx.half and sizes[s]), default=99
    )
    last = len(ctx.hand) == 1
    w = ctx.weights
    per_point = w.points_near if opp_low <= w.near else w.points
    late = (
        w.wild_late is not None
        and min(
            (
                ctx.team_cards(t)
                for t in range(ctx.half)
                if t != seat % ctx.half and not ctx.departed[t]
            ),
            default=99,
        )
        <= w.wild_late
    )
    scores = {}
    for c in cards:
        if last:
            scores[c] = 0.0
        elif c in IS_WILD:
            scores[c] = _wild_card_score(ctx, c, per_point, late)
        else:
            scores[c] = _plain_card_score(ctx, c, per_point)
    return scores


def _wild_card_score(ctx, c, per_point, late):
    # Keep Wilds for need (measured: spending them early loses to Easy), except to
    # stop a team about to win or to let a partner with one card go out.
    s = -100.0
    if c == "WTD4":
        x = ctx.adjacent(ctx.seat)
        t = x % ctx.half
        if ctx.team_cards(t) <= 3 and ctx.closeness(t) >= 1.0:
            s += 110.0 + 10.0 * ctx.closeness(t)
    elif c == "WTP":
        partner = (ctx.seat + ctx.half) % ctx.n
        if ctx.sizes[partner] == 1 and max(ctx.pref.values()) > 0:
            s += 120.0
    if late:
        s = max(s, WILD_PLAIN * per_point)
    return s


def _plain_card_score(ctx, c, per_point):
    seat, sizes = ctx.seat, ctx.sizes
    partner = (seat + ctx.half) % ctx.n
    nxt = ctx.next_in(seat)
    kind = KIND[c]
    col = COLOR[c]
    counts = _counts(ctx.hand, c)
    # Shed the colours we hold least of (measured better than keeping a colour going).
    s = -ctx.weights.shed * counts[col]
    s += POINTS[c] * per_point
    if col in ctx.voids.get(nxt, ()):
        s += 6.0
    if kind == DRAW2:
        x = ctx.adjacent(seat)
        s += 6.0 + 14.0 * ctx.closeness(x % ctx.half)
    elif kind == SKIP:
        if nxt == partner:
            s -= 15.0
        else:
            s += 4.0 + 10.0 * ctx.closeness(nxt % ctx.half)
    elif kind == REVERSE:
        back = ctx.next_in(seat, -ctx.direction)
        if back == partner or sizes[nxt] <= 2 < sizes[back]:
            s += 6.0
    elif kind == PASSING:
        if sizes[partner] and sizes[partner] <= 2:
            s += 4.0
    return s


def wild_scores(ctx, card):
    """Normal's score for each colour it could name with a Wild (higher is better): its own
    strongest colour, one the next opponent lacks, and for Wild Team Play the colour the
    partner is known to hold."""
    counts = _counts(ctx.hand, card)
    nxt = ctx.next_in(ctx.seat) if card != "WTD4" else ctx.next_in(ctx.adjacent(ctx.seat))
    void = ctx.voids.get(nxt, ())
    opp_chose = ctx.chose.get(nxt, ())
    opp_recent = opp_chose[-1] if opp_chose else None
    scores = {}
    for i, col in enumerate(COLORS):
        if card == "WTP":
            s = 4.0 * ctx.pref[col] + counts[col]
        else:
            s = 3.0 * counts[col] + 0.5 * ctx.pref[col]
            if col in void:
                s += 4.0
            if col == opp_recent:
                s -= 2.0
        scores[col] = s - i * 1e-3
    return scores


def wild_color(ctx, card):
    """Normal's colour for a Wild: the best of `wild_scores`."""
    scores = wild_scores(ctx, card)
    return max(COLORS, key=scores.__getitem__)


def normal_turn(ctx, legal):
    if len(legal) == 1:
        return legal[0]
    if ctx.penalty:
        # Pass a waiting penalty on with the Draw 2 of the colour held most.
        d2 = [a for a in legal if a["type"] == "play"]
        if d2:
            counts = _counts(ctx.hand)
            return max(d2, key=lambda a: counts[COLOR[a["card"]]])
        return {"type": "take_penalty"}
    cards = list(dict.fromkeys(a["card"] for a in legal if a["type"] == "play"))
    if not cards:
        return legal[0]
    if len(cards) == 1:
        card = cards[0]
    else:
        sc = card_scores(ctx, cards)
        card = max(cards, key=sc.__getitem__)
    if card in IS_WILD:
        return {"type": "play", "card": card, "color": wild_color(ctx, card)}
    return {"type": "play", "card": card}


def pick_scores(ctx, cards):
    """Normal's score for handing the partner each card in the setup pass or a symbol swap
    (higher is better)."""
    partner = (ctx.seat + ctx.half) % ctx.n
    psize = ctx.sizes[partner]
    counts = _counts(ctx.hand)
    scores = {}
    for c in cards:
        if c in IS_WILD:
            s = 100.0 if 0 < psize <= 2 else -100.0
        else:
            col = COLOR[c]
            s = 10.0 * max(ctx.pref[col], 0.0) + counts[col] - 0.01 * POINTS[c]
        scores[c] = s
    return scores


def normal_pick(ctx, cards):
    """The card to hand the partner in the setup pass or a symbol swap: one of a colour the
    partner is known to collect, else one of our own strongest colour (measured: handing
    over the loneliest colour loses to a random pick); a Wild only when the partner is about
    to go out."""
    sc = pick_scores(ctx, cards)
    best = None
    for c in cards:  # the first of equals, in the order given
        if best is None or sc[c] > sc[best]:
            best = c
    return best


def normal_give(ctx, k):
    """The k cards to hand a partner who is out: whole colour groups, so each of the two
    hands is as few colours as possible, and half the Wilds."""
    hand = list(ctx.hand)
    wilds = [c for c in hand if c in IS_WILD]
    give = wilds[: min(len(wilds) // 2, k)]
    need = k - len(give)
    groups = {}
    for c in hand:
        if c not in IS_WILD:
            groups.setdefault(COLOR[c], []).append(c)
    # Keep the colour in play (we may play next); give the partner whole groups that fit.
    order = sorted(groups, key=lambda col: (col == ctx.color, -len(groups[col]), COLORS.index(col)))
    rest = []
    for col in order:
        g = groups[col]
        if len(g) <= need:
            give += g
            need -= len(g)
        else:
            rest.append(g)
    if need:
        # Split the group that is cheapest to split: the partner takes its high cards.
        for g in rest:
            take = sorted(g, key=lambda c: -POINTS[c])[:need]
            give += take
            need -= len(take)
            if not need:
                break
    if need:  # only Wilds remain
        left = Counter(hand)
        left.subtract(give)
        give += list(left.elements())[:need]
    return give


def normal_action(view, legal, rng, memory, weights=NORMAL):
    ctx = Ctx.from_view(view, memory, weights)
    if not legal:
        return {"type": "give", "cards": normal_give(ctx, view["must_give"])}
    kind = legal[0]["type"]
    if kind == "pass":
        return {"type": "pass", "card": normal_pick(ctx, [a["card"] for a in legal])}
    return normal_turn(ctx, legal)


def policy_for_game(g, seat, public=None, weights=NORMAL):
    """Normal's move for `seat` of a (determinized) game: the Hard bot's rollout policy.
    `public`: what every player has seen (search.PublicMemory), or None; `weights`: the
    turn score's (Hard's own team plays its base move's in its rollouts)."""
    ctx = Ctx.from_game(g, seat, public, weights)
    k = g.must_give(seat)
    if k:
        return {"type": "give", "cards": normal_give(ctx, k)}
    legal = g.legal_actions(seat)
    if legal[0]["type"] == "pass":
        return {"type": "pass", "card": normal_pick(ctx, [a["card"] for a in legal])}
    return normal_turn(ctx, legal)
