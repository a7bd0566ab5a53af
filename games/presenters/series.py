"""Rematch series: the games the same players played one after another through "Play again".

A finished game continues the series of the game it is a rematch of (`Game.rematch_of`)
when both have the same line-up: the same person, or a bot of the same level, in every
seat. Seats keep their numbers through "Play again", so the teams stay the same too, and a
series' score is each team's wins so far. Someone new in a seat (a free seat taken by
another player) starts a new series. Results come from the games' public outcomes
(presenters.history.outcome), never from a hand.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from accounts.models import User
from games.models import Game
from games.presenters.history import outcome, visible_games

# History rows (presenters.history.rows), marked in place and handed back.
Rows = TypeVar("Rows", bound=Iterable[dict[str, Any]])


def lineup(game: Game) -> tuple[tuple[int, int | None, str], ...]:
    """Who sits where: (seat, user id, bot level) for every seat (seats prefetched)."""
    return tuple(sorted((s.number, s.user_id, s.bot_level) for s in game.seats.all()))


@dataclass
class Standing:
    """A series after one of its games: the game's place in it and each team's wins."""

    number: int  # 1 for the first game of the series
    wins: list[int] = field(default_factory=list)  # wins per team, index = team

    def score_for(self, team: int) -> str:
        """The score with `team`'s wins first, then the other teams' in order: "3–2"."""
        others = [w for t, w in enumerate(self.wins) if t != team]
        return "–".join(str(w) for w in [self.wins[team], *others])

    @property
    def score(self) -> str:
        return "–".join(str(w) for w in self.wins)


def standings(games: Iterable[Game]) -> dict[int, Standing]:
    """{game pk: Standing} for the finished games given (seats and snapshots prefetched).
    A game whose earlier game is not among them starts its series there."""
    # Keyed by int | None: a game that is nobody's rematch (rematch_of_id None) finds none.
    finished: dict[int | None, Game] = {g.pk: g for g in games if g.status == Game.Status.FINISHED}
    found: dict[int, Standing] = {}

    def standing(game: Game) -> Standing:
        if game.pk in found:
            return found[game.pk]
        before = finished.get(game.rematch_of_id)
        if before is not None and lineup(before) == lineup(game):
            previous = standing(before)
            number, wins = previous.number + 1, list(previous.wins)
        else:
            number, wins = 1, [0] * game.teams
        ended = outcome(game)
        winner = ended["winner"] if ended else None
        if winner is not None:
            wins[winner] += 1
        found[game.pk] = Standing(number, wins)
        return found[game.pk]

    for game in sorted(finished.values(), key=lambda g: (g.finished_at or g.created_at, g.pk)):
        standing(game)
    return found


def series_list(games: Iterable[Game], player: User) -> list[dict[str, Any]]:
    """The series of two games or more among `games` that `player` played, newest first:
    one dict per series, from its last game (the teams, the score from the player's
    team's side, won / lost / level, and its games)."""
    games = [g for g in games if g.status == Game.Status.FINISHED]
    found = standings(games)
    continued = {
        g.rematch_of_id for g in games if found[g.pk].number > 1
    }  # games another game of the series follows
    out: list[dict[str, Any]] = []
    for game in games:
        standing = found[game.pk]
        if game.pk in continued or standing.number < 2:
            continue
        seats = list(game.seats.all())
        mine = next(s.number for s in seats if s.user_id == player.pk) % game.teams
        best = max(standing.wins)
        result = (
            "level"
            if standing.wins.count(best) > 1
            else "won"
            if standing.wins[mine] == best
            else "lost"
        )
        chain: list[Game] = []
        link: Game | None = game
        by_pk: dict[int | None, Game] = {g.pk: g for g in games}
        while link is not None and len(chain) < standing.number:
            chain.append(link)
            link = by_pk.get(link.rematch_of_id)
        out.append(
            {
                "last": game,
                "games": list(reversed(chain)),
                "length": standing.number,
                "score": standing.score_for(mine),
                "result": result,
                "teams": [
                    {
                        "players": [s.label() for s in seats if s.number % game.teams == t],
                        "mine": t == mine,
                        "wins": standing.wins[t],
                    }
                    for t in sorted(range(game.teams), key=lambda t: (t != mine, t))
                ],
            }
        )
    out.sort(key=lambda s: s["last"].finished_at or s["last"].created_at, reverse=True)
    return out


def _finished_games(player: User, viewer: User) -> list[Game]:
    from_history = visible_games(player, viewer).filter(status=Game.Status.FINISHED)
    return list(from_history.select_related("snapshot").prefetch_related("seats__user"))


def mark_rows(rows: Rows, player: User, viewer: User) -> Rows:
    """Adds `series` ({"number", "score"}, the score from the row's team's side) to each
    history row (presenters.history.rows) whose game belongs to a series of two or more."""
    games = _finished_games(player, viewer)
    found = standings(games)
    continued = {g.rematch_of_id for g in games if found[g.pk].number > 1}
    for row in rows:
        standing = found.get(row["game"].pk)
        if standing is not None and (standing.number > 1 or row["game"].pk in continued):
            row["series"] = {"number": standing.number, "score": standing.score_for(row["team"])}
    return rows


def of_player(player: User, viewer: User) -> list[dict[str, Any]]:
    """The player's series (series_list) among the games `viewer` may know about."""
    return series_list(_finished_games(player, viewer), player)
