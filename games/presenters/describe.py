"""The move log: one line per event a reader may see, for the table, the replay and the export.

One describer writes every line, through the reader's eyes: the reader's own seat is "you",
every other seat its name, and a reader without a seat (a spectator, a replay or export
reader who did not play) gets names only. What a line may name is decided before it is
written: callers hand over only the events the reader may see (`events_for`, or every
event of a finished game's replay), and a line uses the fields of its event and nothing else.
"""

import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, cast

from django.utils.html import escape

from games import engine
from games.engine.cards import COLOR as CARD_COLOR
from games.engine.types import Event
from games.models import TEAM_SHAPES, GameEvent, Seat
from games.presenters.cards import COLOR_NAMES
from games.store import EventRow

BOT_ACCOUNT_MARK = " [bot]"


class ModeratorEvent(Event, total=False):
    """A moderator's line in a table's log (games.moderation.staff.record): type "moderator",
    the action taken and what it names besides (never a card)."""

    action: str
    player: str | None  # the name of whom it acted on, as it was then
    options: dict[str, Any]  # "options": the table options changed


# {seat number: name}, as the log writes them.
Names = Mapping[int, str]
# One move as one reader reads it (row_move): its lines, and its <li> ("" for none).
Move = tuple[tuple[str, ...], str]


def seat_names(seats: Iterable[Seat]) -> dict[int, str]:
    """{seat number: name} as the log writes them: a person by their name, a bot by its seat
    and level, since three "Bot (Easy)" would make the log unreadable, and a bot account
    (a person's own program, docs/bot-accounts.md) by its name marked " [bot]", so that
    everywhere a name is shown nobody takes it for a person."""
    return {
        s.number: f"Bot {s.number + 1} ({s.get_bot_level_display()})"
        if s.is_bot
        else s.label() + BOT_ACCOUNT_MARK
        if s.user_id and s.user is not None and s.user.is_bot
        else s.label()
        for s in seats
    }


def _cards(codes: Sequence[str]) -> str:
    names = [engine.card_name(c) for c in codes]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class _Eyes:
    """How one reader names the seats: "you" for their own, names for the others."""

    def __init__(self, reader: int | None, names: Names) -> None:
        self.reader, self.names = reader, names

    def name(self, s: int | None) -> str:
        if s is None:
            return "nobody"
        return "you" if s == self.reader else self.names.get(s, f"Seat {s + 1}")

    def subject(self, s: int | None) -> str:
        text = self.name(s)
        return text[:1].upper() + text[1:]

    def verb(self, s: int | None, you: str, others: str) -> str:
        """The verb agreeing with seat `s` as the subject ("you are", "Ana is")."""
        return you if s == self.reader else others


def _pairs(seats: Sequence[int], players: int, eyes: _Eyes) -> list[str]:
    """The pairs of partners among `seats`, each as "Ana and Cy": the reader's own pair
    first and "you" first in it, the others in seat order."""
    half = players // 2
    pairs: list[str] = []
    for s in sorted(seats):
        partner = (s + half) % players
        if s > partner or partner not in seats:
            continue
        if partner == eyes.reader:
            s, partner = partner, s
        pair = f"{eyes.name(s)} and {eyes.name(partner)}"
        if s == eyes.reader:
            pairs.insert(0, pair)
        else:
            pairs.append(pair)
    return pairs


def _team(t: int | None) -> str:
    return f"Team {TEAM_SHAPES[t]}" if t is not None else "No team"


def describe(event: Event, reader: int | None, names: Names, players: int) -> str:
    """One line of the move log about `event`, for `reader` (a seat number, or None).

    `names` is {seat: name} (seat_names), `players` the table's size. The event must be one
    the reader may see: the line names every card its event names.
    """
    kind = event["type"]
    line = DESCRIBERS.get(kind)
    if line is None:
        # A type this describer does not know yet: its name only, never its fields, which
        # may name cards.
        return kind.replace("_", " ").capitalize() + "."
    return line(event, event.get("seat"), _Eyes(reader, names), players)


# One function per kind of event: (event, its seat, the reader's eyes, the table's size) -> line.
Describer = Callable[[Event, int | None, _Eyes, int], str]


def _deal(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return (
        f"Round {event['round']}: {eyes.subject(event['dealer'])} dealt; the first card is "
        f"{engine.card_name(event['starter'])}."
    )


def _hand(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} {eyes.verb(who, 'were', 'was')} dealt {_cards(event['cards'])}."


def _picked(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    what = "a card to pass" if event.get("kind") == "setup" else "a card to swap"
    return f"{eyes.subject(who)} {eyes.verb(who, 'have', 'has')} chosen {what}."


def _pick(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    how = "pass to" if event.get("kind") == "setup" else "swap with"
    return (
        f"{eyes.subject(who)} chose {engine.card_name(event['card'])} to {how} "
        f"{eyes.verb(who, 'your', 'their')} partner."
    )


def _setup_pass(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    pairs = _pairs(event.get("seats", []), players, eyes)
    return f"Partners passed each other a card{': ' + ', '.join(pairs) if pairs else ''}."


def _swap(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    pairs = _pairs(event.get("seats", []), players, eyes)
    who_swapped = pairs[0][:1].upper() + pairs[0][1:] if pairs else "Partners"
    return f"{who_swapped} swapped a card each."


def _traded(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    # Seen by the seat it is about (and in a replay of every hand).
    return (
        f"{eyes.subject(who)} gave {eyes.name(event.get('partner'))} "
        f"{engine.card_name(event['gave'])} and received "
        f"{engine.card_name(event['received'])}."
    )


def _play(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    text = f"{eyes.subject(who)} played {engine.card_name(event['card'])}"
    color = event.get("color")
    if CARD_COLOR.get(event["card"]) is None and color:
        text += f" and chose {COLOR_NAMES[color]}"
    return text + "."


DRAW_REASONS: dict[str | None, str] = {
    "penalty": " as a penalty",
    "team_play": " for a Team Play",
    "final": " for the final-card penalty",
}


def _draw(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    count = event.get("count", 1)
    what = "a card" if count == 1 else f"{count} cards"
    return f"{eyes.subject(who)} drew {what}{DRAW_REASONS.get(event.get('reason'), '')}."


def _drew(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} drew {_cards(event['cards'])}."


def _reshuffle(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"The discard pile was shuffled into a new draw pile of {event['size']} cards."


def _give(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    # The giver holds cards; the one who receives them is out and comes back in by them
    # (going out: half the giver's hand; tagging back in: after the giver drew).
    to = event.get("to")
    count = event.get("count", 0)
    cards = f"{count} card{'s' if count != 1 else ''}"
    if event.get("reason") == "half_pass":
        return (
            f"{eyes.subject(who)} gave {eyes.name(to)} half "
            f"{eyes.verb(who, 'your', 'their')} hand ({cards})."
        )
    if event.get("reason") == "tag_in":
        return (
            f"{eyes.subject(who)} gave {eyes.name(to)} {cards} to bring "
            f"{eyes.verb(to, 'you', 'them')} back in."
        )
    return f"{eyes.subject(who)} gave {eyes.name(to)} {cards}."


def _gave(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} gave {eyes.name(event.get('to'))} {_cards(event['cards'])}."


def _out(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} {eyes.verb(who, 'are', 'is')} out."


def _in(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} {eyes.verb(who, 'are', 'is')} back in."


def _skip(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} {eyes.verb(who, 'lose', 'loses')} a turn."


def _reverse(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    way = "clockwise" if event.get("direction") == 1 else "counter-clockwise"
    return f"Play now goes {way}."


def _penalty(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    total = event.get("total")
    return f"A penalty{f' of {total}' if total else ''} is aimed at {eyes.name(who)}."


def _team_play(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    # The seat is the Team Play's partner, who must answer it.
    return f"{eyes.subject(who)} must play next for the Team Play."


def _pass_turn(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"{eyes.subject(who)} passed."


def _concede(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    if who is None:
        return f"{_team(event.get('team'))} conceded."
    return f"{eyes.subject(who)} conceded for {_team(event.get('team'))}."


def _round_over(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    if event.get("blocked"):
        return f"The round is blocked. {_team(event.get('winner'))} scores {event['points']}."
    return f"{_team(event.get('winner'))} wins the round and scores {event['points']} points."


def _game_over(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    return f"Game over. {_team(event.get('winner'))} wins."


def _round_start(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    dealer = event.get("dealer")
    return (
        f"Round {event['round']} begins; {eyes.name(dealer)} {eyes.verb(dealer, 'deal', 'deals')}."
    )


# What a moderator did (games.moderation.staff.record), by its `action`: (event, player) -> text.
MODERATOR_ACTIONS: dict[str, Callable[[ModeratorEvent, str], str]] = {
    "abort": lambda event, player: "A moderator aborted the table.",
    "bot": lambda event, player: f"A moderator handed {player}'s seat to a bot.",
    "remove": lambda event, player: f"A moderator removed {player} from the table.",
    "options": lambda event, player: (
        "A moderator changed the table's options: "
        + ", ".join(option.replace("_", " ") for option in event.get("options", {}))
        + "."
    ),
    "hide": lambda event, player: f"A moderator hid a chat message by {player}.",
    "show": lambda event, player: f"A moderator showed a chat message by {player} again.",
    "mute": lambda event, player: f"A moderator muted {player} in chat.",
}


def _moderator(event: Event, who: int | None, eyes: _Eyes, players: int) -> str:
    # The seat's holder has changed by now: the event keeps the name of the one it was.
    note = cast(ModeratorEvent, event)  # DESCRIBERS hands this one the "moderator" kind only
    player = note.get("player") or eyes.name(who)
    line = MODERATOR_ACTIONS.get(note.get("action", ""))
    return line(note, player) if line else "A moderator acted on the table."


# Every kind of event the log describes: the engine's (engine.act's events) and the
# moderators' (games.moderation.staff). A kind missing here gets its name only (describe).
DESCRIBERS: dict[str, Describer] = {
    "deal": _deal,
    "hand": _hand,
    "picked": _picked,
    "pick": _pick,
    "setup_pass": _setup_pass,
    "swap": _swap,
    "traded": _traded,
    "play": _play,
    "draw": _draw,
    "drew": _drew,
    "reshuffle": _reshuffle,
    "give": _give,
    "gave": _gave,
    "out": _out,
    "in": _in,
    "skip": _skip,
    "reverse": _reverse,
    "penalty": _penalty,
    "team_play": _team_play,
    "pass_turn": _pass_turn,
    "concede": _concede,
    "round_over": _round_over,
    "game_over": _game_over,
    "round_start": _round_start,
    "moderator": _moderator,
}


# A push describes every event row of the game for every reader, and all but one of them
# were described for that reader by the push before (docs/load.md, fourth round). What one
# row shows one reader, its lines and its move's <li>, is kept here, keyed by the row's
# stored JSON text itself (with the row's number, the reader and the names and table size
# the lines use), not by its game and number alone: a key can only ever give back what
# describing that very text for that very reader gives, so no line can reach another
# reader or outlive a change of its row. Bounded: the oldest half goes when full. Sized for
# whole-game logs at about 200 busy tables (5 readers of 150 rows each); an entry is about
# half a kilobyte (a row's text is shared by its readers' keys), so at most ~90 MB.
_LOG_CACHE: dict[tuple[str, int, int | None, Hashable, int], Move] = {}
LOG_CACHE_SIZE = 160_000


def row_move(
    row: EventRow | GameEvent,
    reader: int | None,
    names: Names,
    names_key: Hashable,
    players: int,
) -> Move:
    """(lines, item) of one event row for `reader`, from cache when it can: the row's lines
    as text, and its move in the log as one `<li class="move">`, the first line as its
    headline and the others under it ("" when the reader may see none of its events)."""
    raw: str | None = getattr(row, "raw", None)
    if raw is None:
        # Rows read without their JSON text (SQLite): their text is written once per row
        # object, which every reader of one push shares, so that the key is still the text.
        # (A GameEvent, which has no place for it, has its text written again each time.)
        raw = json.dumps(row.events)
        if isinstance(row, EventRow):
            row.raw = raw
    key = (raw, row.seq, reader, names_key, players)
    move = _LOG_CACHE.get(key)
    if move is None:
        move = _describe_row(row.events, row.seq, reader, names, players)
        if len(_LOG_CACHE) >= LOG_CACHE_SIZE:
            for old in list(_LOG_CACHE)[: LOG_CACHE_SIZE // 2]:
                _LOG_CACHE.pop(old, None)
        _LOG_CACHE[key] = move
    return move


def _describe_row(
    events: Iterable[Event], seq: int, reader: int | None, names: Names, players: int
) -> Move:
    lines = tuple(
        describe(event, reader, names, players) for event in engine.events_for(events, reader)
    )
    if not lines:
        return lines, ""
    steps = "".join(f"<li>{escape(text)}</li>" for text in lines[1:])
    return lines, (
        f'<li class="move" data-seq="{seq}"><p>{escape(lines[0])}</p>'
        f"{f'<ul>{steps}</ul>' if steps else ''}</li>"
    )
