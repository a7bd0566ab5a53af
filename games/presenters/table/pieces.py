"""A reader's rendering of the table cut into the pieces a page swaps by id, each with its
version, so that a push can leave out what the page already shows (games.push.changes).

The fragments (fragments.html) are the top-level pieces; the felt's own pieces (the
direction, each plate, the piles, the discard pile's summary and its list) are pieces inside
it. A piece's version is a digest of its markup as a reader sees it, apart from what changes
with every rendering without changing what it shows: the push number (`data-seq`), the
request's CSRF field and the move forms' fresh idempotency key. The felt's version leaves out
its pieces (each is in its place as a marker), so that a new count on one plate changes that
plate's version and not the felt's. Each piece carries its version as `data-v` on the page,
where static/js/table.js compares it with the one a push says the page should hold.

The discard pile's list only grows between two pushes of a round: its pieces are its items,
and a push may send only the new ones (games.push.changes).
"""

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The top-level fragments, in the order fragments.html renders them; `table-announce` (the
# newest move's lines, read out) is always sent, since the same words twice are still news.
FRAGMENTS = (
    "table-status",
    "deal-check-text",
    "table-seats",
    "table-hand",
    "table-result",
    "table-log",
    "table-announce",
)
ALWAYS = frozenset({"table-announce"})
LOG = "table-log"
APPENDED = "discard-cards"

# The pieces that fragments.html renders in place inside a fragment, found by their markup
# (none holds another element of its own kind): the partner's clock on the felt, and the
# scores and the turn line in the status bar, whose round line and error stay its own.
_INSIDE = {
    "table-seats": [
        ("clock-warning-partner", re.compile(r'<p class="clock-warning partner" [^>]*>.*?</p>')),
    ],
    "table-status": [
        ("table-scores", re.compile(r'<ul class="scores" id="table-scores".*?</ul>', re.S)),
        ("table-turn", re.compile(r'<div class="turn-line" id="table-turn">.*?</div>', re.S)),
    ],
}
_TAG = re.compile(r"\s*<[a-z]+")


@dataclass
class Piece:
    """One piece of a reader's rendering: `html` as it stands in the rendering (its `data-v`
    included), `alone` as a push sends it by itself (an out-of-band swap of its own), its
    `version`, and the pieces inside it."""

    id: str
    html: str
    version: str
    alone: str
    children: list["Piece"] = field(default_factory=list)
    # The discard pile's list: its items' markup, which a push may extend.
    items: str = ""


def version(markup: str) -> str:
    return hashlib.blake2b(markup.encode(), digest_size=8).hexdigest()


@functools.lru_cache(maxsize=4096)
def _child(markup: str) -> tuple[str, str, str]:
    """(version, markup with it, the same sent alone) of a piece inside a fragment: once
    per push for a plate that most of its readers see alike."""
    digest = version(markup)
    marked = with_version(markup, digest)
    return digest, marked, _out_of_band(marked)


def with_version(html: str, digest: str) -> str:
    """`html` with `data-v` on its first element (once: a piece rendered with its version
    keeps it)."""
    match = _TAG.match(html)
    if match is None or html.find(' data-v="', match.end(), html.find(">")) != -1:
        return html
    return f'{html[: match.end()]} data-v="{digest}"{html[match.end() :]}'


def _out_of_band(html: str) -> str:
    match = _TAG.match(html)
    assert match is not None
    return f'{html[: match.end()]} hx-swap-oob="true"{html[match.end() :]}'


def versioned(html: str, seq: int) -> str:
    """A piece rendered apart (the deal's check, which the page places among its links):
    with the version its rendering inside the fragments has."""
    html = html.strip()
    return with_version(html, version(html.replace(f' data-seq="{seq}"', "")))


def cut(
    whole: str, context: Mapping[str, Any], felt: list[tuple[str, str]], csrf: str
) -> tuple[str, list[Piece]]:
    """(the rendering with each piece's version on it, its pieces). `felt`: the felt's
    pieces, (id, markup) as they stand in it; `csrf`: the CSRF field the forms hold."""
    seq, key = context["seq"], context.get("key")

    def plain(markup: str) -> str:
        markup = markup.replace(f' data-seq="{seq}"', "")
        if csrf:
            markup = markup.replace(csrf, "")
        return markup.replace(key, "") if key else markup

    starts = _starts(whole)
    pieces, out = [], [whole[: starts[0][0]] if starts else whole]
    for n, (start, name) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(whole)
        segment = whole[start:end]
        html = segment.rstrip()
        trail = segment[len(html) :]
        children = []
        inside = felt if name == "table-seats" else []
        for child_id, pattern in _INSIDE.get(name, ()):
            found = pattern.search(html)
            if found is not None:
                inside = [*inside, (child_id, found.group(0))]
        if inside:
            # One pass over the fragment: its pieces stand in it in this order, hold no
            # push number, field or key, and each is versioned once per push (a plate is
            # the same string for most of its readers).
            marked_parts: list[str] = []
            shell_parts: list[str] = []
            at = 0
            for child_id, child in inside:
                found_at = html.find(child, at)
                if found_at < 0:
                    continue
                digest, marked, alone = _child(child)
                between = html[at:found_at]
                marked_parts += (between, marked)
                shell_parts += (between, f"<{child_id}>")
                at = found_at + len(child)
                children.append(
                    Piece(
                        child_id,
                        marked,
                        digest,
                        alone,
                        items=items(child) if child_id == APPENDED else "",
                    )
                )
            marked_parts.append(html[at:])
            shell_parts.append(html[at:])
            html = "".join(marked_parts)
            digest = version(plain("".join(shell_parts)))
        else:
            digest = version(plain(html))
        html = with_version(html, digest)
        out.append(html + trail)
        pieces.append(Piece(name, html, digest, html, children))
    return "".join(out), pieces


def _starts(whole: str) -> list[tuple[int, str]]:
    """[(where, id)] of the fragments in `whole`, in order: each found by its id, then back
    to the start of its tag (a plain search: a regex over the whole rendering cost more)."""
    found = []
    for name in FRAGMENTS:
        at = whole.find(f' id="{name}"')
        if at >= 0:
            found.append((whole.rfind("<", 0, at), name))
    return sorted(found)


def items(cards: str) -> str:
    """The items of the discard pile's list (`<ol id="discard-cards">ITEMS</ol>`)."""
    return cards[cards.index(">") + 1 : cards.rindex("</ol>")]
