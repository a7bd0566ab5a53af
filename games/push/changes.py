"""What a push sends a page: only the pieces of the table that changed since the last push
made for the game, and what the page must already hold for that to be whole.

A reader's rendering comes cut into pieces, each with a version (games.presenters.table.
pieces): a digest of what the piece shows, so that any process rendering the same piece for
the same reader gives it the same version. A memory (below) keeps, per game, the event
number and each group's versions of the last push. The next push for the game sends, for
each group, the pieces whose version differs, and names the ones it leaves out with the
versions the page must hold (`keep`); the discard pile's list, which only grows within a
round, is sent as the items added to it (an out-of-band swap that adds them at its end;
`append` says how many the page's list must hold before them, and its version after). The
move log holds only the moves after the last push (`log_after`: the page must show every
event up to it).

The page (static/js/table.js, and the load tool's players) checks all three before it
applies a push, and resyncs over HTTP when one fails: a page that missed a push, or got one
cut against another push than the one it holds, never shows a table it was not sent. A push
that finds nothing remembered (the first for a game, a memory lost, a newer push remembered
meanwhile) sends every piece, as a push always used to, with the log of the newest moves.

Two memories (games.push.memory picks one for the channel layer):
- ProcessMemory, this process's own, where this process makes every push its sockets get
  (the embedded site's in-process channel layer);
- games.push.redis_batch.SharedMemory, one Redis key per game, where a table's pushes come
  from whichever process applied the move (each Daphne, the worker for the bots and the
  clocks). A memory per process there was measured under load with four Daphnes: pushes cut
  against one process's memory sent 6,166 pages to resync in 45 s (docs/load.md). A push
  remembers itself only if no later event's push was remembered first (compare and set), so
  the memory always holds the newest push; two pushes made at once for two events cut the
  later one against the event before both, and a page that applied the first resyncs.
"""

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

# The games a process remembers: well above the tables one process serves at once.
REMEMBERED = 4096


class Piece(Protocol):
    id: str
    html: str
    version: str
    alone: str
    children: Any  # list of Piece
    items: str


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass
class Pushed:
    """A push as a memory keeps it: its event, each group's versions, and the discard
    pile's list as it was sent (its items' length in characters and their digest, and how
    many cards it held), so that the next push can tell whether the list only grew."""

    seq: int
    versions: dict[str, dict[str, str]] = field(default_factory=dict)  # group -> id -> version
    items: int | None = None
    items_digest: str = ""
    count: int = 0

    @classmethod
    def of(cls, seq: int, versions: dict[str, dict[str, str]], items: str | None) -> "Pushed":
        if items is None:
            return cls(seq, versions)
        return cls(seq, versions, len(items), digest(items), items.count("<li"))

    def dumps(self) -> str:
        return json.dumps(
            [self.versions, self.items, self.items_digest, self.count], separators=(",", ":")
        )

    @classmethod
    def loads(cls, seq: int, text: str | bytes) -> "Pushed":
        versions, items, items_digest, count = json.loads(text)
        return cls(seq, versions, items, items_digest, count)

    def grown(self, items: str) -> str | None:
        """The items `items` holds after the ones this push sent, or None when it does not
        begin with them (a new round, a reshuffle)."""
        if self.items is None or len(items) < self.items:
            return None
        if digest(items[: self.items]) != self.items_digest:
            return None
        return items[self.items :]


class Memory(Protocol):
    def previous(self, game_id: int, seq: int) -> Pushed | None:
        """The last push remembered for the game, if it was for an earlier event than
        `seq`."""

    def remember(self, game_id: int, pushed: Pushed) -> None:
        """Keeps `pushed`, unless a push for a later event was kept meanwhile (two moves
        committed close together, pushed by two threads or processes)."""


class ProcessMemory:
    """The pushes of this process's games, the least recently pushed forgotten first."""

    def __init__(self, size: int = REMEMBERED):
        self.size = size
        self._games: OrderedDict[int, Pushed] = OrderedDict()
        self._lock = threading.Lock()

    def previous(self, game_id: int, seq: int) -> Pushed | None:
        with self._lock:
            found = self._games.get(game_id)
            if found is None or found.seq >= seq:
                return None
            self._games.move_to_end(game_id)
            return found

    def remember(self, game_id: int, pushed: Pushed) -> None:
        with self._lock:
            found = self._games.get(game_id)
            if found is not None and found.seq >= pushed.seq:
                return
            self._games[game_id] = pushed
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def forget(self, game_id: int | None = None) -> None:
        """Drops what is remembered (of one game, or of all): the next push sends everything."""
        with self._lock:
            if game_id is None:
                self._games.clear()
            else:
                self._games.pop(game_id, None)


HERE = ProcessMemory()


def previous(game_id: int, seq: int) -> Pushed | None:
    return HERE.previous(game_id, seq)


def forget(game_id: int | None = None) -> None:
    HERE.forget(game_id)


def versions_of(pieces: list[Piece]) -> dict[str, str]:
    found = {}
    for piece in pieces:
        found[piece.id] = piece.version
        for child in piece.children:
            found[child.id] = child.version
    return found


def message(
    pieces: list[Piece], before: Pushed | None, group: str, always: frozenset[str], log: str
) -> dict[str, Any]:
    """What to send one group: {"html", "keep", "append"} (the last two empty when the page
    needs nothing of its own for the push to be whole)."""
    if before is None or (old := before.versions.get(group)) is None:
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
            elif child.items and (new := before.grown(child.items)) is not None:
                # Its new items, added to the end of the page's list by htmx; the list's
                # new version goes with them, so that the next push can ask for it.
                sent.append(f'<ol hx-swap-oob="beforeend:#{child.id}">{new}</ol>')
                append[child.id] = {
                    "after": before.count,
                    "added": new.count("<li"),
                    "v": child.version,
                }
            else:
                sent.append(child.alone)
    return {"html": "".join(sent), "keep": keep, "append": append}
