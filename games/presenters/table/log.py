"""The move log as one reader reads it, newest move first, and the newest move's lines for
the live region that reads them out (the lines themselves: presenters.describe)."""

from collections.abc import Iterable

from django.utils.safestring import SafeString, mark_safe

from games.models import GameEvent
from games.presenters.describe import row_move
from games.presenters.table.public import PublicTable
from games.store import EventRow

# How many event rows the move log reads: on a page or a resync every row, so that the whole
# game can be scrolled back through on the table; in a push only the newest ones, since the
# page keeps the moves it already shows (static/js/table.js carries them over), and a push
# that held the whole game would grow with it for every reader on every move.
LOG_LENGTH: int | None = None
PUSH_LOG_ROWS = 40
# Of those rows, a push's log shows the moves of the newest PUSH_LOG_MOVES events only: the
# rows before them are still read, since a plate's last move and a hand's received card look
# back further. A page that missed more pushes than that resyncs (its `seq` is below the
# push's `log_after`); pushes that cross are one or two events apart. The moves were about
# a quarter of a late game's push for each reader.
PUSH_LOG_MOVES = 12


def move_log(
    rows: Iterable[EventRow | GameEvent], seat: int | None, public: PublicTable
) -> tuple[SafeString, list[str]]:
    """The move log as `seat` reads it: one `<li class="move">` per event row it may see,
    newest first, the newest marked `latest`; and the newest row's lines, for the live
    region. Each row's item comes from describe's per-reader cache, so a push renders only
    the rows this reader has not read yet and joins the rest."""
    items: list[str] = []
    lines: tuple[str, ...] = ()
    after = public.log_after
    for row in rows:
        if after is not None and row.seq <= after:
            continue
        lines, item = row_move(row, seat, public.log_names, public.log_names_key, public.players)
        if item:
            items.append(item)
    if items:
        items[-1] = items[-1].replace('<li class="move"', '<li class="move latest"', 1)
    return mark_safe("".join(reversed(items))), list(lines)
