"""Hard and oracle: determinized Monte Carlo search with Normal as the rollout policy.

Hard samples the hidden cards from what its seat knows (sampling.py). Each sample becomes a
real engine game (`GameState.from_view`), every candidate move (candidates.py) is tried on the
same samples with the same rollout seed (common random numbers), and each is played out by
Normal for every seat for up to `horizon` actions, then scored by who won or by the cards
left. Normal's move is left only
when a paired z-test on the samples says another is better.

Every decision with a choice can be searched: a turn, a waiting penalty, a drawn Wild's
colour, and the team choices (setup pass, symbol swap, half pass and tag-in give), for which
`GameState.from_view` rebuilds the pending choice. `Budget.searched` narrows that: the site's
8-player Hard searches only the team choices and plays its turns with its base move.

The budget is a count of rollout actions (deterministic, near-constant time: what the site
uses), a count of samples (deterministic) or wall-clock seconds (benchmarks). At 8 players
the site takes a late-Wild base move (`weights="late_wild"`, `own_rollouts="normal"`) with
`searched` set to the team choices. These options of the budget were measured on the
ladder and are not the site's (docs/bots.md): racing
(`drop`), rollouts whose Normal remembers what every player has seen (`model="public"`),
worlds weighed by the likelihood of the other seats' moves (`pool`, likelihood.py), the
Wilds left to Normal (`wilds`), unfinished rollouts scored by a share fitted to Normal's
rounds (`score="learned"`, leafvalue.py), rollouts scored by the final ranking
(`score="rank"`), a base move that sheds points or spends a late Wild at 4 and 6 players
or with the turns searched (`weights`, `own_rollouts`) and rollouts that play some turns at
random (`explore`).
"""

import math
import random
import time

from games.engine import GameState
from games.engine.cards import IS_WILD

from . import leafvalue
from .candidates import decision_candidates
from .likelihood import Trails, resample
from .policies import NORMAL, WEIGHTS, Ctx, policy_for_game
from .sampling import sample_world

HORIZON = 60
# How a rollout is scored. A won round is 1 and a lost one 0, except with "rank"; an
# unfinished one: "share", our team's share of exp(-0.45 * cards) over every team; "best",
# the same against the best opposing team only (equal with two teams); "learned", each
# team's chance fitted to Normal's own rounds (leafvalue.py); "rank", the final ranking
# the ratings read: the share of the other teams ranked below ours (`pairing`), finished
# or not (unfinished: the same share as "share" against each team alone, averaged). With
# two teams "rank" is "share".
SCORES = ("share", "best", "learned", "rank")
# How the rollouts' Normal sees the table: "plain", only the position; "public", also what
# every player has seen happen (the voids shown by draws and the colours named with Wilds,
# from the decision's memory and then followed through the rollout), as the real Normal
# remembers them.
MODELS = ("plain", "public")
# How Hard's own team plays in its rollouts: with the base move's weights, or Normal's.
OWN_ROLLOUTS = ("base", "normal")


class Budget:
    """How much Hard may search one decision: exactly one of

    - `actions`: engine actions played in rollouts, summed over candidates and samples
      (deterministic, and close to constant time: a late-game decision, whose rollouts end
      soon, gets many more samples than an opening one for the same cost);
    - `rollouts`: a fixed number of samples (deterministic);
    - `seconds`: wall time (benchmarks only: not reproducible).

    `min_samples`/`max_samples` bound the samples of an `actions` budget. The search knobs:
    `horizon` and `score` (how far a rollout goes and how an unfinished one is scored), `z`
    (the override threshold, None: `Z`), `drop` (racing: None, or how many standard errors
    below Normal's move a candidate must fall to stop being played out), `model` (what the
    rollouts' Normal remembers, `MODELS`), `pool` (None, or how many samples to weigh
    by the other seats' moves before drawing the search's worlds from them), `wilds`
    (False: the Wilds are left to Normal, see `decision_candidates`), `weights` (the base
    move's turn score, a name in `policies.WEIGHTS`: the move that stands unless the
    search clearly finds a better one, and how Hard's own team plays in its rollouts; the
    other seats play Normal's), `own_rollouts` ("base": Hard's own team plays those
    weights in its rollouts; "normal": Normal's, like every other seat) and `explore`
    (the share of the rollouts' turns played with a uniformly random legal move instead of
    Normal's, see `rollout`) and `searched` (the kinds of decision searched, from
    `SEARCHED`; the others take the base move unsearched)."""

    __slots__ = (
        "rollouts",
        "seconds",
        "actions",
        "horizon",
        "min_samples",
        "max_samples",
        "score",
        "z",
        "drop",
        "model",
        "pool",
        "wilds",
        "weights",
        "own_rollouts",
        "explore",
        "searched",
    )

    def __init__(
        self,
        rollouts=None,
        seconds=None,
        actions=None,
        horizon=HORIZON,
        min_samples=8,
        max_samples=300,
        score="share",
        z=None,
        drop=None,
        model="plain",
        pool=None,
        wilds=True,
        weights="normal",
        own_rollouts="base",
        explore=0.0,
        searched=None,
    ):
        if sum(x is not None for x in (rollouts, seconds, actions)) != 1:
            raise ValueError("give exactly one of rollouts, seconds or actions")
        self.rollouts = rollouts
        self.seconds = seconds
        self.actions = actions
        self.horizon = horizon
        self.min_samples = min_samples
        self.max_samples = max_samples
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}")
        self.score = score
        self.z = z
        self.drop = drop
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}")
        self.model = model
        self.pool = pool
        self.wilds = wilds
        if weights not in WEIGHTS:
            raise ValueError(f"weights must be one of {tuple(WEIGHTS)}")
        self.weights = weights
        if own_rollouts not in OWN_ROLLOUTS:
            raise ValueError(f"own_rollouts must be one of {OWN_ROLLOUTS}")
        self.own_rollouts = own_rollouts
        if not 0.0 <= explore <= 1.0:
            raise ValueError("explore is a share of the turns, from 0 to 1")
        self.explore = explore
        searched = SEARCHED if searched is None else tuple(searched)
        if not searched or set(searched) - set(SEARCHED):
            raise ValueError(f"searched takes kinds of decision from {SEARCHED}")
        self.searched = searched

    def __repr__(self):
        knobs = f"horizon={self.horizon}, score={self.score}, z={self.z or Z}"
        if self.drop is not None:
            knobs += f", drop={self.drop}"
        if self.model != "plain":
            knobs += f", model={self.model}"
        if self.pool is not None:
            knobs += f", pool={self.pool}"
        if not self.wilds:
            knobs += ", wilds=Normal's"
        if self.weights != "normal":
            knobs += f", weights={self.weights}"
        if self.own_rollouts != "base":
            knobs += f", own_rollouts={self.own_rollouts}"
        if self.explore:
            knobs += f", explore={self.explore}"
        if self.searched != SEARCHED:
            knobs += f", searched={','.join(self.searched)}"
        if self.rollouts is not None:
            return f"Budget(rollouts={self.rollouts}, {knobs})"
        if self.actions is not None:
            return (
                f"Budget(actions={self.actions}, {knobs}, "
                f"samples {self.min_samples}..{self.max_samples})"
            )
        return f"Budget(seconds={self.seconds}, {knobs})"

    def more(self, runs, used, deadline):
        """Whether to draw another sample after `runs` samples that cost `used` actions."""
        if self.rollouts is not None:
            return runs < self.rollouts
        if self.actions is not None:
            if runs < self.min_samples:
                return True
            return runs < self.max_samples and used < self.actions
        return not runs or time.perf_counter() < deadline


def _value(g, team, start_round, score="share"):
    """1 for a win of `team`, 0 for a loss; unfinished: a share by cards left, over every
    team ("share"), against the best opposing team only ("best") or fitted ("learned").
    "rank" scores by the final ranking instead (`_rank_value`)."""
    if score == "rank":
        return _rank_value(g, team, start_round)
    res = g.game_over if g.stage == "over" else None
    if res is None and g.round != start_round:
        res = g.last_round
    if res is not None:
        w = res["winner"]
        if w is None:
            return 1.0 / g.half
        return 1.0 if w == team else 0.0
    if score == "learned":
        return leafvalue.share(g, team, leafvalue.WEIGHTS[g.n])
    weights = _card_weights(g)
    if score == "best":
        rival = max(w for t, w in enumerate(weights) if t != team)
        total = weights[team] + rival
    else:
        total = sum(weights)
    return weights[team] / total if total else 0.0


def _card_weights(g):
    """Each team's weight by the cards its two hands hold, exp(-0.45 * cards); 0 for a team
    that left."""
    half = g.half
    return [
        0.0 if g.departed[t] else math.exp(-0.45 * (len(g.hands[t]) + len(g.hands[t + half])))
        for t in range(half)
    ]


def pairing(ranking, team):
    """`team` against each other team by a final ranking ([team, rank] pairs, 1 first): 1
    above, 1/2 level, 0 below; the mean over the other teams."""
    rank = dict(ranking)
    mine = rank[team]
    others = [r for t, r in rank.items() if t != team]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def _rank_value(g, team, start_round):
    """The "rank" score: the game's final ranking when the rollout ended it; a round that
    ended with the game going on ranks its winner first and the others by the points left
    in their hands (what the final ranking falls back on); an unfinished round, each other
    team by exp(-0.45 * cards) against ours alone. A team that left ranks below."""
    if g.stage == "over":
        return pairing(g.game_over["ranking"], team)
    half = g.half
    if g.round != start_round:
        w = g.last_round["winner"]
        key = [(g.departed[t], t != w, g.last_points[t]) for t in range(half)]
        return pairing([(t, sorted(key).index(key[t])) for t in range(half)], team)
    weights = _card_weights(g)  # a team that left weighs 0: ours is then the whole pair
    mine = weights[team]
    return sum(mine / (mine + weights[t]) for t in range(half) if t != team) / (half - 1)


EXPLORED = ("play", "draw", "take_penalty")


def rollout(g, team, horizon, score="share", public=None, weights=NORMAL, explore=0.0):
    """Play on with Normal for every seat; (value for `team`, actions played).
    `public`: a `PublicMemory` the rollout follows and Normal reads (None: plain Normal);
    `weights`: the turn score `team`'s own seats play with (the others play Normal's);
    `explore`: the share of turns (a play, a draw or a waiting penalty, not a trade)
    played with a uniformly random legal move instead. Those turns are drawn from a
    generator seeded by the world's seed, so every candidate of a sample meets the same
    ones and the comparison stays paired."""
    start = g.round
    steps = 0
    half = g.half
    rng = random.Random(g.seed) if explore else None
    while steps < horizon:
        if g.stage == "over" or g.round != start:
            break
        seat = g.waiting_on()[0]
        a = None
        if rng is not None and rng.random() < explore and not g.must_give(seat):
            legal = g.legal_actions(seat)
            if legal[0]["type"] in EXPLORED:
                a = legal[rng.randrange(len(legal))]
        if a is None:
            w = weights if seat % half == team else NORMAL
            a = policy_for_game(g, seat, public, w)
        if public is None:
            g.act(seat, a)
        else:
            color = g.color
            public.follow(g.act(seat, a), color)
        steps += 1
    return _value(g, team, start, score), steps


class PublicMemory:
    """The part of a seat's memory every player shares, followed through a rollout: who is
    known to lack a colour (or Wilds) and the colours each seat named with Wilds."""

    __slots__ = ("voids", "chose", "half", "n", "wtp")

    def __init__(self, memory, n):
        self.n = n
        self.half = n // 2
        self.voids = {s: set(v) for s, v in memory.voids.items()}
        self.chose = {s: list(c) for s, c in memory.chose.items()}
        self.wtp = None

    def follow(self, events, color):
        """Fold the events of one action; `color`: the colour in play before it."""
        for e in events:
            t = e["type"]
            if t == "play":
                c = e["card"]
                if c in IS_WILD:
                    self.chose[e["seat"]].append(e["color"])
                self.wtp = (e["seat"], e["color"]) if c == "WTP" else None
                color = e["color"]
            elif t == "draw":
                s = e["seat"]
                if e["reason"] == "turn" and color is not None:
                    self.voids[s].update((color, "W"))
                else:
                    if e["reason"] == "team_play" and self.wtp and self.wtp[0] == s:
                        self.voids[(s + self.half) % self.n].update((self.wtp[1], "W"))
                    self.voids[s].clear()
                self.wtp = None
            elif t == "give":
                self.voids[e["to"]].clear()
            elif t == "swap" or t == "setup_pass":
                for s in e["seats"]:
                    self.voids[s].clear()


def _search(make_world, view, legal, ctx, rng, budget, cands, choice, memory=None):
    """Try every candidate on the same sampled worlds with the same rollout seeds (common
    random numbers) and return the best, or Normal's `choice` unless another is clearly
    better on the paired samples.

    With `budget.drop`, a candidate whose paired differences from Normal's move fall
    `drop` standard errors below zero is dropped (checked every DROP_EVERY samples once
    `min_samples` are in), so the rest of the budget goes to the moves still in question;
    when only Normal's move is left the search stops."""
    if len(cands) == 1:
        return cands[0]
    me = view["seat"]
    team = me % view["teams"]
    base = _normal_index(cands, choice)
    diffs = [[] for _ in cands]  # per candidate: its value minus Normal's, sample by sample
    live = list(range(len(cands)))
    public = memory if budget.model == "public" and memory is not None else None
    runs = used = 0
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    own = WEIGHTS[budget.weights] if budget.own_rollouts == "base" else NORMAL
    while budget.more(runs, used, deadline):
        world = make_world()
        if world is None:
            break
        seed = rng.randrange(1 << 30)
        values = {}
        for i in live:
            g = world(seed)
            if public is None:
                g.act(me, cands[i])
            else:
                pm = PublicMemory(public, g.n)
                color = g.color
                pm.follow(g.act(me, cands[i]), color)
            v, steps = rollout(
                g,
                team,
                budget.horizon,
                budget.score,
                None if public is None else pm,
                own,
                budget.explore,
            )
            values[i] = v
            used += steps + 1
        for i in live:
            diffs[i].append(values[i] - values[base])
        runs += 1
        if budget.drop is not None and runs >= budget.min_samples and runs % DROP_EVERY == 0:
            live = [i for i in live if i == base or not _clearly_worse(diffs[i], budget.drop)]
            if len(live) == 1:
                break
    if not runs:
        return choice
    best = max(live, key=lambda i: (sum(diffs[i]) / len(diffs[i]), -i))
    # Leave Normal's move only when the samples say so clearly (a paired z-test), so that
    # noise from a small budget cannot make Hard weaker than its own rollout policy.
    if best != base and not _clearly_better(diffs[best], Z if budget.z is None else budget.z):
        best = base
    return cands[best]


DROP_EVERY = 4


def _clearly_worse(d, z):
    """Whether paired differences `d` are more than `z` standard errors below zero."""
    return _clearly_better([-x for x in d], z)


Z = 1.5


def _clearly_better(d, z=Z):
    k = len(d)
    if k < 2:
        return False
    mean = sum(d) / k
    var = sum((x - mean) ** 2 for x in d) / (k - 1)
    return mean > 0 and mean * mean * k > z * z * var


def _normal_index(cands, choice):
    for i, a in enumerate(cands):
        if a == choice:
            return i
    cands.insert(0, choice)
    return 0


SEARCHED = ("turn", "penalty", "forced", "setup", "swap", "give")


def searchable(view, legal, kinds=SEARCHED):
    """Whether Hard searches this decision: a choice of more than one move, of a kind in
    `kinds`."""
    if view.get("decision") not in kinds:
        return False
    return len(legal) > 1 or bool(view.get("must_give"))


def hard_decide(view, legal, history, rng, memory, budget):
    """Hard's move: sample the hidden cards from what the seat knows, rebuild each sample
    as a real game (`GameState.from_view`, which needs the seat's events for a tag-in give)."""
    ctx = Ctx.from_view(view, memory, WEIGHTS[budget.weights])
    cands, choice = decision_candidates(view, legal, ctx, budget.wilds)
    if len(cands) > 1 and budget.pool:
        make_world = _weighed_worlds(view, history, memory, rng, budget.pool)
    else:

        def make_world():
            sample = _playable_sample(view, history, memory, rng)
            return None if sample is None else _world(view, *sample, history)

    return _search(make_world, view, legal, ctx, rng, budget, cands, choice, memory)


def _playable_sample(view, history, memory, rng, known=None):
    """(hands, draw) of one sample that rebuilds into a game, or None if it does not.
    `known`: hands placed as they are (the partly revealed oracle, `sample_world`)."""
    try:
        hands, draw = sample_world(view, memory, rng, known)
        GameState.from_view(view, hands=hands, draw_pile=draw, history=history)
    except ValueError:
        return None
    return hands, draw


def _world(view, hands, draw, history):
    return lambda seed: GameState.from_view(
        view, hands=hands, draw_pile=draw, seed=seed, history=history
    )


def _weighed_worlds(view, history, memory, rng, size):
    """Sampling-importance-resampling: deal `size` worlds, weigh each by how likely the
    other seats' moves were in it (likelihood.Trails), and draw the search's worlds from
    them in proportion to those weights."""
    trails = Trails.build(view, history)
    pool, logs = [], []
    for _ in range(size):
        sample = _playable_sample(view, history, memory, rng)
        if sample is not None:
            pool.append(sample)
            logs.append(trails.log_weight(sample[0], rng))
    if not pool:
        return lambda: None
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]

    def make_world():
        hands, draw = pool[resample(weights, rng)]
        return _world(view, hands, draw, history)

    return make_world


REVEALS = ("all", "partner", "opponents", "hands")


def oracle_decide_search(game, seat, rng, budget, memory=None, reveal="all", history=None):
    """Benchmark only: the same search on the real game. The oracle sees every hand, but
    not the order of the draw pile, which no player can know: each sample deals the real
    draw pile in a fresh random order (and reshuffles stay unknown too).

    `reveal` prices the hidden hands apart: "partner" shows it only the partner's hand and
    "opponents" only the opponents' hands; the rest is sampled exactly as Hard samples it
    (`history`, the seat's events, is then needed to rebuild a tag-in give). "hands" shows
    every hand but rebuilds each world through the view as Hard does (`GameState.from_view`),
    which checks that the rebuilding loses nothing the full oracle has."""
    view = game.view(seat)
    legal = game.legal_actions(seat)
    ctx = Ctx.from_view(view, memory, WEIGHTS[budget.weights])
    cands, choice = decision_candidates(view, legal, ctx, budget.wilds)
    if reveal != "all":
        if reveal not in REVEALS:
            raise ValueError(f"reveal must be one of {REVEALS}")
        teams = view["teams"]
        others = [s for s in range(view["players"]) if s != seat]
        seats = {
            "partner": [s for s in others if s % teams == seat % teams],
            "opponents": [s for s in others if s % teams != seat % teams],
            "hands": others,
        }[reveal]
        known = {s: list(game.hands[s]) for s in seats}

        def make_world():
            sample = _playable_sample(view, history, memory, rng, known)
            return None if sample is None else _world(view, *sample, history)

        return _search(make_world, view, legal, ctx, rng, budget, cands, choice, memory)

    make_world = true_worlds(game, rng)
    return _search(make_world, view, legal, ctx, rng, budget, cands, choice, memory)


def true_worlds(game, rng):
    """Worlds of the real game with only the draw pile's order unknown: each call deals the
    real pile's cards in a fresh random order (sorted first, so that only what is in the
    pile matters, not its order) and returns `world(seed)`, a fresh copy of the game."""
    snap = game.to_dict()

    def make_world():
        order = sorted(snap["draw"])  # what is in the pile, not its order
        rng.shuffle(order)

        def world(seed):
            g = GameState.from_dict(snap)
            g.draw = list(order)
            g.seed = seed
            return g

        return world

    return make_world
