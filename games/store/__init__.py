"""Reading and writing a game's rows: the SQL of a decision's hot path
(actions.decisions.apply_decision / _record), and the state as a fold of the events.

A decision is a handful of statements whatever the game's length: lock the
game row (joined with its snapshot), look up the idempotency key, and one
write that appends the event and brings the game's columns and the snapshot
up to date. On PostgreSQL these are plain SQL through Django's cursor, so
the ORM's query compilation and model plumbing are not paid on every click
(the statements are still logged and counted like any other); every JSON
value is serialized once, with `json.dumps`, as JSONField would. Other
backends (SQLite in development) take the equivalent ORM path.

The write also reads what the push after the commit shows (the seats with their
names, the last events of the move log) when the writer asks for it (TableReads): the
push then sends no statement of its own, and a move is one transaction.

Callers still get real model instances (Game with its snapshot cached, as
`select_related("snapshot")` would; GameEvent), built from the fetched row
without a second query.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, JSONField, Model

from accounts.models import User
from games import engine
from games.engine.types import Action, Event, SnapshotDict
from games.models import Game, GameEvent, GameSnapshot, Seat

M = TypeVar("M", bound=Model)

_GAME_FIELDS = Game._meta.concrete_fields
_SNAPSHOT_FIELDS = GameSnapshot._meta.concrete_fields
_EVENT_FIELDS = GameEvent._meta.concrete_fields
_GAME_JSON = frozenset(f.attname for f in _GAME_FIELDS if isinstance(f, JSONField))
_GAME_COLUMNS = {f.attname: f.column for f in _GAME_FIELDS}


# Field's type arguments are its stubs' only: quoted, they are never evaluated.
def _json_positions(fields: "Iterable[Field[Any, Any]]") -> list[int]:
    return [i for i, f in enumerate(fields) if isinstance(f, JSONField)]


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _column(model: type[Model], name: str) -> str:
    """The database column of `model`'s field `name` (a concrete field, never a relation's
    other side)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field):
        raise TypeError(f"{model.__name__}.{name} has no column.")
    return field.column


def _select_list(alias: str, fields: "Iterable[Field[Any, Any]]") -> str:
    return ", ".join(f"{alias}.{_q(f.column)}" for f in fields)


# Each statement's text, built once per process: by its name, or ("write", columns).
_sql: dict[str | tuple[str, tuple[str, ...], bool], str] = {}


def _lock_sql() -> str:
    sql = _sql.get("lock")
    if sql is None:
        # FOR UPDATE OF g: only the game row is locked (the snapshot is an outer join),
        # exactly as select_for_update(of=("self",)).select_related("snapshot").
        sql = _sql["lock"] = (
            f"SELECT {_select_list('g', _GAME_FIELDS)}, {_select_list('s', _SNAPSHOT_FIELDS)} "
            f"FROM {_q(Game._meta.db_table)} g "
            f"LEFT OUTER JOIN {_q(GameSnapshot._meta.db_table)} s "
            f"ON s.{_q('game_id')} = g.{_q('id')} "
            f"WHERE g.{_q('id')} = %s FOR UPDATE OF g"
        )
    return sql


def _key_sql() -> str:
    sql = _sql.get("key")
    if sql is None:
        sql = _sql["key"] = (
            f"SELECT {_select_list('e', _EVENT_FIELDS)} FROM {_q(GameEvent._meta.db_table)} e "
            f"WHERE e.{_q('game_id')} = %s AND e.{_q('idempotency_key')} = %s "
            f"ORDER BY e.{_q('seq')} LIMIT 1"
        )
    return sql


def _holder_and_key_sql() -> str:
    """The seat's holder (user id and the flags that decide whether they may play) and the
    event recorded under the key, in one round trip: a person's move costs no more
    statements than a bot's. Either side is NULLs when absent."""
    sql = _sql.get("holder")
    if sql is None:
        user = get_user_model()
        flags = ", ".join(f"u.{_q(_column(user, f))}" for f in HOLDER_FIELDS)
        sql = _sql["holder"] = (
            f"SELECT h.*, k.* FROM (SELECT 1) one "
            f"LEFT JOIN LATERAL (SELECT s.{_q('user_id')}, {flags} "
            f"FROM {_q(Seat._meta.db_table)} s "
            f"LEFT OUTER JOIN {_q(user._meta.db_table)} u ON u.{_q('id')} = s.{_q('user_id')} "
            f"WHERE s.{_q('game_id')} = %s AND s.{_q('number')} = %s) h ON true "
            f"LEFT JOIN LATERAL ({_key_sql()}) k ON true"
        )
    return sql


_INSERT_COLUMNS = (
    "game_id",
    "seq",
    "kind",
    "seat",
    "actor",
    "user_id",
    "action",
    "events",
    "idempotency_key",
    "created_at",
)


def _table_reads_sql() -> str:
    """What the write returns beside the event's id for a push (TableReads): the event's
    JSON as PostgreSQL writes it out, the last events before it (each (seq, JSON text),
    oldest first) and the seats with their users' names, as JSON. The CTEs' writes are not
    seen by the rest of the statement, so the events read stop at the one before."""
    sql = _sql.get("table reads")
    if sql is None:
        user_model = get_user_model()
        seat_columns = ", ".join(f"st.{_q(_column(Seat, f))}" for f in _SEAT_FIELDS)
        user_columns = ", ".join(f"u.{_q(_column(user_model, f))}" for f in _USER_NAME_FIELDS)
        sql = _sql["table reads"] = (
            f", ev.{_q('events')}::text, "
            f"(SELECT json_agg(json_build_array(r.{_q('seq')}, r.{_q('events')}::text) "
            f"ORDER BY r.{_q('seq')}) FROM (SELECT {_q('seq')}, {_q('events')} "
            f"FROM {_q(GameEvent._meta.db_table)} WHERE {_q('game_id')} = %s "
            f"ORDER BY {_q('seq')} DESC LIMIT %s) r)::text, "
            f"(SELECT json_agg(json_build_array({seat_columns}, {user_columns}) "
            f"ORDER BY st.{_q('number')}) FROM {_q(Seat._meta.db_table)} st "
            f"LEFT OUTER JOIN {_q(user_model._meta.db_table)} u "
            f"ON u.{_q('id')} = st.{_q('user_id')} WHERE st.{_q('game_id')} = %s)::text"
        )
    return sql


def _write_sql(names: tuple[str, ...], reads: bool = False) -> str:
    """One statement: INSERT the event, UPDATE the game's `names` columns and the snapshot
    (data-modifying CTEs all run, in one round trip, and fail or succeed together); with
    `reads`, it returns what a push reads too (_table_reads_sql)."""
    key = ("write", names, reads)
    sql = _sql.get(key)
    if sql is None:
        values = ", ".join(
            "%s::jsonb" if c in ("action", "events") else "%s" for c in _INSERT_COLUMNS
        )
        sets = ", ".join(
            f"{_q(_GAME_COLUMNS[n])} = %s::jsonb"
            if n in _GAME_JSON
            else f"{_q(_GAME_COLUMNS[n])} = %s"
            for n in names
        )
        sql = _sql[key] = (
            f"WITH ev AS (INSERT INTO {_q(GameEvent._meta.db_table)} "
            f"({', '.join(_q(c) for c in _INSERT_COLUMNS)}) VALUES ({values}) "
            f"RETURNING {_q('id')}, {_q('events')}), "
            f"g AS (UPDATE {_q(Game._meta.db_table)} SET {sets} WHERE {_q('id')} = %s), "
            f"s AS (UPDATE {_q(GameSnapshot._meta.db_table)} SET {_q('seq')} = %s, "
            f"{_q('state')} = %s::jsonb, {_q('updated_at')} = %s WHERE {_q('game_id')} = %s) "
            f"SELECT ev.{_q('id')}{_table_reads_sql() if reads else ''} FROM ev"
        )
    return sql


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def _dumps(value: object) -> str | None:
    return None if value is None else json.dumps(value)


def _plain(value: Any) -> Any:
    """A choices member (GameEvent.Actor.SYSTEM, Game.Status.FINISHED) as its plain value."""
    return str(value) if isinstance(value, str) and type(value) is not str else value


_GAME_JSON_POS = _json_positions(_GAME_FIELDS)
_SNAPSHOT_JSON_POS = _json_positions(_SNAPSHOT_FIELDS)
_EVENT_JSON_POS = _json_positions(_EVENT_FIELDS)
# Every field, in the order the statements above select them.
_GAME_NAMES = [f.attname for f in _GAME_FIELDS]
_SNAPSHOT_NAMES = [f.attname for f in _SNAPSHOT_FIELDS]
_EVENT_NAMES = [f.attname for f in _EVENT_FIELDS]


def _instance(
    model: type[M], row: Sequence[Any], json_positions: Iterable[int], names: Sequence[str]
) -> M:
    values = list(row)
    for i in json_positions:
        values[i] = _loads(values[i])
    return model.from_db(connection.alias, names, values)


HOLDER_FIELDS = ("banned_at", "suspended_until", "is_active")


@dataclass(frozen=True)
class SeatHolder:
    """Who holds a seat now, read under the game's lock: never a user object cached earlier
    (a socket's user is loaded once, when it connects)."""

    user_id: int | None
    banned_at: datetime | None
    suspended_until: datetime | None
    is_active: bool

    def may_play(self, now: datetime) -> bool:
        return (
            self.user_id is not None
            and self.is_active
            and self.banned_at is None
            and (self.suspended_until is None or self.suspended_until <= now)
        )


def lock_game(
    game_id: int, idempotency_key: str | None = None, seat: int | None = None
) -> tuple[Game, GameEvent | None, SeatHolder | None]:
    """(game, prior, holder): the game row, locked until the end of the transaction, with its
    snapshot cached (None before the deal); the event already recorded under
    `idempotency_key` (None when there is none, or no key); and, when `seat` is given, the
    SeatHolder of that seat (None otherwise, or when there is no such seat). Raises
    Game.DoesNotExist.

    The look-ups are a statement of their own, sent once the locking statement has
    returned: under READ COMMITTED only a new statement sees an event committed by the
    lock's last holder (a subquery inside the locking SELECT would not), and the seat as
    the lock's last holder left it. (Sending both in one psycopg pipeline was measured
    slower here than two plain round trips.)
    """
    if connection.vendor != "postgresql":
        game = (
            Game.objects.select_for_update(of=("self",)).select_related("snapshot").get(pk=game_id)
        )
        prior: GameEvent | None = None
        holder: SeatHolder | None = None
        if idempotency_key:
            prior = GameEvent.objects.filter(
                game_id=game.pk, idempotency_key=idempotency_key
            ).first()
        if seat is not None:
            row = (
                Seat.objects.filter(game_id=game.pk, number=seat)
                .values_list("user_id", *(f"user__{f}" for f in HOLDER_FIELDS))
                .first()
            )
            holder = _holder(row)
        return game, prior, holder
    with connection.cursor() as cursor:
        cursor.execute(_lock_sql(), [game_id])
        row = cursor.fetchone()
        prior_row = holder_row = None
        if row is not None and seat is not None:
            cursor.execute(_holder_and_key_sql(), [game_id, seat, game_id, idempotency_key])
            both = cursor.fetchone()
            holder_row, prior_row = both[:4], both[4:]
            if prior_row[0] is None:
                prior_row = None
        elif row is not None and idempotency_key:
            cursor.execute(_key_sql(), [game_id, idempotency_key])
            prior_row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"{Game._meta.object_name} matching query does not exist.")
    n = len(_GAME_FIELDS)
    game = _instance(Game, row[:n], _GAME_JSON_POS, _GAME_NAMES)
    snapshot_row = row[n:]
    snapshot: GameSnapshot | None
    if snapshot_row[0] is None:
        snapshot = None
    else:
        snapshot = _instance(GameSnapshot, snapshot_row, _SNAPSHOT_JSON_POS, _SNAPSHOT_NAMES)
        snapshot._state.fields_cache["game"] = game
    game._state.fields_cache["snapshot"] = snapshot
    prior = (
        None
        if prior_row is None
        else _instance(GameEvent, prior_row, _EVENT_JSON_POS, _EVENT_NAMES)
    )
    return game, prior, _holder(holder_row)


def _holder(row: Sequence[Any] | None) -> SeatHolder | None:
    """A SeatHolder from (user_id, *HOLDER_FIELDS); None for no such seat. An empty or bot
    seat has a row of NULLs and so a holder whose user_id is None."""
    if row is None:
        return None
    user_id, banned_at, suspended_until, is_active = row
    return SeatHolder(user_id, banned_at, suspended_until, bool(is_active))


@dataclass
class TableReads:
    """What the push after a write shows besides the state: the game's seats with their
    users' names (as `table_seats`) and its last `log_rows` events, the new one included
    (as `recent_events`). `append` fills them, on PostgreSQL, in its one statement; `seq`
    is the event they go up to. Left empty (other backends), the push reads them itself."""

    log_rows: int
    seq: int | None = None
    seats: list[Seat] | None = None
    rows: list["EventRow"] | None = None

    def up_to(self, seq: int) -> bool:
        """True when filled by the write of event `seq`: a push of a later event (another
        write in the same transaction) reads for itself."""
        return self.seq == seq and self.seats is not None and self.rows is not None


def append(
    game: Game,
    *,
    seq: int,
    kind: str,
    seat: int | None,
    actor: str,
    user: User | None,
    action: Action | None,
    events: list[Event],
    idempotency_key: str | None,
    now: datetime,
    columns: Mapping[str, Any],
    state: SnapshotDict | None,
    reads: TableReads | None = None,
) -> GameEvent:
    """Appends event `seq`, sets the game's `columns` and the snapshot to `state` (a dict;
    None for a table not yet dealt, which has no snapshot row to set). On PostgreSQL, fills
    `reads` (when given) from the same statement.

    Returns the new GameEvent. Must run inside the transaction that locked `game`.
    """
    if connection.vendor != "postgresql":
        event = GameEvent.objects.create(
            game=game,
            seq=seq,
            kind=kind,
            seat=seat,
            actor=actor,
            user=user,
            action=action,
            events=events,
            idempotency_key=idempotency_key,
            created_at=now,
        )
        Game.objects.filter(pk=game.pk).update(**columns)
        GameSnapshot.objects.filter(game_id=game.pk).update(seq=seq, state=state, updated_at=now)
        return event
    names = tuple(columns)
    params: list[Any] = [
        game.pk,
        seq,
        _plain(kind),
        seat,
        _plain(actor),
        None if user is None else user.pk,
        _dumps(action),
        json.dumps(events),
        idempotency_key,
        now,
    ]
    params += [_dumps(columns[n]) if n in _GAME_JSON else _plain(columns[n]) for n in names]
    params += [game.pk, seq, json.dumps(state), now, game.pk]
    if reads is not None:
        params += [game.pk, reads.log_rows - 1, game.pk]
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(names, reads is not None), params)
        row = cursor.fetchone()
    event_id = row[0]
    if reads is not None:
        _fill(reads, seq, *row[1:])
    event = GameEvent(
        id=event_id,
        game=game,
        seq=seq,
        kind=kind,
        seat=seat,
        actor=actor,
        user=user,
        action=action,
        events=events,
        idempotency_key=idempotency_key,
        created_at=now,
    )
    event._state.adding = False
    event._state.db = connection.alias
    return event


def _fill(reads: TableReads, seq: int, raw: str, earlier: str | None, seats: str) -> None:
    """`reads` from the write's three extra columns (_table_reads_sql)."""
    rows = [EventRow(s, raw=text) for s, text in json.loads(earlier or "[]")]
    rows.append(EventRow(seq, raw=raw))
    user_model = get_user_model()
    n = len(_SEAT_FIELDS)
    built = []
    for values in json.loads(seats or "[]"):
        seat = Seat.from_db(connection.alias, _SEAT_FIELDS, _python(Seat, _SEAT_FIELDS, values[:n]))
        user = None
        if seat.user_id is not None:
            names = _python(user_model, _USER_NAME_FIELDS, values[n:])
            user = user_model.from_db(connection.alias, _USER_NAME_FIELDS, names)
        seat._state.fields_cache["user"] = user
        built.append(seat)
    reads.seq, reads.rows, reads.seats = seq, rows, built


def _python(model: type[Model], names: Sequence[str], values: Sequence[Any]) -> list[Any]:
    """Values read as JSON in the fields' Python types (a time is text in JSON)."""
    fields = {f.attname: f for f in model._meta.concrete_fields}
    return [
        None if v is None else fields[name].to_python(v)
        for name, v in zip(names, values, strict=True)
    ]


def save_columns(game: Game, columns: Mapping[str, Any]) -> None:
    """Writes `columns` of a game whose row lock the caller holds, without an event (a
    socket coming or going, a sweep's reminders and ended holds, the next countdown), and
    sets them on `game`. Nothing to write costs no statement."""
    if columns:
        Game.objects.filter(pk=game.pk).update(**columns)
        for name, value in columns.items():
            setattr(game, name, value)


def claim_stalled_bots(game: Game, now: datetime) -> bool:
    """True when this caller claims the re-send of `game`'s stalled bot moves: a
    conditional update of `bot_due_at` that hits the row only while the game is still at
    the event and the due time it was found at, so a second sweep running at the same time
    claims nothing."""
    return bool(
        Game.objects.filter(pk=game.pk, last_seq=game.last_seq, bot_due_at=game.bot_due_at).update(
            bot_due_at=now
        )
    )


# --- what a push reads (games.effects, games.presenters.table) ----------------------------


class EventRow:
    """One event row as a push reads it: `seq`, and `events` parsed from `raw` (the stored
    JSON text) only when asked. `raw` is what the move log's cache is keyed on
    (presenters.describe.row_move): a row already described need not be parsed again."""

    __slots__ = ("seq", "raw", "_events")

    def __init__(
        self,
        seq: int,
        events: list[Event] | None = None,
        raw: str | None = None,
    ) -> None:
        self.seq, self.raw, self._events = seq, raw, events

    @property
    def events(self) -> list[Event]:
        if self._events is None:
            if self.raw is None:
                raise TypeError("An EventRow is built with its events or their JSON text.")
            self._events = cast(list[Event], json.loads(self.raw))
        return self._events


_SEAT_FIELDS = [f.attname for f in Seat._meta.concrete_fields]
# is_bot: a bot account is named "Name [bot]" (presenters.describe.seat_names).
_USER_NAME_FIELDS = ("id", "username", "display_name", "is_bot")


# An event number past any game's last (seq is a PostgreSQL integer).
_NO_END = 2**31 - 1


def recent_events(game_id: int, limit: int | None, upto: int | None = None) -> list[EventRow]:
    """The game's last `limit` events, oldest first, as (seq, events) rows: what the move
    log needs, without building a model instance per row on every push. With `upto`, the
    last ones up to that event: a page rendered at the event its game row was read at,
    whatever move landed since (the rows are read in a statement of their own)."""
    if connection.vendor != "postgresql":
        newest = GameEvent.objects.filter(game_id=game_id).order_by("-seq")
        if upto is not None:
            newest = newest.filter(seq__lte=upto)
        return [
            EventRow(seq, events) for seq, events in newest.values_list("seq", "events")[:limit]
        ][::-1]
    sql = _sql.get("recent")
    if sql is None:
        sql = _sql["recent"] = (
            f"SELECT {_q('seq')}, {_q('events')} FROM {_q(GameEvent._meta.db_table)} "
            f"WHERE {_q('game_id')} = %s AND {_q('seq')} <= %s "
            f"ORDER BY {_q('seq')} DESC LIMIT %s"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id, upto if upto is not None else _NO_END, limit])
        rows = cursor.fetchall()
    return [EventRow(seq, raw=events) for seq, events in reversed(rows)]


def table_seats(game_id: int) -> list[Seat]:
    """The game's seats in seat order, each person's `user` loaded with its names only
    (every other field is deferred: reading one costs a query, never a wrong value)."""
    if connection.vendor != "postgresql":
        return list(Seat.objects.filter(game_id=game_id).select_related("user"))
    user_model = get_user_model()
    sql = _sql.get("seats")
    if sql is None:
        user_columns = ", ".join(f"u.{_q(_column(user_model, f))}" for f in _USER_NAME_FIELDS)
        seat_columns = ", ".join("s." + _q(_column(Seat, f)) for f in _SEAT_FIELDS)
        sql = _sql["seats"] = (
            f"SELECT {seat_columns}, {user_columns} FROM {_q(Seat._meta.db_table)} s "
            f"LEFT OUTER JOIN {_q(user_model._meta.db_table)} u "
            f"ON u.{_q('id')} = s.{_q('user_id')} "
            f"WHERE s.{_q('game_id')} = %s ORDER BY s.{_q('number')}"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    seats = []
    n = len(_SEAT_FIELDS)
    for row in rows:
        seat = Seat.from_db(connection.alias, _SEAT_FIELDS, row[:n])
        if seat.user_id is not None:
            seat._state.fields_cache["user"] = user_model.from_db(
                connection.alias, _USER_NAME_FIELDS, row[n:]
            )
        else:
            seat._state.fields_cache["user"] = None
        seats.append(seat)
    return seats


# --- the state: the snapshot and the events after it ---------------------------------


def load_state(game: Game, snapshot: GameSnapshot | None = None) -> engine.GameState:
    """The engine game for `game`: its snapshot plus any events recorded after it."""
    snapshot = snapshot or game.snapshot
    state = engine.GameState.from_dict(snapshot.state)
    if snapshot.seq < game.last_seq:
        later = GameEvent.objects.filter(
            game_id=game.pk, seq__gt=snapshot.seq, seq__lte=game.last_seq
        ).order_by("seq")
        for row in later:
            if row.action is not None:
                state.act(cast(int, row.seat), row.action)  # as in `replay` below
    return state


def replay(game: Game) -> engine.GameState:
    """The engine game rebuilt from the seed and every recorded action (for checks)."""
    state = engine.GameState.new(game.engine_options(), game.seed)
    for row in game.events.order_by("seq"):
        if row.action is not None:
            # A recorded action always names its seat; the engine refuses one that does
            # not (IllegalAction), as it refuses any seat it does not have.
            state.act(cast(int, row.seat), row.action)
    return state


def all_events(game_id: int) -> list[Event]:
    """Every engine event of the game so far, in order (a bot's memory filters it)."""
    history: list[Event] = []
    rows = GameEvent.objects.filter(game_id=game_id).order_by("seq")
    for events in rows.values_list("events", flat=True):
        history.extend(events)
    return history


def current_state(game: Game) -> engine.GameState | None:
    """The engine game of `game` with its snapshot read now, or None for a table not yet
    dealt (no snapshot). Called under the game's row lock, it is the current state: every
    writer moves the snapshot under that lock."""
    snapshot = GameSnapshot.objects.filter(game_id=game.pk).first()
    return None if snapshot is None else load_state(game, snapshot)
