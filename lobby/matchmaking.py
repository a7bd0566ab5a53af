"""Find a game (docs/matchmaking.md): people's searches, and the matcher that seats those
whose searches agree at one new table.

The queue is the Search table, so every web process and worker sees the same one. The
matcher runs after each new or changed search commits (lobby.views) and from beat's sweep
(lobby.tasks); runs are one at a time (a PostgreSQL advisory lock held to the end of the
transaction), so each sees the whole queue instead of the part another run left unlocked.
Inside a run the open searches are locked (FOR UPDATE SKIP LOCKED: a search being
cancelled right now waits for the next run), and a found table is created, its people
seated through lobby.services, started, and their searches marked matched with the game,
all in the one transaction: nobody is seated twice, and nobody leaves the queue without a
seat unless they cancelled or lapsed.

A find page hears at once that its game was found: the deal tells the people's site
sockets (games.effects, waiting.changed), and the socket of a page holding a search asks
`found_url` through games.signals.find_page_asks (the games app may not import the lobby).

Teams: seats n and n + players/2 are partners (games.engine: GameState.partner). Two
people who came together (the friend's link) always sit as partners; everyone else at
random.
"""

import bisect
import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from games.actions import ratings, webpush
from games.models import Game, Seat
from lobby import services
from lobby.models import Search

log = logging.getLogger(__name__)

# The advisory lock that makes matcher runs take turns (any fixed number of our own).
MATCHER_LOCK = 0x57435446
SIZES = (4, 6, 8)
BOT_WAITS = (10, 30, 60, 120)
_random = random.SystemRandom()

BOT_ACCOUNT = "Bot accounts find their games through the Bot API, not Find a game."
RESTRICTED = "Your account may not play at the moment, so it cannot look for a game."
RATED_BOTS = (
    "A table with a site bot is casual: choose casual to fill the empty seats with bots, "
    "or wait for people only."
)
ALREADY_LOOKING = "You are already looking for a game: cancel that search first."


class SearchRefused(services.LobbyError):
    """A search the person may not make; the message is fit to show."""


# --- Making, joining, cancelling a search ---------------------------------------------


def _refuse_searcher(user, rated, pace):
    if user.is_bot:
        raise SearchRefused(BOT_ACCOUNT, status=403)
    if not user.is_active or user.is_restricted:
        raise SearchRefused(RESTRICTED, status=403)
    if rated and not ratings.may_sit_rated(user):
        raise SearchRefused(ratings.NEEDS_CONFIRMED_EMAIL, status=403)
    if pace == Search.REALTIME:
        # Nobody plays two real-time games at once: a seat of a running one is refused.
        playing = (
            Seat.objects.filter(
                user=user, game__status=Game.Status.ACTIVE, game__pace=Game.Pace.REALTIME
            )
            .values_list("game_id", flat=True)
            .first()
        )
        if playing is not None:
            raise SearchRefused(
                f"You are playing a real-time game (table {playing}): finish it first."
            )


def _close_open(user, now, status=Search.Status.CANCELLED):
    """Ends `user`'s open search (a new one replaces it)."""
    for old in Search.objects.open().select_for_update().filter(user=user):
        _close(old, status, now)


def _close(search, status, now):
    """Ends `search`. Only its own row is written: a pair's other half, which may be locked
    by its own cancel right now, learns it from this row's status (a pair is two open
    searches), so no two closes ever wait for each other's rows."""
    search.status, search.closed_at = status, now
    search.save(update_fields=["status", "closed_at"])


def paired_with(search):
    """The other half of `search`'s pair while both are looking, else None."""
    if search.partner_id is None:
        return None
    return Search.objects.open().filter(pk=search.partner_id).first()


def start_search(user, *, players, pace, move_seconds, turn_hours, rated, bots_after):
    """A new search of `user` (replacing an open one, so that changing one's choices is one
    submit); returns it. Raises SearchRefused: a bot account, a banned or suspended
    account, rated without a confirmed email, rated with bots, already playing in real time,
    or two submits at once (the second finds the one open search taken)."""
    if rated and bots_after is not None:
        raise SearchRefused(RATED_BOTS, status=400)
    _refuse_searcher(user, rated, pace)
    now = timezone.now()
    try:
        with transaction.atomic():
            _close_open(user, now)
            search = Search.objects.create(
                user=user,
                players=players,
                pace=pace,
                move_seconds=move_seconds if pace == Search.REALTIME else 0,
                turn_hours=turn_hours if pace == Search.TURN_BASED else 0,
                rated=rated,
                bots_after=bots_after,
                rating=ratings.rating_shown(user, players or 4),
                created_at=now,
                seen_at=now,
            )
    except IntegrityError:
        # One open search per person (Search's constraint): another request made one first.
        raise SearchRefused(ALREADY_LOOKING) from None
    transaction.on_commit(match_soon)
    return search


def join_search(user, token):
    """`user` joins, as a pair, the open search whose friend's link carries `token`: a
    search of their own with the same choices, the two always seated as partners. Returns
    the new search. Raises SearchRefused (404: no such open search)."""
    now = timezone.now()
    try:
        with transaction.atomic():
            host = Search.objects.select_for_update().filter(token=token).first()
            if host is None or host.status != Search.Status.OPEN:
                raise SearchRefused("That search is over: ask your friend for a new link.", 404)
            if host.user_id == user.pk:
                raise SearchRefused("This is your own search: send the link to a friend.")
            if paired_with(host) is not None:
                raise SearchRefused("Someone has joined this search already.")
            _refuse_searcher(user, host.rated, host.pace)
            _close_open(user, now)
            # A half that left before still points here: the pointer is unique.
            Search.objects.filter(partner=host).update(partner=None)
            search = Search.objects.create(
                user=user,
                players=host.players,
                pace=host.pace,
                move_seconds=host.move_seconds,
                turn_hours=host.turn_hours,
                rated=host.rated,
                bots_after=host.bots_after,
                rating=ratings.rating_shown(user, host.players or 4),
                partner=host,
                created_at=now,
                seen_at=now,
            )
            host.partner = search
            host.save(update_fields=["partner"])
    except IntegrityError:
        raise SearchRefused(ALREADY_LOOKING) from None
    transaction.on_commit(match_soon)
    return search


def cancel_search(user, search_id):
    """Ends `user`'s search `search_id` if still open; returns it as it is now (found
    meanwhile: matched, with its game), or None when it is not theirs."""
    with transaction.atomic():
        search = Search.objects.select_for_update().filter(pk=search_id, user=user).first()
        if search is not None and search.status == Search.Status.OPEN:
            _close(search, Search.Status.CANCELLED, timezone.now())
        return search


# --- The find page's heartbeat (games.signals, connected in lobby.apps) ----------------


def page_here(user_id, search, hidden=False, now=None, **kwargs):
    """The find page of `search` is open (and in the background if `hidden`)."""
    Search.objects.open().filter(pk=search, user_id=user_id).update(
        seen_at=now or timezone.now(), hidden=hidden
    )


def on_page_here(user_id, search, hidden=False, **kwargs):
    """The site socket's heartbeat (games.signals.site_page_here): keeps the search alive,
    and once its bots' wait is over runs the matcher, so that the bots come within a
    heartbeat even when beat's sweep is late or not running."""
    now = timezone.now()
    page_here(user_id, search, hidden, now)
    row = (
        Search.objects.open().filter(pk=search, user_id=user_id).values("bots_after", "created_at")
    )
    due = next(iter(row), None)
    if due and due["bots_after"] is not None:
        if (now - due["created_at"]).total_seconds() >= due["bots_after"]:
            match_soon()


def page_closed(user_id, search, now=None, **kwargs):
    """The socket of the find page of `search` closed: a real-time search lapses after a
    short grace (a reload says "here" again within it)."""
    now = now or timezone.now()
    lapse = now - timedelta(
        seconds=settings.SEARCH_ALIVE_SECONDS - settings.SEARCH_CLOSE_GRACE_SECONDS
    )
    Search.objects.open().filter(
        pk=search, user_id=user_id, pace=Search.REALTIME, seen_at__gt=lapse
    ).update(seen_at=lapse, hidden=False)


# --- Counts -----------------------------------------------------------------------------


def _same(search):
    wanted = Q() if search.players == Search.ANY else Q(players__in=(search.players, Search.ANY))
    return Q(pace=search.pace, rated=search.rated) & wanted & _timer_q(search)


def _timer_q(search):
    if search.pace == Search.REALTIME:
        return Q(move_seconds=search.move_seconds)
    return Q(turn_hours=search.turn_hours)


def looking_for_same(search, now=None):
    """How many people (this one too) are looking for what `search` looks for."""
    return Search.objects.alive(now or timezone.now()).filter(_same(search)).count()


def lobby_counts(now=None):
    """[{pace label, counts: [4, 6, 8, any]}]: people looking, per pace and table size."""
    found = {
        (row["pace"], row["players"]): row["n"]
        for row in Search.objects.alive(now or timezone.now())
        .values("pace", "players")
        .annotate(n=Count("id"))
    }
    sizes = (*SIZES, Search.ANY)
    return [
        {"pace": label, "key": pace, "counts": [found.get((pace, size), 0) for size in sizes]}
        for pace, label in ((Search.REALTIME, "Real time"), (Search.TURN_BASED, "Turn by turn"))
    ]


# --- The matcher ------------------------------------------------------------------------


@dataclass(eq=False)  # compared by identity: the matcher asks "is this one still free?"
class Unit:
    """One search, or a pair's two: seated together, as partners."""

    searches: list

    @property
    def seats(self):
        return len(self.searches)

    @property
    def first(self):
        return self.searches[0]

    @property
    def created_at(self):
        return min(s.created_at for s in self.searches)

    @property
    def rating(self):
        return sum(s.rating for s in self.searches) / len(self.searches)

    def waited(self, now):
        return (now - self.created_at).total_seconds()

    def fits(self, size):
        return self.first.players in (size, Search.ANY)

    def gap(self, now):
        """The rating gap this unit accepts: wider the longer it has waited."""
        steps = int(self.waited(now) // settings.SEARCH_RATING_WIDEN_SECONDS)
        return settings.SEARCH_RATING_GAP + settings.SEARCH_RATING_WIDEN * steps

    def bots_due(self, now):
        after = self.first.bots_after
        return after is not None and self.waited(now) >= after


def _take_turns():
    """Matcher runs one at a time across every process (PostgreSQL; SQLite writes one at a
    time anyway), until this transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [MATCHER_LOCK])


def _may_still_play(search):
    user = search.user
    if user.is_bot or not user.is_active or user.is_restricted:
        return False
    return not search.rated or ratings.may_sit_rated(user)


def _units(searches, now):
    """The searches as units. A search whose person may no longer play is closed; a pair
    whose other half is still open but not here (being cancelled right now, or its page
    gone quiet until the sweep ends it) waits; one whose other half has ended looks alone."""
    by_id = {s.pk: s for s in searches}
    away = [s.partner_id for s in searches if s.partner_id and s.partner_id not in by_id]
    still_open = set(Search.objects.open().filter(pk__in=away).values_list("pk", flat=True))
    units, done = [], set()
    for search in searches:
        if search.pk in done:
            continue
        done.add(search.pk)
        if not _may_still_play(search):
            _close(search, Search.Status.CANCELLED, now)
            continue
        partner = by_id.get(search.partner_id) if search.partner_id else None
        if partner is None:
            if search.partner_id not in still_open:
                units.append(Unit([search]))
        elif partner.pk not in done:
            done.add(partner.pk)
            if _may_still_play(partner):
                units.append(Unit([search, partner]))
            else:
                _close(partner, Search.Status.CANCELLED, now)
    return units


def _group(pool, size, now, anchor, partial=False, by_rating=None):
    """Units of `pool` to seat with `anchor` at a table of `size`: the nearest ratings
    first for a rated search (within the anchor's gap), the oldest first otherwise. Only a
    full table, unless `partial` (bots fill the rest). `by_rating`: `pool` as
    (ratings, units) sorted by rating, so that a rated anchor looks only at the units
    within its gap instead of the whole queue."""
    if anchor.first.rated:
        gap = anchor.gap(now)
        if by_rating is not None:
            ratings_, units = by_rating
            low = bisect.bisect_left(ratings_, anchor.rating - gap)
            high = bisect.bisect_right(ratings_, anchor.rating + gap)
            near = units[low:high]
        else:
            near = [u for u in pool if abs(u.rating - anchor.rating) <= gap]
        others = [u for u in near if u is not anchor and u.fits(size)]
        others.sort(key=lambda u: (abs(u.rating - anchor.rating), u.created_at))
    else:
        others = [u for u in pool if u is not anchor and u.fits(size)]
    group, seats = [anchor], anchor.seats
    for unit in others:
        if seats + unit.seats <= size:
            group.append(unit)
            seats += unit.seats
        if seats == size:
            return group
    return group if partial else None


def _sizes(pool):
    """The table sizes to try, the most asked for first (any size goes where others wait)."""
    wanted = {size: sum(u.seats for u in pool if u.first.players == size) for size in SIZES}
    return sorted(SIZES, key=lambda size: (-wanted[size], size))


def plan_tables(units, now):
    """[(size, [Unit])]: the tables to seat from one bucket's units (same pace, timer,
    rated or not), oldest anchors first. Full tables of people first; then, for a unit
    whose bots' wait is over, a table of it and whoever else takes bots, bots in the rest."""
    pool = sorted(units, key=lambda u: (u.created_at, u.first.pk))
    tables = []
    while True:
        sizes = _sizes(pool)
        ranked = sorted(pool, key=lambda u: u.rating)
        by_rating = ([u.rating for u in ranked], ranked)
        found = next(
            (
                (size, group)
                for anchor in pool
                for size in sizes
                if anchor.fits(size)
                for group in [_group(pool, size, now, anchor, by_rating=by_rating)]
                if group
            ),
            None,
        )
        if found is None:
            break
        tables.append(found)
        seated = set(found[1])
        pool = [u for u in pool if u not in seated]
    for anchor in [u for u in pool if u.bots_due(now)]:
        if anchor not in pool:
            continue
        size = anchor.first.players or 4
        takers = [u for u in pool if u.first.bots_after is not None]
        group = _group(takers, size, now, anchor, partial=True)
        tables.append((size, group))
        seated = set(group)
        pool = [u for u in pool if u not in seated]
    return tables


def arrange(size, units, rng=_random):
    """{seat number: Search or None (a bot)}: pairs at partner seats (n and n + size/2),
    the others at random, and seat 0 a person (the host, whom the table needs)."""
    half = size // 2
    teams = list(range(half))
    rng.shuffle(teams)
    seats = {}
    for unit in (u for u in units if u.seats == 2):
        team = teams.pop()
        first, second = rng.sample([team, team + half], 2)
        seats[first], seats[second] = unit.searches
    free = [n for n in range(size) if n not in seats]
    rng.shuffle(free)
    for unit in (u for u in units if u.seats == 1):
        seats[free.pop()] = unit.first
    for number in free:
        seats[number] = None
    # Turning the table keeps every pair of partners (n and n + half move together).
    shift = min(n for n, s in seats.items() if s is not None)
    return {(n - shift) % size: s for n, s in seats.items()}


def _seat_table(size, units, now):
    """Creates, fills and starts one found table, and closes its searches; the caller's
    transaction holds it all. Raises services.LobbyError if a seat is refused."""
    seats = arrange(size, units)
    first = units[0].first
    host = seats[0].user
    game = services.create_table(
        host,
        players=size,
        pace=first.pace,
        move_seconds=first.move_seconds or 30,
        turn_hours=first.turn_hours or 24,
        rated=first.rated,
    )
    for number, search in sorted(seats.items()):
        if number == 0:
            continue
        if search is None:
            services.add_bot(game.pk, host, number, Seat.BotLevel.NORMAL)
        else:
            services.take_seat(game.pk, search.user, number)
    services.start_table(game.pk, host)
    searches = [s for s in seats.values() if s is not None]
    closed = (
        Search.objects.open()
        .filter(pk__in=[s.pk for s in searches])
        .update(status=Search.Status.MATCHED, game=game, closed_at=now)
    )
    if closed != len(searches):
        # Cannot happen under the rows' locks; if it did, the table is rolled back rather
        # than seat someone whose search ended.
        raise services.LobbyError("a search ended while its table was being seated")
    # Whoever is not looking at the find page hears it by Web Push.
    away = [s.user_id for s in searches if s.pace == Search.TURN_BASED or s.hidden]
    if away:
        webpush.table_found(game, away)
    log.info(
        "found table %s: %s people, %s bots",
        game.pk,
        len(searches),
        size - len(searches),
        extra={"game": game.pk},
    )
    # The find pages hear of it from the deal itself: every event of a game tells its
    # people's site sockets (waiting.changed), and the socket of a find page then asks
    # found_url (games.signals.find_page_asks) and sends the page to the table.
    return game


def found_url(user_id, search, **kwargs):
    """The table of `user_id`'s search `search` once it is found, else None: the site
    socket's question (games.signals.find_page_asks)."""
    game_id = (
        Search.objects.filter(pk=search, user_id=user_id, status=Search.Status.MATCHED)
        .values_list("game_id", flat=True)
        .first()
    )
    return reverse("games:play", args=[game_id]) if game_id else None


def _bucket(search):
    return (search.pace, search.timer, search.rated)


def match(now=None):
    """One run of the matcher: seats every table that can be seated now; returns the
    games it started."""
    now = now or timezone.now()
    games = []
    with transaction.atomic():
        _take_turns()
        searches = list(
            Search.objects.alive(now)
            .select_for_update(skip_locked=True, of=("self",))
            .select_related("user")
            .order_by("created_at", "pk")
        )
        buckets = {}
        for unit in _units(searches, now):
            buckets.setdefault(_bucket(unit.first), []).append(unit)
        for units in buckets.values():
            for size, group in plan_tables(units, now):
                try:
                    with transaction.atomic():
                        games.append(_seat_table(size, group, now))
                except services.LobbyError as exc:
                    # Someone's account changed since their search was read: the next
                    # run closes theirs (_may_still_play) and seats the others.
                    log.warning("a found table was refused: %s", exc)
    return games


def match_soon():
    """Runs the matcher after a commit (a new or changed search), logging a failure: beat's
    sweep runs it again within seconds."""
    try:
        match()
    except Exception:
        log.exception("the matcher failed after a search; the sweep will run it again")


def sweep(now=None):
    """Closes the searches nobody holds any longer (a real-time one whose page is gone, a
    turn-by-turn one past SEARCH_TURN_BASED_HOURS), then matches. Returns the games."""
    now = now or timezone.now()
    with transaction.atomic():
        turn_limit = now - timedelta(hours=settings.SEARCH_TURN_BASED_HOURS)
        alive = Search.objects.alive(now).values("pk")
        stale = (
            Search.objects.open()
            .filter(
                (Q(pace=Search.REALTIME) & ~Q(pk__in=alive))
                | Q(pace=Search.TURN_BASED, created_at__lt=turn_limit)
            )
            .select_for_update(skip_locked=True)
        )
        lapsed = 0
        for search in stale:
            _close(search, Search.Status.EXPIRED, now)
            lapsed += 1
        if lapsed:
            log.info("%s searches lapsed (no page, or past their hours)", lapsed)
    return match(now)


def waited_label(search, now: datetime | None = None) -> str:
    seconds = int(((now or timezone.now()) - search.created_at).total_seconds())
    return f"{seconds // 60}:{seconds % 60:02d}"
