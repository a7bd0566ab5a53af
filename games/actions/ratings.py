"""Team ratings: every finished rated game moves each player's rating (docs/ratings.md):
people's among people, and bot accounts' among bot accounts (the bots' ladder).

The maths is OpenSkill's Plackett-Luce model (the `openskill` package), never ours: a game
is a list of teams (the two partners of each team) and the team's rank in the engine's final
ranking (`game_over.ranking`, competition ranks, so ties are ties; a team that conceded is
ranked below every team that stayed). One rating per person and table size.

`game_finished` runs inside the transaction that records the game's end, under the game
row's lock; `rebuild` replays every rated game in finish order through the same `rate_game`,
so recomputing gives the stored numbers (`manage.py recompute_ratings`). Both ask the same
`unrated_reason`, so a game one of them leaves out the other leaves out too.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, QuerySet
from django.utils import timezone
from openskill.models import PlackettLuce, PlackettLuceRating

from accounts.models import User
from games import store
from games.engine import GameState
from games.engine.types import GameOver
from games.models import Game, GameEvent, Rating, RatingChange, Seat
from games.presenters.ratings import BASE, shown

# The library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (docs/ratings.md).
MODEL = PlackettLuce()

# Against farming (docs/ratings.md, "What counts"). Constants, not settings: the rebuild
# must reach the numbers the live updates wrote, whatever the deployment's environment.
# A team that leaves before this many cards a seat were played leaves a game that moves
# no rating: no rated result a second after the deal.
MIN_PLAYS_PER_SEAT = 3
# Among exactly the same people, at most this many rated games count in any such window;
# the ones beyond it move no rating.
REPEAT_LIMIT = 3
REPEAT_WINDOW = timedelta(hours=24)

NEEDS_CONFIRMED_EMAIL = (
    "A rated table needs a confirmed email address: confirm yours from "
    "your profile page, or play at a casual table."
)

MuSigma = tuple[float, float]
# What `computed` works out, in the order the rows keep it: a person's rating at a table size
# (mu, sigma, games, updated_at), keyed (user id, players); and one change (game id, user id,
# players, seat, rank, mu and sigma before, mu and sigma after, created_at).
RatingTuple = tuple[float, float, int, datetime]
ChangeTuple = tuple[int, int, int, int, int, float, float, float, float, datetime]
# How many games of exactly these people counted in the window up to this game's end.
CountedGames = Callable[[Game, frozenset[int]], int]


def may_sit_rated(user: User) -> bool:
    """Whether `user` may create, join or take a seat at a rated table: a person whose email
    address is confirmed (one address per account, so a crowd of accounts costs a crowd of
    mailboxes), or a bot account (a table mixing one with people is recorded casual at the
    deal; a table of bot accounts only is rated in the bots' pool, where no person's rating
    is)."""
    return bool(user.is_bot or (user.email and user.email_confirmed))


def rating_shown(user: User, players: int) -> int:
    """The rating `user` is shown at tables of `players`: the number Find a game matches
    people by (lobby.matchmaking), the same the leaderboard shows; a newcomer's 1000."""
    row = Rating.objects.filter(user=user, players=players).first()
    return BASE if row is None else shown(row.mu, row.sigma)


# The two rating pools: people among people, and bot accounts among bot accounts
# (docs/ratings.md, "The bots' ladder"). Both are Rating rows per user and table size; a
# user is one or the other, so no row is in both.
PEOPLE, BOTS = "people", "bots"


def pool_of(user_ids: Sequence[int]) -> str | None:
    """The pool a game of the users `user_ids` (one per seat) is rated in: PEOPLE when none
    is a bot account, BOTS when every one is, None when they are mixed (casual)."""
    bots = get_user_model().objects.filter(pk__in=user_ids, is_bot=True).count()
    if bots == 0:
        return PEOPLE
    return BOTS if bots == len(set(user_ids)) else None


def may_deal_rated(seats: Sequence[Seat]) -> bool:
    """Whether a table with these Seat rows may be dealt rated: no site bot in a seat, and
    either no bot account or nothing but bot accounts. `start_table` clears `rated`
    otherwise, so that the table is casual from its first card."""
    if any(s.bot_level for s in seats):
        return False
    users = [s.user_id for s in seats if s.user_id is not None]
    return pool_of(users) is not None


@dataclass(frozen=True)
class Team:
    team: int
    rank: int
    seats: tuple[tuple[int, int], ...]  # ((seat number, user id), ...)


def _finished_at(game: Game) -> datetime:
    """When finished `game` ended: a rated game that counts has ended."""
    if game.finished_at is None:
        raise ValueError(f"game {game.pk} has no end time")
    return game.finished_at


def _person(seat: Seat) -> int:
    """The user id of a seat of a game that moves ratings: unrated_reason leaves out a game
    with a seat nobody holds."""
    if seat.user_id is None:
        raise ValueError(f"seat {seat.number} of game {seat.game_id} is nobody's")
    return seat.user_id


def unrated_reason(
    game: Game, seats: Sequence[Seat], counted: CountedGames | None = None
) -> str | None:
    """Why `game` (finished, with its Seat rows `seats`) counts for no rating, or None: the
    one rule of the live update and the rebuild.

    A bot at the table when it ended (placed by the host, or a moderator's replacement)
    makes it casual; a person's seat that a stand-in bot played for a while does not: the
    person still holds it (Seat.user), so missing moves is no way out of a rated loss.
    `counted(game, users)`: how many games of exactly the people `users` counted for their
    ratings in the REPEAT_WINDOW up to this game's end; by default the stored RatingChange
    rows say (the live update), the rebuild passes its own tally of the games before.
    """
    if not game.rated:
        return "casual"
    if game.status != Game.Status.FINISHED:
        return "not finished"  # aborted games (a moderator's, or an abandoned table)
    people = [s.user_id for s in seats if s.user_id is not None]
    if len(seats) != game.players or len(people) != len(seats):
        return "a bot played"
    pool = pool_of(people)
    if pool is None:
        # A bot account is a program too (docs/bot-accounts.md): its wins are no person's,
        # and a person's are no measure of a program's.
        return "a bot account played"
    early = left_early(game)
    if early:
        return early
    users = frozenset(people)
    # The bots' ladder is for measuring a strategy, which takes many games among the same
    # programs; farming it moves no person's rating (docs/ratings.md, "The bots' ladder").
    if pool == PEOPLE and (counted or stored_count)(game, users) >= REPEAT_LIMIT:
        hours = int(REPEAT_WINDOW.total_seconds() // 3600)
        return (
            f"the same players had already played {REPEAT_LIMIT} rated games together "
            f"in {hours} hours"
        )
    return None


def left_early(game: Game) -> str | None:
    """Why a team's leaving makes finished `game` unrated, or None: a team conceded (or
    missed a deadline under "treated as having left", which the door records as a
    concession too) before MIN_PLAYS_PER_SEAT cards a seat had been played. Read from the
    game's events, so the live update and the rebuild count the same."""
    events = GameEvent.objects.filter(game_id=game.pk)
    first = events.filter(kind="concede").order_by("seq").values_list("seq", flat=True).first()
    if first is None:
        return None
    minimum = MIN_PLAYS_PER_SEAT * game.players
    if events.filter(kind="play", seq__lt=first).count() < minimum:
        return f"a team left before {minimum} cards were played"
    return None


def stored_count(game: Game, users: frozenset[int]) -> int:
    """How many other games of exactly the people `users`, at this table size, moved their
    ratings in the REPEAT_WINDOW up to `game`'s end (a change's created_at is its game's
    end). A rated game's changes are one per seat, so a game with a change for each of
    `users` at this size had exactly these people."""
    end = _finished_at(game)
    return (
        RatingChange.objects.filter(
            players=game.players,
            user_id__in=users,
            created_at__gt=end - REPEAT_WINDOW,
            created_at__lte=end,
        )
        .exclude(game_id=game.pk)
        .values("game_id")
        .annotate(n=Count("pk"))
        .filter(n=len(users))
        .count()
    )


def teams_of(game: Game, seats: Sequence[Seat], over: GameOver) -> list[Team]:
    """The game's teams in team order, each with its rank from how the game ended (the
    final public view's `game_over`)."""
    ranks = {team: rank for team, rank in over["ranking"]}
    half = game.players // 2
    return [
        Team(
            team,
            ranks[team],
            tuple((s.number, _person(s)) for s in seats if s.number % half == team),
        )
        for team in range(half)
    ]


def rate_game(
    teams: Sequence[Team], current: Mapping[int, MuSigma]
) -> dict[int, tuple[MuSigma, MuSigma]]:
    """The new (mu, sigma) of every person of `teams`, from `current` {user id: (mu, sigma)}
    (a person not in it starts at the model's default): one call of the library; each
    person's ((mu, sigma) before, (mu, sigma) after)."""

    def rating(user_id: int) -> PlackettLuceRating:
        if user_id in current:
            mu, sigma = current[user_id]
            return MODEL.rating(mu=mu, sigma=sigma)
        return MODEL.rating()

    before = [[rating(user) for _, user in t.seats] for t in teams]
    ranks: list[float] = [t.rank for t in teams]
    after = MODEL.rate(before, ranks=ranks)
    result = {}
    # The library gives back the teams it was given, each of the same size.
    for t, old, new in zip(teams, before, after, strict=True):
        for (_, user), o, n in zip(t.seats, old, new, strict=True):
            result[user] = ((o.mu, o.sigma), (n.mu, n.sigma))
    return result


def game_finished(game: Game, state: GameState, now: datetime | None = None) -> list[RatingChange]:
    """Applies a game's rating update, once; returns its RatingChange rows ([] when the game
    is unrated or was rated before).

    Must run inside the transaction that recorded the game's end (decisions._record, with
    `game` locked and its status already FINISHED). Locks the players' Rating rows in user
    order (two games sharing a player that end at once take turns, never deadlock). A second
    call finds the game's changes and does nothing; the unique (game, user) constraint backs
    that.
    """
    seats = list(Seat.objects.filter(game_id=game.pk).order_by("number"))
    reason = unrated_reason(game, seats)
    if reason:
        # Shown at the game's end (presenters.table): a game played as rated says why its
        # result moved nothing.
        if game.rated and game.rating_note != reason:
            Game.objects.filter(pk=game.pk).update(rating_note=reason)
            game.rating_note = reason
        return []
    over = state.view(None)["game_over"]
    if not over:
        return []
    if RatingChange.objects.filter(game_id=game.pk).exists():
        return []
    return _apply(game, teams_of(game, seats, over), now or game.finished_at or timezone.now())


def _apply(game: Game, teams: list[Team], now: datetime) -> list[RatingChange]:
    users = sorted(user for t in teams for _, user in t.seats)
    # Rows first (a newcomer's at the default), so that every player's row can be locked.
    Rating.objects.bulk_create(
        [
            Rating(user_id=u, players=game.players, mu=MODEL.mu, sigma=MODEL.sigma, updated_at=now)
            for u in users
        ],
        ignore_conflicts=True,
    )
    rows = {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(players=game.players, user_id__in=users)
        .order_by("user_id")
    }
    moved = rate_game(teams, {u: (r.mu, r.sigma) for u, r in rows.items()})
    changes = []
    for t in teams:
        for seat, user in t.seats:
            (mu0, sigma0), (mu1, sigma1) = moved[user]
            changes.append(
                RatingChange(
                    game_id=game.pk,
                    user_id=user,
                    players=game.players,
                    seat=seat,
                    rank=t.rank,
                    mu_before=mu0,
                    sigma_before=sigma0,
                    mu_after=mu1,
                    sigma_after=sigma1,
                    created_at=now,
                )
            )
            row = rows[user]
            row.mu, row.sigma, row.games, row.updated_at = mu1, sigma1, row.games + 1, now
    RatingChange.objects.bulk_create(changes)
    Rating.objects.bulk_update(rows.values(), ["mu", "sigma", "games", "updated_at"])
    return changes


def _finished_rated() -> QuerySet[Game]:
    return Game.objects.filter(status=Game.Status.FINISHED, rated=True)


def rated_games() -> QuerySet[Game]:
    """Every finished rated game, in finish order (finished_at, then id)."""
    return (
        _finished_rated()
        .select_related("snapshot")
        .prefetch_related("seats")
        .order_by("finished_at", "pk")
    )


def computed() -> tuple[dict[tuple[int, int], RatingTuple], list[ChangeTuple], dict[int, str]]:
    """Every rating and change as the stored games give them, in finish order, without
    writing: ({(user, players): (mu, sigma, games, updated_at)}, [change tuples],
    {game id: why it moved no rating})."""
    ratings: dict[tuple[int, int], RatingTuple] = {}
    changes: list[ChangeTuple] = []
    notes: dict[int, str] = {}
    # (people, table size) -> the ends of their games that counted, in finish order: the
    # repeat limit's tally, as stored_count reads it from the rows the live updates wrote.
    ends: dict[tuple[frozenset[int], int], list[datetime]] = {}

    def counted(game: Game, users: frozenset[int]) -> int:
        since = _finished_at(game) - REPEAT_WINDOW
        return sum(1 for end in ends.get((users, game.players), ()) if end > since)

    for game in rated_games().iterator(chunk_size=200):
        seats = sorted(game.seats.all(), key=lambda s: s.number)
        reason = unrated_reason(game, seats, counted)
        if reason:
            notes[game.pk] = reason
            continue
        over = store.load_state(game).view(None)["game_over"]
        if not over:
            continue
        end = _finished_at(game)
        ends.setdefault((frozenset(_person(s) for s in seats), game.players), []).append(end)
        teams = teams_of(game, seats, over)
        current = {
            u: ratings[(u, game.players)][:2]
            for t in teams
            for _, u in t.seats
            if (u, game.players) in ratings
        }
        moved = rate_game(teams, current)
        for t in teams:
            for seat, user in t.seats:
                (mu0, sigma0), (mu1, sigma1) = moved[user]
                games = ratings.get((user, game.players), (0, 0, 0))[2] + 1
                ratings[(user, game.players)] = (mu1, sigma1, games, end)
                changes.append(
                    (game.pk, user, game.players, seat, t.rank, mu0, sigma0, mu1, sigma1, end)
                )
    return ratings, changes, notes


def _stored() -> tuple[
    dict[tuple[int, int], tuple[float, float, int]],
    list[tuple[int, int, int, int, int, float, float, float, float]],
    dict[int, str],
]:
    ratings = {(r.user_id, r.players): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    changes = sorted(
        RatingChange.objects.values_list(
            "game_id",
            "user_id",
            "players",
            "seat",
            "rank",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
        )
    )
    notes = dict(_finished_rated().exclude(rating_note="").values_list("pk", "rating_note"))
    return ratings, changes, notes


def differences(
    ratings: Mapping[tuple[int, int], RatingTuple],
    changes: Sequence[ChangeTuple],
    notes: Mapping[int, str] | None = None,
) -> list[str]:
    """What differs between the stored rows and the computed ones: a list of words (empty
    when every number is the same). Floats are compared exactly: the same library calls on
    the same inputs give the same bits."""
    stored_ratings, stored_changes, stored_notes = _stored()
    wanted_ratings = {k: v[:3] for k, v in ratings.items()}
    wanted_changes = sorted(c[:9] for c in changes)
    found = []
    for key in sorted(set(stored_ratings) | set(wanted_ratings)):
        if stored_ratings.get(key) != wanted_ratings.get(key):
            found.append(
                f"rating of user {key[0]} at {key[1]} players: stored "
                f"{stored_ratings.get(key)}, computed {wanted_ratings.get(key)}"
            )
    if stored_changes != wanted_changes:
        stored_keys = {c[:2]: c for c in stored_changes}
        wanted_keys = {c[:2]: c for c in wanted_changes}
        for key in sorted(set(stored_keys) | set(wanted_keys)):
            if stored_keys.get(key) != wanted_keys.get(key):
                found.append(
                    f"change of user {key[1]} in table {key[0]}: stored "
                    f"{stored_keys.get(key)}, computed {wanted_keys.get(key)}"
                )
    if notes is not None:
        for game_id in sorted(set(stored_notes) | set(notes)):
            if stored_notes.get(game_id) != notes.get(game_id):
                found.append(
                    f"why table {game_id} moved no rating: stored "
                    f"{stored_notes.get(game_id)!r}, computed {notes.get(game_id)!r}"
                )
    return found


def rebuild(write: bool = True) -> list[str]:
    """Recomputes every Rating and RatingChange from the stored games (in finish order) and,
    when `write`, replaces the stored rows with them in one transaction that holds every
    Rating row's lock. Returns the list of differences found before writing."""
    with transaction.atomic():
        list(Rating.objects.select_for_update().values_list("pk", flat=True))
        ratings, changes, notes = computed()
        found = differences(ratings, changes, notes)
        if write and found:
            _finished_rated().exclude(rating_note="").update(rating_note="")
            for reason in set(notes.values()):
                Game.objects.filter(pk__in=[g for g, r in notes.items() if r == reason]).update(
                    rating_note=reason
                )
            RatingChange.objects.all().delete()
            Rating.objects.all().delete()
            Rating.objects.bulk_create(
                [
                    Rating(user_id=u, players=p, mu=mu, sigma=sigma, games=g, updated_at=at)
                    for (u, p), (mu, sigma, g, at) in ratings.items()
                ]
            )
            RatingChange.objects.bulk_create(
                [
                    RatingChange(
                        game_id=g,
                        user_id=u,
                        players=p,
                        seat=s,
                        rank=r,
                        mu_before=m0,
                        sigma_before=s0,
                        mu_after=m1,
                        sigma_after=s1,
                        created_at=at,
                    )
                    for g, u, p, s, r, m0, s0, m1, s1, at in changes
                ]
            )
    return found
