"""The moves Hard's search tries for each kind of decision, Normal's choice among them.

A turn: each playable card in Normal's order (a Wild with Normal's colour and the next best,
Wild Team Play in every colour); a waiting penalty: each answer; setup pass and symbol
swap: Normal's pick, then the next best cards by Normal's score; half pass and tag-in
give: Normal's whole colour groups, then other ways to split the hand. At most
MAX_CANDIDATES.
"""

from games.engine.cards import COLOR, IS_WILD, POINTS

from .policies import (
    card_scores,
    normal_give,
    normal_pick,
    normal_turn,
    pick_scores,
    wild_color,
)

MAX_CANDIDATES = 6


def candidates(ctx, legal):
    """The moves worth searching: each playable card (a Wild with Normal's colour and the
    next best colour), the Normal-ranked best few; or the penalty answers."""
    plays = [a for a in legal if a["type"] == "play"]
    if not plays or ctx.penalty:
        seen, out = set(), []
        for a in legal:
            key = (a["type"], a.get("card"))
            if key not in seen:
                seen.add(key)
                out.append(a)
        return out
    cards = list(dict.fromkeys(a["card"] for a in plays))
    sc = card_scores(ctx, cards)
    cards.sort(key=lambda c: -sc[c])
    out = []
    for c in cards:
        if c == "WTP":
            # Whether the partner can answer depends wholly on the colour: try them all.
            best = wild_color(ctx, c)
            out.append({"type": "play", "card": c, "color": best})
            out += [{"type": "play", "card": c, "color": col} for col in "RYGB" if col != best]
        elif c in IS_WILD:
            best = wild_color(ctx, c)
            out.append({"type": "play", "card": c, "color": best})
            counts = {col: 0 for col in "RYGB"}
            for h in ctx.hand:
                if COLOR[h]:
                    counts[COLOR[h]] += 1
            second = max((col for col in "RYGB" if col != best), key=lambda col: counts[col])
            out.append({"type": "play", "card": c, "color": second})
        else:
            out.append({"type": "play", "card": c})
    return out[:MAX_CANDIDATES]


def pick_candidates(ctx, legal):
    """Setup pass or symbol swap: Normal's pick first, then the next best cards by Normal's
    score, one of each distinct card, at most MAX_CANDIDATES."""
    cards = [a["card"] for a in legal]
    sc = pick_scores(ctx, cards)
    first = normal_pick(ctx, cards)
    rest = sorted((c for c in cards if c != first), key=lambda c: -sc[c])
    return [{"type": "pass", "card": c} for c in [first, *rest][:MAX_CANDIDATES]]


def give_candidates(ctx, k):
    """Half pass or tag-in: Normal's whole colour groups first, then a few other ways to
    split the hand: no Wilds / every Wild the count allows to the partner, our strongest
    colour kept, our highest cards handed over, the colour in play handed over."""
    hand = list(ctx.hand)
    out = [normal_give(ctx, k)]
    wilds = [c for c in hand if c in IS_WILD]
    plain = [c for c in hand if c not in IS_WILD]
    counts = {col: 0 for col in "RYGB"}
    for c in plain:
        counts[COLOR[c]] += 1
    strongest = max("RYGB", key=lambda col: (counts[col], -"RYGB".index(col)))

    def fill(first, order):
        give = list(first[:k])
        left = list(hand)
        for c in give:
            left.remove(c)
        for c in order:
            if len(give) == k:
                break
            if c in left:
                left.remove(c)
                give.append(c)
        for c in left:  # whatever the order left out
            if len(give) == k:
                break
            give.append(c)
        return give

    by_points = sorted(plain, key=lambda c: -POINTS[c])
    # Keep our strongest colour and the Wilds; hand over the rest, highest first.
    out.append(fill([], [c for c in by_points if COLOR[c] != strongest]))
    # Every Wild the count allows goes to the partner, then Normal's groups.
    out.append(fill(wilds, normal_give(ctx, k)))
    # No Wild to the partner: Normal's split of the plain cards.
    out.append(fill([], [c for c in normal_give(ctx, k) if c not in IS_WILD] + by_points))
    # The colour in play to the partner (it may play on it next), then the highest cards.
    out.append(fill([c for c in plain if COLOR[c] == ctx.color], by_points))
    # Our highest cards to the partner.
    out.append(fill([], by_points))
    seen, cands = set(), []
    for give in out:
        key = tuple(sorted(give))
        if len(give) == k and key not in seen:
            seen.add(key)
            cands.append({"type": "give", "cards": give})
    return cands[:MAX_CANDIDATES]


def decision_candidates(view, legal, ctx, wilds=True):
    """(candidates, Normal's choice) for any decision the search handles. `wilds` False
    leaves the Wilds to Normal: when Normal plays one (or must play a drawn one) its move
    stands, and otherwise no Wild is among the candidates."""
    decision = view["decision"]
    if decision in ("setup", "swap"):
        cands = pick_candidates(ctx, legal)
        return cands, cands[0]
    if decision == "give":
        cands = give_candidates(ctx, view["must_give"])
        return cands, cands[0]
    choice = normal_turn(ctx, legal)
    cands = candidates(ctx, legal)
    if not wilds:
        if choice.get("card") in IS_WILD:
            return [choice], choice
        cands = [a for a in cands if a.get("card") not in IS_WILD]
    return cands, choice
