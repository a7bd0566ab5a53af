"""A finished game's review: each decision of one seat against the best choice it had.

For every decision of the seat that had more than one choice, each choice is estimated with
Hard's search, in two ways:

- **with what the seat knew**: the hidden cards are sampled from the seat's view and its own
  events (`sampling.sample_world`, as Hard samples them), so the estimate is what a careful
  player in that seat could have known;
- **with every hand**: the real hands of the finished game, only the draw pile's order
  shuffled per sample (nobody can know the order, so knowing it would price luck, not play:
  the oracle of docs/bots.md).

A choice's estimate is its team's chance of winning the round: rollouts played on by Normal
for every seat, a won round 1, a lost one 0, an unfinished one the team's share by cards
left (`search.rollout`). Every choice of a decision is tried on the same sampled worlds
with the same rollout seeds (common random numbers), so their differences are paired. A
decision's loss is how much less the chosen move scored than the best choice, counted only
when the best is clearly better on the paired samples (a z-test, `Z`): with a few dozen
samples two equal moves always differ by a little, and noise must not be called a mistake.
The mark comes from the loss with what the seat knew (`THRESHOLDS`, docs/review.md); the
loss with every hand is shown beside it, since a move can be right on what was known and
still lose to a card nobody could see.

Pure, like the rest of the bots: the site hands it the stored event rows. Reproducible:
each decision's samples are seeded from the game's seed, the seat and the decision's seq,
and the budget is a count of rollout actions.
"""

import math
import random
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from games.engine import GameState, Options

from .candidates import give_candidates
from .memory import SeatMemory
from .policies import NORMAL, WEIGHTS, Ctx
from .search import Budget, _playable_sample, _world, rollout, true_worlds

REVIEW_VERSION = 1
MARKS = ("good", "inaccurate", "mistake", "blunder")
# The loss in the team's chance of winning the round (0..1) from which a decision is marked
# inaccurate, a mistake or a blunder. Provisional: measured on the ladder's bots, the marks
# do not yet separate the levels clearly (docs/review.md, "Calibration").
THRESHOLDS = {"inaccurate": 0.04, "mistake": 0.09, "blunder": 0.18}
# A choice beats the chosen move only when its paired differences stand clearly above zero:
# a loss inside the samples' noise is no loss. ALPHA is the chance of a false alarm on a
# decision whose choices are all equally good, shared out over its other choices (the best
# of five equal moves looks better than the chosen one by chance far more often than one
# of two does): the z-test asks `z_needed(k)` standard errors of a decision of k choices.
ALPHA = 0.025
# Rollout actions per decision for the estimate with what the seat knew, and the rollouts'
# length, per table size. At 6 and 8 players the rollouts are shorter, as the site's Hard
# found: a sampled table of five or seven guessed hands drifts from the real one within a
# few turns. A 4-player round gives a seat thirty decisions with a choice or more: 10 000
# actions each keeps a whole review under a minute on a busy 2-core machine
# (docs/review.md, "Speed").
REVIEW_BUDGET = {
    4: Budget(actions=10_000, horizon=60, min_samples=8, max_samples=200),
    6: Budget(actions=10_000, horizon=30, min_samples=8, max_samples=200),
    8: Budget(actions=10_000, horizon=30, min_samples=8, max_samples=200),
}
# The estimate with every hand gets this share of that budget: it marks nothing, and with
# the hands fixed its samples differ only by the draw pile's order and the rollouts.
ALL_HANDS_SHARE = 0.5
KINDS = ("setup", "swap", "turn", "penalty", "forced", "give")


@dataclass(frozen=True)
class Row:
    """One stored event row: its number, the seat that acted (None: the deal, a note), the
    action (None when the engine's state did not move) and the events it caused."""

    seq: int
    seat: int | None
    action: dict[str, Any] | None
    events: list[dict[str, Any]]


def mark_for(loss: float, thresholds: dict[str, float] | None = None) -> str:
    """The mark of a decision that lost `loss` of the team's chance against the best."""
    t = thresholds or THRESHOLDS
    if loss >= t["blunder"]:
        return "blunder"
    if loss >= t["mistake"]:
        return "mistake"
    if loss >= t["inaccurate"]:
        return "inaccurate"
    return "good"


def action_key(action: dict[str, Any]) -> tuple:
    """One key per distinct choice: a play by its card (and colour), a give by its cards in
    any order, anything else by its type."""
    kind = action.get("type")
    if kind == "give":
        return (kind, tuple(sorted(action.get("cards", ()))))
    return (kind, action.get("card"), action.get("color"))


class _Replay:
    """The game replayed row by row, with each seat's own events as it saw them."""

    def __init__(self, options: Options, seed: int | str, rows: list[Row], start=None):
        # `start`: a position to replay from instead of the seed's deal (tests, puzzles).
        if start is None:
            self.state = GameState.new(options, seed)
        else:
            self.state = GameState.from_dict(start.to_dict())
        self.rows = rows
        self.history: list[list[dict[str, Any]]] = [[] for _ in range(self.state.n)]

    def deliver(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            vis = e.get("visible_to")
            for s in range(self.state.n) if vis is None else vis:
                self.history[s].append(e)

    def walk(self):
        """Yields (row, state before it) for each row with an action, then applies it."""
        for row in self.rows:
            if row.action is None or row.seat is None:
                self.deliver(row.events)
                continue
            yield row
            self.deliver(self.state.act(row.seat, row.action))


def _choices(state: GameState, seat: int, taken: dict[str, Any]) -> list[dict[str, Any]]:
    """Every choice the seat had: each legal action (a Wild once per colour), or for a give,
    whose ways are too many to list, the splits Hard's search tries; the move taken is
    always among them."""
    legal = state.legal_actions(seat)
    out: list[dict[str, Any]]
    if legal:
        out = [dict(a) for a in legal if a["type"] != "concede"]
    else:
        view = state.view(seat)
        ctx = Ctx.from_view(view, None, WEIGHTS["normal"])
        out = give_candidates(ctx, view["must_give"])
    keys = {action_key(a) for a in out}
    if action_key(taken) not in keys and taken.get("type") != "concede":
        out.append(dict(taken))
    return out


def reviewable(
    options: Options, seed: int | str, rows: list[Row], seat: int, *, start=None
) -> list[int]:
    """The seqs of `seat`'s decisions that had more than one choice: what a review covers.
    A forced draw or pass, and a concession, are not decisions to judge."""
    replay = _Replay(options, seed, rows, start)
    out = []
    for row in replay.walk():
        if row.seat == seat and _has_choice(replay.state, seat, row.action or {}):
            out.append(row.seq)
    return out


def _has_choice(state: GameState, seat: int, taken: dict[str, Any]) -> bool:
    if taken.get("type") == "concede":
        return False
    return len(_choices(state, seat, taken)) > 1


def review_decisions(
    options: Options,
    seed: int | str,
    rows: list[Row],
    seat: int,
    seqs: list[int] | set[int],
    *,
    budget: Budget | None = None,
    all_hands: bool = True,
    progress=None,
    start=None,
) -> list[dict[str, Any]]:
    """The reviews of `seat`'s decisions at `seqs` (each a decision with a choice), in the
    game's order. `all_hands` False skips the estimate with every hand (the calibration
    needs only the marks, which come from what the seat knew). `progress(k)` is called
    after each of them with how many are done."""
    wanted = set(seqs)
    budget = budget or REVIEW_BUDGET.get(options.players, REVIEW_BUDGET[4])
    replay = _Replay(options, seed, rows, start)
    out = []
    for row in replay.walk():
        if row.seat != seat or row.seq not in wanted:
            continue
        taken = row.action or {}
        if not _has_choice(replay.state, seat, taken):
            continue
        rng = random.Random(f"review:{seed}:{seat}:{row.seq}")
        out.append(
            _review_one(
                replay.state, seat, replay.history[seat], taken, row.seq, rng, budget, all_hands
            )
        )
        if progress is not None:
            progress(len(out))
    return out


def _review_one(state, seat, history, taken, seq, rng, budget, all_hands):
    view = state.view(seat)
    choices = _choices(state, seat, taken)
    keys = [action_key(a) for a in choices]
    t = keys.index(action_key(taken))
    memory = SeatMemory.build(view, history)

    def knew_world():
        sample = _playable_sample(view, history, memory, rng)
        return None if sample is None else _world(view, *sample, history)

    knew, samples = _estimate(knew_world, seat, choices, rng, budget)
    if all_hands:
        every, _ = _estimate(
            true_worlds(state, rng), seat, choices, rng, _share(budget, ALL_HANDS_SHARE)
        )
    else:
        every = None
    best, loss, gap, z = _loss(knew, t)
    entry: dict[str, Any] = {
        "seq": seq,
        "kind": view.get("decision"),
        "taken": dict(taken),
        "best": choices[best],
        "knew": _mean(knew[t]),
        "loss": round(loss, 4),
        "mark": mark_for(loss),
        "gap": round(gap, 4),
        "z": round(z, 2),
        "samples": samples,
    }
    order = sorted(range(len(choices)), key=lambda i: (-_mean(knew[i]), i))
    if every is not None:
        best_all, loss_all, _, _ = _loss(every, t)
        entry.update(best_all=choices[best_all], all=_mean(every[t]), loss_all=round(loss_all, 4))
    entry["choices"] = [
        {"action": choices[i], "knew": _mean(knew[i])}
        | ({} if every is None else {"all": _mean(every[i])})
        for i in order
    ]
    return entry


def _share(budget: Budget, share: float) -> Budget:
    """`budget` with `share` of its actions (a budget of samples or seconds is kept)."""
    if budget.actions is None:
        return budget
    return Budget(
        actions=int(budget.actions * share),
        horizon=budget.horizon,
        min_samples=budget.min_samples,
        max_samples=budget.max_samples,
        score=budget.score,
    )


def _estimate(make_world, seat, choices, rng, budget):
    """Each choice's values, sample by sample, on the same worlds and rollout seeds."""
    values: list[list[float]] = [[] for _ in choices]
    runs = used = 0
    while budget.more(runs, used, None):
        world = make_world()
        if world is None:
            break
        roll_seed = rng.randrange(1 << 30)
        for i, action in enumerate(choices):
            g = world(roll_seed)
            g.act(seat, action)
            v, steps = rollout(g, seat % g.half, budget.horizon, budget.score, None, NORMAL)
            values[i].append(v)
            used += steps + 1
        runs += 1
    return values, runs


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 4) if xs else 0.0


def z_needed(choices: int) -> float:
    """The standard errors a better choice must clear at a decision of `choices` choices."""
    return NormalDist().inv_cdf(1 - ALPHA / max(1, choices - 1))


def _loss(values: list[list[float]], taken: int) -> tuple[int, float, float, float]:
    """(the best choice, the taken one's loss against it, the gap between them, its z).
    The loss counts only when the best is clearly better on the paired samples; otherwise
    the taken move is as good as any the samples can tell apart, and it is its own best.
    The gap and its z are kept whatever the test says, so a calibration can try another
    rule on them."""
    if not values[taken]:
        return taken, 0.0, 0.0, 0.0
    best = max(range(len(values)), key=lambda i: (_mean(values[i]), i == taken))
    if best == taken:
        return taken, 0.0, 0.0, 0.0
    diffs = [b - a for a, b in zip(values[taken], values[best], strict=True)]
    gap = sum(diffs) / len(diffs)
    z = _z(diffs)
    if z <= z_needed(len(values)):
        return taken, 0.0, gap, z
    return best, gap, gap, z


def _z(d: list[float]) -> float:
    """How many standard errors the mean of paired differences `d` stands above zero
    (capped: a difference with no spread at all is as clear as it gets)."""
    k = len(d)
    if k < 2:
        return 0.0
    mean = sum(d) / k
    var = sum((x - mean) ** 2 for x in d) / (k - 1)
    if var == 0:
        return Z_CAP if mean > 0 else 0.0
    return min(Z_CAP, mean / math.sqrt(var / k))


Z_CAP = 99.0


def assemble(players: int, seat: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole review from its decisions: the chart of the team's chances and the summary
    (decisions by mark, the costliest three)."""
    decisions = sorted(decisions, key=lambda d: d["seq"])
    counts = dict.fromkeys(MARKS, 0)
    for d in decisions:
        counts[d["mark"]] += 1
    costly = sorted((d for d in decisions if d["loss"] > 0), key=lambda d: (-d["loss"], d["seq"]))
    return {
        "version": REVIEW_VERSION,
        "seat": seat,
        "team": seat % (players // 2),
        "players": players,
        "measure": "round",
        "thresholds": dict(THRESHOLDS),
        "decisions": decisions,
        "chart": [
            {"seq": d["seq"], "knew": d["knew"]} | ({"all": d["all"]} if "all" in d else {})
            for d in decisions
        ],
        "summary": {"counts": counts, "costliest": [d["seq"] for d in costly[:3]]},
    }


def review_seat(
    options: Options,
    seed: int | str,
    rows: list[Row],
    seat: int,
    *,
    budget: Budget | None = None,
    progress=None,
    done: list[dict[str, Any]] | None = None,
    start=None,
) -> dict[str, Any]:
    """The whole review of `seat`. `done`: decisions an earlier partial run computed, kept
    as they are; `progress(done, total)` is called after each decision."""
    seqs = reviewable(options, seed, rows, seat, start=start)
    have = {d["seq"]: d for d in done or [] if d["seq"] in set(seqs)}
    missing = [s for s in seqs if s not in have]
    kept = len(have)

    def step(k):
        if progress is not None:
            progress(kept + k, len(seqs))

    for d in review_decisions(
        options, seed, rows, seat, missing, budget=budget, progress=step, start=start
    ):
        have[d["seq"]] = d
    return assemble(options.players, seat, list(have.values()))
