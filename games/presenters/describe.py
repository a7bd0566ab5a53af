"""The move log: one line per event a reader may see, for the table (docs/table.md)."""

from django.utils.html import escape

from games import engine
from games.engine.cards import COLOR as CARD_COLOR
from games.models import TEAM_SHAPES
from games.presenters.cards import COLOR_NAMES


def _cards(codes):
    names = [engine.card_name(c) for c in codes]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def describe(event, seat, names, teams):
    """One line of the move log for `seat`, from an event that seat may see.

    Only fields of the event itself are used, and `events_for` has already
    dropped what the seat may not see, so no hidden card can reach the text.
    """
    kind = event["type"]
    who = event.get("seat")

    def name(s):
        if s is None:
            return "Nobody"
        return "you" if s == seat else names.get(s, f"Seat {s + 1}")

    def subject(s):
        text = name(s)
        return text[:1].upper() + text[1:]

    def team(t):
        return f"Team {TEAM_SHAPES[t]}" if t is not None else "No team"

    if kind == "deal":
        return (f"Round {event['round']}: {subject(event['dealer'])} dealt; the first card is "
                f"{engine.card_name(event['starter'])}.")
    if kind == "hand":
        return f"You were dealt {_cards(event['cards'])}."
    if kind == "picked":
        what = "a card to pass" if event.get("kind") == "setup" else "a card to swap"
        return f"{subject(who)} {'have' if who == seat else 'has'} chosen {what}."
    if kind == "pick":
        return f"You chose {engine.card_name(event['card'])} to give your partner."
    if kind in ("setup_pass", "swap"):
        seats = event.get("seats", [])
        pairs = []
        for s in seats:
            partner = (s + len(names) // 2) % len(names) if names else s
            if s < partner and partner in seats:
                pairs.append(f"{subject(s)} and {name(partner)}")
        verb = "passed each other a card" if kind == "setup_pass" else "swapped a card"
        return f"{'; '.join(pairs) or 'Partners'} {verb}."
    if kind == "traded":
        return (f"You gave {engine.card_name(event['gave'])} and received "
                f"{engine.card_name(event['received'])}.")
    if kind == "play":
        text = f"{subject(who)} played {engine.card_name(event['card'])}"
        if CARD_COLOR.get(event["card"]) is None and event.get("color"):
            text += f" and chose {COLOR_NAMES[event['color']]}"
        return text + "."
    if kind == "draw":
        count = event.get("count", 1)
        what = "a card" if count == 1 else f"{count} cards"
        why = {"penalty": " as a penalty", "team_play": " for a Team Play",
               "final": " for the final-card penalty"}.get(event.get("reason"), "")
        return f"{subject(who)} drew {what}{why}."
    if kind == "drew":
        return f"You drew {_cards(event['cards'])}."
    if kind == "reshuffle":
        return f"The discard pile was shuffled into a new draw pile of {event['size']} cards."
    if kind == "give":
        count = event.get("count", 0)
        return (f"{subject(who)} gave {name(event.get('to'))} {count} card{'s' if count != 1 else ''}"
                f"{' to bring them back in' if event.get('reason') == 'tag_in' else ''}.")
    if kind == "gave":
        if who == seat:
            return f"You gave {name(event['to'])} {_cards(event['cards'])}."
        return f"{subject(who)} gave you {_cards(event['cards'])}."
    if kind == "out":
        return f"{subject(who)} {'are' if who == seat else 'is'} out."
    if kind == "in":
        return f"{subject(who)} {'are' if who == seat else 'is'} back in."
    if kind == "skip":
        return f"{subject(who)} {'lose' if who == seat else 'loses'} a turn."
    if kind == "reverse":
        way = "clockwise" if event.get("direction") == 1 else "counter-clockwise"
        return f"Play now goes {way}."
    if kind == "penalty":
        total = event.get("total")
        return f"A penalty{f' of {total}' if total else ''} is aimed at {name(who)}."
    if kind == "team_play":
        return f"{subject(who)}'s partner must play next."
    if kind == "pass_turn":
        return f"{subject(who)} passed."
    if kind == "concede":
        return f"{team(event.get('team'))} conceded."
    if kind == "round_over":
        if event.get("blocked"):
            return f"The round is blocked. {team(event.get('winner'))} scores {event['points']}."
        return f"{team(event.get('winner'))} wins the round and scores {event['points']} points."
    if kind == "game_over":
        return f"Game over. {team(event.get('winner'))} wins."
    if kind == "round_start":
        return f"Round {event['round']} begins; {name(event.get('dealer'))} deals."
    return kind.replace("_", " ").capitalize() + "."


# A push describes the last LOG_LENGTH event rows for every seat, and all but one of them
# were described for that seat by the push before (docs/load.md, fourth round). The lines of
# one row for one seat are kept here, keyed by the row's stored JSON text itself (with the
# row's number, the seat and the seat names the lines use), not by its game and number
# alone: a key can only ever give back what describing that very text for that very seat
# gives, so no line can reach another seat or outlive a change of its row. Bounded: the
# oldest half goes when full.
_LOG_CACHE = {}
LOG_CACHE_SIZE = 40_000


def row_lines(row, seat, names, names_key, half):
    """((text, <li> markup), ...) of one event row for `seat`, from cache when it can."""
    raw = getattr(row, "raw", None)
    if raw is None:  # rows read without their JSON text (SQLite): described each time
        return _describe_row(row.events, row.seq, seat, names, half)
    key = (raw, row.seq, seat, names_key, half)
    lines = _LOG_CACHE.get(key)
    if lines is None:
        lines = _describe_row(row.events, row.seq, seat, names, half)
        if len(_LOG_CACHE) >= LOG_CACHE_SIZE:
            for old in list(_LOG_CACHE)[:LOG_CACHE_SIZE // 2]:
                _LOG_CACHE.pop(old, None)
        _LOG_CACHE[key] = lines
    return lines


def _describe_row(events, seq, seat, names, half):
    lines = []
    for event in engine.events_for(events, seat):
        text = describe(event, seat, names, half)
        lines.append((text, f'<li data-seq="{seq}">{escape(text)}</li>'))
    return tuple(lines)


