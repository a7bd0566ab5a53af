"""How long a game usually takes at a table's settings, said on the create form and beside
Play now (docs/lobby.md, "How long a game takes").

From the site's own finished games at the same settings once it has MIN_GAMES of them;
until then from bot games: games/data/round_lengths.json (written by
bench/research/durations.py) holds how many decisions a round of each size and bot level
takes, and the points each round scored, from which the rounds a target score takes are
counted.
"""

import json
import math
import random
import statistics
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from games.models import Game

MIN_GAMES = 5  # finished games at the same settings before the site's own figure is used
# A person's decision at a real-time table, in seconds, while the site has no games of its
# own to measure: a card is chosen in a few seconds, a colour or a pass takes longer.
PERSON_SECONDS = 5.0
# What a bot's move costs beyond its pace: the move, the push, the page.
BOT_OVERHEAD_SECONDS = 0.2
QUICK_SHARE = 1 / 3  # games.actions.decisions.BOT_SPEEDS
DATA = Path(__file__).resolve().parents[1] / "data" / "round_lengths.json"


@dataclass(frozen=True)
class Estimate:
    """A typical game at some settings: its length, its rounds, and where the figure is from."""

    seconds: float
    rounds: int
    low: float  # the middle half of such games takes from `low` to `high` seconds
    high: float
    own_decisions: int  # one person's decisions in the whole game
    games: int  # finished games of the site it was measured on; 0: from bot games
    pace: str

    @property
    def span(self) -> str:
        """The length alone: "9 minutes", "5 hours", "3 days"."""
        return _span(self.seconds)

    @property
    def sentence(self) -> str:
        """The estimate in a player's words."""
        if self.pace == Game.Pace.TURN_BASED:
            length = (
                f"usually takes {_span(self.seconds)}"
                if self.games
                else f"asks each player for about {self.own_decisions} decisions; it lasts "
                "as long as the players take, up to the deadline for each"
            )
        else:
            length = f"usually takes about {_span(self.seconds)}"
            low, high = _span(self.low), _span(self.high)
            if low != high:
                low_number, low_unit = low.split(" ")
                if low_unit.rstrip("s") == high.split(" ")[1].rstrip("s"):
                    low = low_number  # "3 and 9 minutes"
                length += f", most between {low} and {high}"
        rounds = "A single round" if self.rounds == 1 else f"A game of about {self.rounds} rounds"
        source = (
            f"from {self.games} finished games like it"
            if self.games
            else "from games between the site's Normal bots"
        )
        return f"{rounds} {length} ({source})."


def _span(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    if hours < 36:
        return f"{hours} hours"
    return f"{round(seconds / 86400)} days"


@cache
def _rounds_data() -> dict[str, Any]:
    sizes: dict[str, Any] = json.loads(DATA.read_text())["sizes"]
    return sizes


def estimate(
    *,
    players: int,
    pace: str,
    target_score: int | None,
    move_seconds: int = 30,
    bot_speed: str = Game.BotSpeed.STEADY,
    people: int = 1,
) -> Estimate:
    """How long a game at these settings usually takes, with `people` persons at the table
    and Normal bots in the other seats."""
    site = _site_games(players, pace, target_score, bot_speed)
    rounds = rounds_to(players, target_score)
    # A round's decisions: its quartiles in bot games (a game of several rounds is put at
    # that many typical rounds: its spread is narrower than one round's).
    low, median, high = statistics.quantiles(_rounds_data()[str(players)]["normal"]["decisions"])
    own = math.ceil(median * rounds / players)
    if len(site) >= MIN_GAMES:
        low_s, median_s, high_s = statistics.quantiles(site)
        return Estimate(median_s, rounds, low_s, high_s, own, len(site), pace)
    share = QUICK_SHARE if bot_speed == Game.BotSpeed.QUICK else 1.0
    bot_seconds = share * settings.BOT_PACE_MS / 1000 + BOT_OVERHEAD_SECONDS
    person_seconds = min(PERSON_SECONDS, move_seconds)
    per_decision = ((players - people) * bot_seconds + people * person_seconds) / players
    if rounds > 1:
        low = high = median
    return Estimate(
        median * rounds * per_decision,
        rounds,
        low * rounds * per_decision,
        high * rounds * per_decision,
        own,
        0,
        pace,
    )


def rounds_to(players: int, target_score: int | None, trials: int = 400) -> int:
    """The median number of rounds until a team reaches `target_score` (1 for a single
    round), drawing each round's winning team and its points from the bot games."""
    if target_score is None:
        return 1
    return _rounds_to(players, target_score, trials)


@cache
def _rounds_to(players: int, target_score: int, trials: int) -> int:
    points = _rounds_data()[str(players)]["normal"]["points"]
    teams = players // 2
    rng = random.Random(f"{players}:{target_score}")  # the same answer every time
    counts = []
    for _ in range(trials):
        scores, rounds = [0] * teams, 0
        while max(scores) < target_score:
            scores[rng.randrange(teams)] += rng.choice(points)
            rounds += 1
        counts.append(rounds)
    return math.ceil(statistics.median(counts))


def _site_games(players: int, pace: str, target_score: int | None, bot_speed: str) -> list[float]:
    """How long, in seconds, each of the latest finished games at these settings took."""
    games = Game.objects.filter(
        status=Game.Status.FINISHED,
        players=players,
        pace=pace,
        target_score=target_score,
        started_at__isnull=False,
        finished_at__isnull=False,
    )
    if pace == Game.Pace.REALTIME:
        games = games.filter(bot_speed=bot_speed)
    spans = games.order_by("-finished_at").values_list("started_at", "finished_at")[:200]
    return [(end - start) / timedelta(seconds=1) for start, end in spans]
