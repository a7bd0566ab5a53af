"""What a push sends a page: only the pieces of the table that changed since the last push
this process made for the game, and what the page must already hold for that to be whole.

A reader's rendering comes cut into pieces, each with a version (games.presenters.table.
pieces). This process remembers, per game, the event number and each group's versions of
its last push. The next push for the game sends, for each group, the pieces whose version
differs, and names the ones it leaves out with the versions the page must hold (`keep`);
the discard pile's list, which only grows within a round, is sent as the items added to it
(an out-of-band swap that adds them at its end; `append` says how many the page's list must
hold before them, and its version after). The move log holds only the
moves after the last push (`log_after`: the page must show every event up to it).

The page (static/js/table.js, and the load tool's players) checks all three before it
applies a push, and resyncs over HTTP when one fails: a page that missed a push, or got one
from another process that remembers another push, never shows a table it was not sent. A
push that finds nothing remembered (the first for a game here, a restart, a newer push made
meanwhile by another thread) sends every piece, as a push always used to, with the log of
the newest moves.

The memory is this process's only, so pushes are cut down only where this process makes
every push its sockets get (the embedded site's in-process channel layer: games.push.
in_process). With Redis, a table's pushes come from whichever process applied the move
(each Daphne, the worker for the bots and the clocks); a page's pieces came from any of
them, and measured under load with four Daphnes, pushes cut down against one process's
memory sent 6,166 pages to resync in 45 s. There every push carries the whole table until
the memory is shared (docs/scale.md).
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

# The games remembered: well above the tables one process serves at once.
REMEMBERED = 4096


class Piece(Protocol):
    id: str
    html: str
    version: str
    alone: str
    children: Any  # list of Piece
    items: str


@dataclass
class _Pushed:
    seq: int
    versions: dict[str, dict[str, str]] = field(default_factory=dict)  # group -> id -> version
    items: str | None = None  # the discard pile's list as it was sent
    count: int = 0  # ...and how many cards it held


_memory: "OrderedDict[int, _Pushed]" = OrderedDict()
_lock = threading.Lock()


def previous(game_id: int, seq: int) -> _Pushed | None:
    """This process's last push for the game, if it was for an earlier event than `seq`."""
    with _lock:
        found = _memory.get(game_id)
        if found is None or found.seq >= seq:
            return None
        _memory.move_to_end(game_id)
        return found


def remember(game_id: int, seq: int, versions: dict[str, dict[str, str]], items: str | None):
    """Notes the push just sent for event `seq`, unless a push for a later one was noted
    meanwhile (two moves committed close together, pushed by two threads)."""
    count = items.count("<li") if items is not None else 0
    with _lock:
        found = _memory.get(game_id)
        if found is not None and found.seq >= seq:
            return
        _memory[game_id] = _Pushed(seq, versions, items, count)
        _memory.move_to_end(game_id)
        while len(_memory) > REMEMBERED:
            _memory.popitem(last=False)


def forget(game_id: int | None = None) -> None:
    """Drops what is remembered (of one game, or of all): the next push sends everything."""
    with _lock:
        if game_id is None:
            _memory.clear()
        else:
            _memory.pop(game_id, None)


def versions_of(pieces: list[Piece]) -> dict[str, str]:
    found = {}
    for piece in pieces:
        found[piece.id] = piece.version
        for child in piece.children:
            found[child.id] = child.version
    return found


def message(
    pieces: list[Piece], before: _Pushed | None, group: str, always: frozenset[str], log: str
) -> dict[str, Any]:
    """What to send one group: {"html", "keep", "append"} (the last two empty when the page
    needs nothing of its own for the push to be whole)."""
    old = before.versions.get(group) if before is not None else None
    if old is None:
        return {"html": "".join(piece.html for piece in pieces), "keep": {}, "append": {}}
    sent: list[str] = []
    keep: dict[str, str] = {}
    append: dict[str, dict[str, Any]] = {}
    for piece in pieces:
        if piece.id == log:
            # Only the moves after the last push: none new, nothing to send.
            if '<li class="move' in piece.html:
                sent.append(piece.html)
            continue
        if piece.id in always or old.get(piece.id) != piece.version:
            sent.append(piece.html)
            continue
        keep[piece.id] = piece.version
        for child in piece.children:
            if old.get(child.id) == child.version:
                keep[child.id] = child.version
            elif child.items and before is not None and _grew(before, child.items):
                # Its new items, added to the end of the page's list by htmx; the list's
                # new version goes with them, so that the next push can ask for it.
                new = child.items[len(before.items or "") :]
                sent.append(f'<ol hx-swap-oob="beforeend:#{child.id}">{new}</ol>')
                append[child.id] = {
                    "after": before.count,
                    "added": new.count("<li"),
                    "v": child.version,
                }
            else:
                sent.append(child.alone)
    return {"html": "".join(sent), "keep": keep, "append": append}


def _grew(before: _Pushed, items: str) -> bool:
    return before.items is not None and items.startswith(before.items)
