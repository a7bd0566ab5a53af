"""`table_context`: everything the table template needs for one reader, their own part (the
hand, the status line, the move log, their own and their partner's plate) put together with
what every reader sees alike (public.py)."""

import secrets
from collections.abc import Sequence
from typing import Any

from games import engine, store
from games.models import Game, GameEvent, Seat
from games.presenters.table import hand, log, render, status
from games.presenters.table.public import PublicTable


def table_context(
    game: Game,
    seat: int | None,
    *,
    state: engine.GameState | None = None,
    rows: Sequence[store.EventRow | GameEvent] | None = None,
    seats: Sequence[Seat] | None = None,
    public: PublicTable | None = None,
) -> dict[str, Any]:
    """Everything the table template needs for `seat` (None: a spectator).

    `public` is the position's PublicTable when the caller renders several readers of it
    (a push); without it one is built here, reading the game's snapshot (unless `state`
    is given), the game's event rows (unless `rows`; LOG_LENGTH) and the seats (unless
    `seats`). Nothing here looks at another seat's view.
    """
    if public is None:
        public = PublicTable(game, *_reads(game, state, seats, rows))
    view = public.view if seat is None else public.state.view(seat)
    log_html, announce = log.move_log(public.rows, seat, public)
    return {
        "game": game,
        "seq": public.seq,
        "seat": seat,
        "me": seat if seat is not None else 0,  # at the bottom of the felt
        "view": view,
        "public": public,
        "plates_html": public.plates_for(seat),
        "scores_html": public.scores(None if seat is None else seat % public.half),
        "finished": public.finished,
        "result_html": public.result_for(seat),
        **hand.hand_context(game, seat, view, public),
        **status.reader_status(game, seat, view, public),
        "log_html": log_html,
        "announce": announce,
        "key": secrets.token_hex(16),
        "act_url": render.act_url(public.script_prefix, game.pk),  # once, not once per form
    }


def _reads(
    game: Game,
    state: engine.GameState | None,
    seats: Sequence[Seat] | None,
    rows: Sequence[store.EventRow | GameEvent] | None,
) -> tuple[engine.GameState, Sequence[Seat], Sequence[store.EventRow | GameEvent]]:
    """(state, seats, rows) of a page or a resync: what the caller did not hand over is read."""
    if state is None:
        state = store.load_state(game)
    if seats is None:
        seats = store.table_seats(game.pk)
    if rows is None:
        rows = store.recent_events(game.pk, log.LOG_LENGTH, upto=game.last_seq)
    return state, seats, rows
