"""What a reader sees of the ratings: the shown number, the seat plates' ratings, a game's
changes, the leaderboard and a player's history chart (docs/ratings.md).

The shown number is OpenSkill's ordinal, mu - 3 sigma (what the player is almost surely at
least worth), scaled so that a newcomer shows 1000: 1000 + 40 (mu - 3 sigma). It is the
library's own `ordinal`, so it is never our arithmetic on mu and sigma.
"""

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from openskill.models import PlackettLuce

from accounts.models import User
from games.models import Game, Rating, RatingChange, Seat

SCALE, BASE = 40, 1000
SIZES = [4, 6, 8]
_MODEL = PlackettLuce()  # only its ratings' `ordinal` is used here


def min_games() -> int:
    games: int = settings.RATING_MIN_GAMES  # an int setting (config/settings.py)
    return games


def shown(mu: float, sigma: float) -> int:
    """The number people see for a rating (mu, sigma): an int, 1000 for a newcomer."""
    return round(_MODEL.rating(mu=mu, sigma=sigma).ordinal(alpha=SCALE, target=BASE))


def signed(delta: int) -> str:
    return f"+{delta}" if delta > 0 else ("±0" if delta == 0 else f"−{-delta}")


def plate_ratings(game: Game, seats: Iterable[Seat] | None = None) -> dict[int, str]:
    """{seat number: "1520"} for every person's seat of `game`, at its table size: their
    current rating (a person not rated yet shows the newcomer's 1000). Bots have none.
    One query, or two without `seats` (the game's Seat rows, when the caller has them)."""
    people: list[tuple[int, int | None]]  # (seat number, user id)
    if seats is None:
        people = list(
            Seat.objects.filter(game_id=game.pk, user__isnull=False).values_list(
                "number", "user_id"
            )
        )
    else:
        people = [(s.number, s.user_id) for s in seats if s.user_id is not None]
    # Keyed as `people`'s user ids are typed: the reads above keep a seat with nobody out.
    found: dict[int | None, Rating] = {
        r.user_id: r
        for r in Rating.objects.filter(players=game.players, user_id__in=[u for _, u in people])
    }
    out = {}
    for number, user in people:
        r = found.get(user)
        out[number] = str(shown(r.mu, r.sigma) if r else BASE)
    return out


def rating_changes(game: Game) -> list[dict[str, Any]]:
    """The change of each person's rating that `game` made, by seat: a list of
    {"seat", "name", "before", "after", "delta" ("+12", "−8", "±0"), "up"} in seat order,
    or [] (a casual game, or one that is not over)."""
    rows = RatingChange.objects.filter(game_id=game.pk).select_related("user").order_by("seat")
    out = []
    for c in rows:
        before, after = shown(c.mu_before, c.sigma_before), shown(c.mu_after, c.sigma_after)
        out.append(
            {
                "seat": c.seat,
                "name": c.user.name,
                "before": before,
                "after": after,
                "delta": signed(after - before),
                "up": after > before,
                "down": after < before,
                "rank": c.rank,
            }
        )
    return out


def rated_label(game: Game, seats: Iterable[Seat] | None = None) -> str:
    """ "Rated" or "Casual" as the table stands: a bot seat makes a rated choice casual."""
    seats = game.seats.all() if seats is None else seats
    if game.rated and not any(s.is_bot for s in seats):
        return "Rated"
    return "Casual"


def leaderboard(players: int, limit: int = 100, *, bots: bool = False) -> list[dict[str, Any]]:
    """The leaderboard at a table size: people (or, with `bots`, bot accounts: the bots'
    ladder) with at least `min_games()` rated games there, best shown number first (ties by
    more games, then name). A bot account's rating is never on the people's board."""
    rows: list[dict[str, Any]] = [
        {
            "user": r.user,
            "rating": shown(r.mu, r.sigma),
            "mu": r.mu,
            "sigma": r.sigma,
            "games": r.games,
        }
        for r in Rating.objects.filter(
            players=players, games__gte=min_games(), user__is_bot=bots
        ).select_related("user")
    ]
    rows.sort(key=lambda row: (-row["rating"], -row["games"], row["user"].name.lower()))
    for i, row in enumerate(rows):
        tied = i and rows[i - 1]["rating"] == row["rating"]
        row["place"] = rows[i - 1]["place"] if tied else i + 1
    return rows[:limit]


def profile_ratings(player: User) -> list[dict[str, Any]]:
    """Per table size the player has played rated: {"players", "label", "rating", "mu",
    "sigma", "games", "provisional"} (provisional: fewer games than the leaderboard asks)."""
    labels = dict(Game.PLAYERS)
    return [
        {
            "players": r.players,
            "label": labels[r.players],
            "rating": shown(r.mu, r.sigma),
            "mu": round(r.mu, 1),
            "sigma": round(r.sigma, 1),
            "games": r.games,
            "provisional": r.games < min_games(),
        }
        for r in Rating.objects.filter(user=player).order_by("players")
    ]


# The chart: drawn by the template as an inline SVG from these numbers (no script, no
# style attribute: the Content-Security-Policy allows neither).
WIDTH, HEIGHT = 640, 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 60, 12, 14, 34


def history_chart(player: User, last: int = 200) -> dict[str, Any] | None:
    """The player's shown rating after each of their last `last` rated games, one line per
    table size, on one x axis (their rated games in order, so the lines share a time line).
    None when they have no rated game."""
    changes = list(
        RatingChange.objects.filter(user=player)
        .order_by("-id")
        .values_list("players", "mu_before", "sigma_before", "mu_after", "sigma_after", "game_id")[
            :last
        ]
    )[::-1]
    if not changes:
        return None
    # x = 0 is before the first game shown; each series starts at its first game's "before".
    points: dict[int, list[tuple[int, int]]] = {}
    for x, (players, mu0, s0, mu1, s1, _) in enumerate(changes, start=1):
        line = points.setdefault(players, [])
        if not line:
            line.append((x - 1, shown(mu0, s0)))
        line.append((x, shown(mu1, s1)))
    values = [v for line in points.values() for _, v in line]
    low, high = min(values), max(values)
    step = _nice_step(high - low)
    low, high = (low // step) * step, -(-high // step) * step
    if high == low:
        low, high = low - step, high + step
    count = len(changes)
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM

    def px(x: int) -> float:
        return round(PAD_LEFT + inner_w * x / max(count, 1), 1)

    def py(v: int) -> float:
        return round(PAD_TOP + inner_h * (high - v) / (high - low), 1)

    labels = dict(Game.PLAYERS)
    series = []
    for players in sorted(points):
        line = points[players]
        series.append(
            {
                "players": players,
                "label": labels[players],
                "points": " ".join(f"{px(x)},{py(v)}" for x, v in line),
                "dots": [{"x": px(x), "y": py(v), "value": v} for x, v in line[1:]],
                "last": line[-1][1],
                "first": line[0][1],
            }
        )
    ticks = [{"y": py(v), "label": v} for v in range(low, high + 1, step)]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": PAD_LEFT,
        "right": WIDTH - PAD_RIGHT,
        "top": PAD_TOP,
        "bottom": HEIGHT - PAD_BOTTOM,
        "series": series,
        "ticks": ticks,
        "games": count,
        "label_y": HEIGHT - 8,
        "summary": "; ".join(f"{s['label']}: {s['first']} to {s['last']}" for s in series),
    }


def _nice_step(span: int) -> int:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 5:
            return step
    return 2000
