"""Everything the table screen shows one reader (a seat, or a spectator), and its fragments.

In two parts, so that a push renders what every reader sees alike once, not once per reader:

- `PublicTable` (public.py): the position as everyone sees it, from the public view
  `view(None)` and the seats alone: the seat plates, the direction, the piles, the round's
  result. Each piece is rendered at most once, when a reader's fragments first need it.
- `table_context(game, seat, public=...)` (reader.py): one reader's own part, from
  `view(seat)` and `events_for(events, seat)`: the hand and its controls, the status line,
  the move log, and their own and their partner's plate.

One module per part of the screen a reader sees: `plates` (the seats and the scores), `pile`
(the direction and the piles), `hand`, `status`, `log` (the move log), `result`; and
`render`, the plumbing under them all (the template and macro look-ups, the plate's reader's
markers, the addresses cached by script prefix), which decides nothing a reader sees.

So the page, the HTTP resync and the socket pushes (games.effects) show exactly the same
thing, and nothing that reader may not see: the public part holds nothing hidden from anyone.
"""

from games.presenters.table.log import LOG_LENGTH, PUSH_LOG_MOVES, PUSH_LOG_ROWS
from games.presenters.table.pieces import ALWAYS, LOG
from games.presenters.table.plates import WARN_SECONDS, WARN_SHARE, clock_warning
from games.presenters.table.public import PublicTable
from games.presenters.table.reader import table_context
from games.presenters.table.render import discard_items, render_fragments, render_pieces

__all__ = [
    "ALWAYS",
    "LOG",
    "LOG_LENGTH",
    "PUSH_LOG_MOVES",
    "PUSH_LOG_ROWS",
    "WARN_SECONDS",
    "WARN_SHARE",
    "PublicTable",
    "clock_warning",
    "discard_items",
    "render_fragments",
    "render_pieces",
    "table_context",
]
