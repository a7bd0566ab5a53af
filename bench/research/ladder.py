"""Play bot levels against each other in duplicate pairs and report who wins.

    python -m bench.research.ladder --games N --players P --seed S [--jobs J]
        [--stacking] [--target T] [--actions N | --rollouts R | --seconds X] [--horizon H]
        [--score share|best|learned|rank] [--z Z] [--drop D] [--model plain|public]
        [--pool M] [--weights normal|shedding|late_wild] [--own-rollouts base|normal]
        [--explore E] [--searched KINDS] [--infer-a NAMES] [--infer-b NAMES]
        [--reveal all|partner|opponents|hands] [--rotate pair|full] [--start K]
        [--per-deal FILE] [--paired-with FILE] A B

A and B are among random, easy, normal, hard, oracle. Team 0 is A and every other team B;
each deal is then played again with A on team 1's seats and B on the rest, so the luck of
the deal cancels. N counts played games (N/2 deals; an odd N plays the last deal once).
With three or four teams that cancels only part of the luck (two of the deal's seatings), so
--rotate full plays each deal once with A on every team's seats (N/3 or N/4 deals; a deal is
only played whole), and its ranking interval is taken over the deals' mean scores: equal
players then stand at exactly one half and only what the levels do differently is left to
measure. Its first two seatings of a deal are --rotate pair's games.
Blocked games count as not won. The last line is exactly
`A vs B: A won W of N (0.xxx, 95% CI [0.xxx, 0.xxx])` with a Wilson score interval.
The line before it ranks A's team against each B team by the rule book's final ranking
(the winner first, then score, then fewer points left in hand; a shared rank is half), so
equal players stand at one half at every table size, where a win's fair share is 1/3 at 6
players and 1/4 at 8: `A vs B: A ranked above a B team in 0.xxx of N games' pairings
(95% CI [0.xxx, 0.xxx])`, the interval over the games' mean pairing scores.
Hard and oracle search with the site's deterministic budget for the table size by default
(site_budget(P): a count of rollout actions), so a ladder run is reproducible; --actions and
--rollouts set other deterministic budgets, --seconds a wall-clock one; --horizon, --score
(how a rollout is scored; "rank", by the final ranking), --z (the override threshold),
--drop (racing: a candidate D standard errors below Normal's move stops being played out),
--model (what the rollouts' Normal remembers), --pool (weigh that many samples by the
other seats' moves and draw the search's worlds from them), --weights (the base move's
turn score, policies.WEIGHTS), --own-rollouts (whether Hard's own team plays those weights
in its rollouts, "base", or Normal's) and --explore (the share of the rollouts' turns played at
random) change the search (search.Budget, every Hard of the run); --searched (the kinds
of decision searched, comma-separated names from search.SEARCHED: "setup,swap,give" leaves
every turn to the base move) too.
With A normal, --weights also sets A's own turn score, so `--weights shedding normal
normal` measures a score without the search.
--start K skips the first K games (K even), so that two processes can share one long run
and their tallies add up to it.
--per-deal FILE writes a line per deal as it is played ("deal DEAL-INDEX SCORE WINS": the
deal's mean ranking score and A's wins in it), and --paired-with FILE reads such a file
from another run on the same seed and prints, before the ranking line, the mean of this
run's per-deal scores minus that run's over the deals both played, with its interval: two
configurations on the same deals differ by less than either differs from one half, and
the paired interval shows it.
--infer-a / --infer-b set the inferences Hard draws from the other seats' moves on A's and
B's side (comma-separated names from memory.LEANS, "all" or "none"; default: the site's), so
`hard hard --infer-a all --infer-b none` measures them; with A equal to B the times are
reported as A/a and B/b.
--reveal prices the oracle's knowledge apart: "partner" shows it only its partner's hand,
"opponents" only the opponents' hands, and the rest is sampled as Hard samples it; "hands"
shows every hand, rebuilt through the view as Hard rebuilds its worlds.
"""

import argparse
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool

from games.bots import Budget, decide, oracle_decide, site_budget
from games.bots.memory import ALL_INFERENCES, INFERENCES, LEANS
from games.bots.policies import WEIGHTS
from games.bots.search import MODELS, OWN_ROLLOUTS, REVEALS, SCORES, SEARCHED, pairing
from games.engine import GameState, Options

CHOICES = ("random", "easy", "normal", "hard", "oracle")


def play(
    options,
    deal_seed,
    levels,
    bot_seed,
    budget,
    times=None,
    max_actions=100_000,
    inferences=None,
    labels=None,
    watch=None,
    reveal="all",
    weights=None,
):
    """One game; `levels[team]` plays that team's seats. Returns the finished GameState.

    Each seat gets its own seeded generator and its own visible event stream, exactly
    what the site would hand the bot. `times` (label -> list) collects decision seconds;
    `inferences[team]`, Hard's inferences for that team (None: the site's); `labels[team]`
    names the team in `times` (default its level); `watch(game, seat, events seen, action)`
    is called with each decision before it is applied (benchmarks that judge moves);
    `reveal`, what the oracle sees (`oracle_decide`); `weights[team]`, that team's Normal
    turn score (None: Normal's own; Hard takes its own from the budget)."""
    g = GameState.new(options, deal_seed)
    n, half = g.n, g.half
    hist = [[] for _ in range(n)]

    def deliver(events):
        for e in events:
            vis = e.get("visible_to")
            for s in range(n) if vis is None else vis:
                hist[s].append(e)

    deliver(g.initial_events())
    rngs = [random.Random(f"{bot_seed}:{s}") for s in range(n)]
    for _ in range(max_actions):
        if g.stage == "over":
            return g
        seat = g.waiting_on()[0]
        team = seat % half
        level = levels[team]
        t0 = time.perf_counter()
        if level == "oracle":
            a = oracle_decide(g, seat, rngs[seat], budget=budget, history=hist[seat], reveal=reveal)
        else:
            a = decide(
                level,
                g.view(seat),
                g.legal_actions(seat),
                hist[seat],
                rngs[seat],
                budget=budget,
                inference=inferences[team] if inferences else None,
                weights=weights[team] if weights else None,
            )
        if times is not None:
            label = labels[team] if labels else level
            times.setdefault(label, []).append(time.perf_counter() - t0)
        if watch is not None:
            watch(g, seat, hist[seat], a)
        deliver(g.act(seat, a))
    raise RuntimeError(f"game {deal_seed} did not end")


def _pair(args):
    options, seed, i, a, b, budget, games, infer_a, infer_b, reveal, weights_a = args
    teams = options.players // 2
    deal = seed * 1_000_003 + i
    wins = 0
    played = 0
    times = {}
    ranked = []
    la, lb = (f"{a}/A", f"{b}/B") if a == b else (a, b)
    for k, a_team in enumerate(range(teams)[:games]):
        levels = [b] * teams
        levels[a_team] = a
        inferences = [infer_b] * teams
        inferences[a_team] = infer_a
        labels = [lb] * teams
        labels[a_team] = la
        weights = [None] * teams
        weights[a_team] = weights_a
        g = play(
            options,
            deal,
            levels,
            f"{seed}:{i}:{k}",
            budget,
            times,
            inferences=inferences,
            labels=labels,
            reveal=reveal,
            weights=weights,
        )
        played += 1
        wins += g.game_over["winner"] == a_team
        ranked.append(pairing(g.game_over["ranking"], a_team))
    return wins, played, times, ranked


def mean_interval(xs, z=1.96, low=0.0, high=1.0):
    """The mean of xs and its normal-approximation interval, kept within [low, high] (a
    share by default; a difference of shares from -1)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, low, high
    h = z * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, max(low, m - h), min(high, m + h)


def wilson(w, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    p = w / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)]


def _add(wins, played, times, ranked, w, p, t, r, o):
    wins += w
    played += p
    ranked.extend(r)
    for k, v in t.items():
        times.setdefault(k, []).extend(v)
    if played % 50 < p:  # a running tally on stderr, so a long run can be read part-way
        t = "; ".join(
            f"{k} median {statistics.median(v) * 1000:.2f} ms p95 {p95(v) * 1000:.2f} ms"
            for k, v in sorted(times.items())
        )
        print(
            f"progress: {o.A} won {wins} of {played}, ranked above "
            f"{statistics.fmean(ranked):.3f}; {t}",
            file=sys.stderr,
            flush=True,
        )
    return wins, played


def _share(text):
    x = float(text)
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a share of the turns (0 to 1)")
    return x


def _read_per_deal(path):
    """deal index -> mean ranking score, from a --per-deal file."""
    scores = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if len(words) != 4 or words[0] != "deal":
                raise ValueError(f"line {n} is not 'deal INDEX SCORE WINS'")
            scores[int(words[1])] = float(words[2])
    return scores


def _kinds(text):
    kinds = tuple(x.strip() for x in text.split(",") if x.strip())
    unknown = set(kinds) - set(SEARCHED)
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(f"kinds of decision are among {', '.join(SEARCHED)}")
    return kinds


def _inferences(text):
    if text == "all":
        return ALL_INFERENCES
    if text == "none":
        return frozenset()
    names = frozenset(x.strip() for x in text.split(",") if x.strip())
    unknown = names - set(LEANS) - {"legacy_sampler"}
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown inference(s) {sorted(unknown)}; choose from {sorted(LEANS)}, all, none"
        )
    return names


def _names(infer):
    return ",".join(sorted(infer)) or "none"


def _parser():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--stacking", action="store_true")
    ap.add_argument("--no-final-card-penalty", action="store_true")
    ap.add_argument("--target", type=int, default=None)
    ap.add_argument("--actions", type=int, default=None)
    ap.add_argument("--rollouts", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--horizon", type=int, default=None)
    ap.add_argument("--score", choices=SCORES, default=None)
    ap.add_argument("--z", type=float, default=None)
    ap.add_argument("--drop", type=float, default=None)
    ap.add_argument("--model", choices=MODELS, default=None)
    ap.add_argument("--pool", type=int, default=None)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--wilds", choices=("search", "normal"), default=None)
    ap.add_argument("--weights", choices=tuple(WEIGHTS), default=None)
    ap.add_argument("--own-rollouts", choices=OWN_ROLLOUTS, default=None)
    ap.add_argument("--explore", type=_share, default=None)
    ap.add_argument("--searched", type=_kinds, default=None)
    ap.add_argument("--per-deal", default=None)
    ap.add_argument("--paired-with", default=None)
    ap.add_argument("--infer-a", type=_inferences, default=INFERENCES)
    ap.add_argument("--infer-b", type=_inferences, default=INFERENCES)
    ap.add_argument("--reveal", choices=REVEALS, default="all")
    ap.add_argument("--rotate", choices=("pair", "full"), default="pair")
    ap.add_argument("A", choices=CHOICES)
    ap.add_argument("B", choices=CHOICES)
    return ap


def _budget(o):
    """The search budget: the site's for this table size, with the knobs given changed."""
    site = site_budget(o.players)
    horizon = o.horizon or site.horizon
    knobs = dict(
        horizon=horizon,
        score=o.score or site.score,
        z=site.z if o.z is None else o.z,
        drop=site.drop if o.drop is None else o.drop,
        model=o.model or site.model,
        pool=site.pool if o.pool is None else o.pool,
        wilds=site.wilds if o.wilds is None else o.wilds == "search",
        weights=o.weights or site.weights,
        own_rollouts=o.own_rollouts or site.own_rollouts,
        explore=site.explore if o.explore is None else o.explore,
        searched=o.searched or site.searched,
    )
    if o.seconds is not None:
        return Budget(seconds=o.seconds, **knobs)
    if o.rollouts is not None:
        return Budget(rollouts=o.rollouts, **knobs)
    return Budget(
        actions=o.actions or site.actions,
        min_samples=site.min_samples,
        max_samples=site.max_samples,
        **knobs,
    )


def main(argv=None):
    ap = _parser()
    o = ap.parse_args(argv)
    options = Options(
        players=o.players,
        stacking=o.stacking,
        final_card_penalty=not o.no_final_card_penalty,
        target_score=o.target,
    )
    budget = _budget(o)
    seatings = options.players // 2 if o.rotate == "full" else 2
    if o.rotate == "full":
        if o.games % seatings or o.start % seatings:
            ap.error(
                f"--rotate full plays every deal {seatings} times: --games and --start "
                f"must be multiples of {seatings}"
            )
        deals = o.games // seatings
    else:
        deals = (o.games + 1) // 2
    first = o.start // seatings
    other = None
    if o.paired_with:
        try:
            other = _read_per_deal(o.paired_with)
        except (OSError, ValueError) as e:
            ap.error(f"--paired-with {o.paired_with}: not a --per-deal file ({e})")
    out = open(o.per_deal, "w") if o.per_deal else None
    jobs = [
        (
            options,
            o.seed,
            i,
            o.A,
            o.B,
            budget,
            seatings if seatings * (i + 1) <= o.games else 1,
            o.infer_a,
            o.infer_b,
            o.reveal,
            o.weights,
        )
        for i in range(first, deals)
    ]
    t0 = time.perf_counter()
    wins, played, times, ranked, by_deal = _play(o, jobs, out)
    if out:
        out.close()
    elapsed = time.perf_counter() - t0
    _report(o, options, budget, elapsed, wins, played, times, ranked, by_deal, other)


def _play(o, jobs, out):
    """Plays every job (a deal in each seating), in `o.jobs` processes: (wins, games played,
    decision times by level, ranking scores, each deal's mean ranking score)."""
    wins = played = 0
    times = {}
    ranked = []
    by_deal = {}  # deal index -> the deal's mean ranking score, in the order played

    def deal_done(i, w, r):
        by_deal[i] = statistics.fmean(r)
        if out:
            print(f"deal {i} {by_deal[i]!r} {w}", file=out, flush=True)

    if o.jobs > 1:
        with Pool(o.jobs) as pool:
            results = pool.imap(_pair, jobs, chunksize=1)
            for j, (w, p, t, r) in zip(jobs, results, strict=True):
                wins, played = _add(wins, played, times, ranked, w, p, t, r, o)
                deal_done(j[2], w, r)
    else:
        for j in jobs:
            w, p, t, r = _pair(j)
            wins, played = _add(wins, played, times, ranked, w, p, t, r, o)
            deal_done(j[2], w, r)
    return wins, played, times, ranked, by_deal


def _report(o, options, budget, elapsed, wins, played, times, ranked, by_deal, other):
    print(
        f"{played} games, {o.players} players, {options}, budget {budget}, "
        f"inferences A {_names(o.infer_a)} B {_names(o.infer_b)}"
        + ("" if o.reveal == "all" else f", oracle sees {o.reveal}")
        + f", {elapsed:.1f} s",
        file=sys.stdout,
    )
    for level in sorted(times):
        xs = times[level]
        print(
            f"{level}: {len(xs)} decisions, median {statistics.median(xs) * 1000:.3f} ms, "
            f"p95 {p95(xs) * 1000:.3f} ms, max {max(xs) * 1000:.1f} ms"
        )
    if other is not None:
        shared = sorted(set(by_deal) & set(other))
        if len(shared) < 2:
            print(f"paired with {o.paired_with}: fewer than two deals in common", file=sys.stdout)
        else:
            d, lo, hi = mean_interval([by_deal[i] - other[i] for i in shared], low=-1.0)
            print(
                f"paired with {o.paired_with}: {o.A} ranked {d:+.4f} above it over "
                f"{len(shared)} shared deals (95% CI [{lo:+.4f}, {hi:+.4f}])",
                file=sys.stdout,
            )
    m, lo, hi = mean_interval(ranked)
    over = ""
    if o.rotate == "full":  # the seatings of a deal are not independent games
        _, lo, hi = mean_interval(list(by_deal.values()))
        over = f" over {len(by_deal)} deals"
    print(
        f"{o.A} vs {o.B}: {o.A} ranked above a B team in {m:.3f} of {played} games' "
        f"pairings (95% CI{over} [{lo:.3f}, {hi:.3f}])"
    )
    lo, hi = wilson(wins, played)
    print(
        f"{o.A} vs {o.B}: {o.A} won {wins} of {played} ({wins / played:.3f}, "
        f"95% CI [{lo:.3f}, {hi:.3f}])"
    )


if __name__ == "__main__":
    main()
