"""A player's games (finished, running, aborted), their results and statistics.

Results are read from the engine's public view of the final snapshot
(`view(None)`: ranking, winner, scores), never from a hand. A finished game
never changes, so its result is cached by (game, last event).
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from django.core.cache import cache
from django.db.models import Q, QuerySet

from accounts.models import User
from games import engine
from games.engine.types import GameOver
from games.models import Game

STATUSES = {
    "finished": Game.Status.FINISHED,
    "running": Game.Status.ACTIVE,
    "aborted": Game.Status.ABORTED,
}
MODES = dict(Game.Pace.choices)  # "mode" is the pace: real time or turn by turn
SIZES = [4, 6, 8]
RESULTS = {"win": "Won", "loss": "Lost"}


class Outcome(TypedDict):
    """How a finished game ended, as its public view says (`outcome`)."""

    winner: int | None
    ranks: dict[int, int]  # {team: rank}
    scores: list[int]


def outcome(game: Game) -> Outcome | None:
    """{'winner', 'ranks' {team: rank}, 'scores'} of a finished game, else None."""
    if game.status != Game.Status.FINISHED:
        return None
    key = f"history:outcome:{game.pk}:{game.last_seq}"
    found: Outcome | None = cache.get(key)
    if found is None:
        view = engine.GameState.from_dict(game.snapshot.state).view(None)
        over: GameOver | dict[str, Any] = view.get("game_over") or {}
        found = {
            "winner": over.get("winner"),
            "ranks": {team: rank for team, rank in over.get("ranking", [])},
            "scores": view["scores"],
        }
        cache.set(key, found, 60 * 60 * 24)
    return found


def visible_games(player: User, viewer: User) -> QuerySet[Game]:
    """The started games `player` sits at that `viewer` may know about: all of them for
    the player and staff; otherwise public tables and private ones the viewer shared."""
    games = Game.objects.filter(seats__user=player).exclude(status=Game.Status.OPEN)
    if viewer.pk != player.pk and not viewer.is_staff:
        games = games.filter(Q(private=False) | Q(seats__user=viewer)).distinct()
    return games


def rows(
    player: User, viewer: User, filters: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One dict per game, newest first, after the filters (status, mode, size, result)."""
    filters = filters or {}
    games = visible_games(player, viewer)
    if filters.get("status") in STATUSES:
        games = games.filter(status=STATUSES[filters["status"]])
    if filters.get("mode") in MODES:
        games = games.filter(pace=filters["mode"])
    if str(filters.get("size")) in {str(s) for s in SIZES}:
        games = games.filter(players=int(filters["size"]))
    result_filter = filters.get("result") if filters.get("result") in RESULTS else None
    if result_filter:
        games = games.filter(status=Game.Status.FINISHED)
    games = (
        games.select_related("snapshot")
        .prefetch_related("seats__user")
        .order_by("-started_at", "-pk")
    )
    out = []
    for game in games:
        row = _row(game, player)
        if result_filter and row["result"] != result_filter:
            continue
        out.append(row)
    return out


def _row(game: Game, player: User) -> dict[str, Any]:
    seats = list(game.seats.all())
    mine = next(s for s in seats if s.user_id == player.pk)
    team = mine.number % game.teams
    teams = [
        {
            "team": t,
            "players": [s.label() for s in seats if s.number % game.teams == t],
            "mine": t == team,
        }
        for t in range(game.teams)
    ]
    result = rank = score = None
    found = outcome(game)
    if found is not None:
        result = "win" if found["winner"] == team else "loss"
        rank = found["ranks"].get(team)
        score = found["scores"][team]
    return {
        "game": game,
        "date": game.started_at or game.created_at,
        "status": game.status,
        "mode": game.pace,
        "size": game.players,
        "seat": mine.number,
        "team": team,
        "teams": teams,
        "result": result,
        "rank": rank,
        "score": score,
    }


def _summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    games = len(rows)
    wins = sum(1 for r in rows if r["result"] == "win")
    ranks = [r["rank"] for r in rows if r["rank"] is not None]
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(100 * wins / games) if games else None,
        "average_rank": round(sum(ranks) / len(ranks), 2) if ranks else None,
    }


def stats(player: User, viewer: User) -> dict[str, Any]:
    """Finished games, wins and average rank: overall, by table size and by mode."""
    all_rows = rows(player, viewer)
    finished = [r for r in all_rows if r["status"] == Game.Status.FINISHED]
    by_size: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    by_mode: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in finished:
        by_size[r["size"]].append(r)
        by_mode[r["mode"]].append(r)
    return {
        "overall": _summary(finished),
        "running": sum(1 for r in all_rows if r["status"] == Game.Status.ACTIVE),
        "by_size": [
            {"key": size, "label": f"{size} players", **_summary(by_size[size])}
            for size in SIZES
            if by_size[size]
        ],
        "by_mode": [
            {"key": mode, "label": label, **_summary(by_mode[mode])}
            for mode, label in MODES.items()
            if by_mode[mode]
        ],
    }
