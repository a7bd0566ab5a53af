"""One describer writes every line of the move log: the table's, the replay's and the export's
(games.presenters.describe). It writes through the reader's eyes: "you" for their own seat,
names for the others, names only for a reader without a seat; and a line names no card but
those of its own event, which the reader may see.

Random games of the engine alone (games.engine.simulate) give every event type the site
shows; seeds are given.
"""

import random
import re

import pytest

from games import engine
from games.engine.simulate import random_action
from games.presenters import replay, table
from games.presenters.describe import describe, seat_names
from games.store import recent_events
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_fragment_markup import play_random
from tests.games.presenters.test_table_secrecy import cards_in, codes_in

# Every event type the engine emits. Random games produce all of them (a concession is
# played on purpose) but "pass_turn", which needs an empty draw pile and discard pile:
# its line is checked by hand below.
ENGINE_TYPES = {
    "deal", "hand", "picked", "pick", "setup_pass", "swap", "traded", "play", "draw", "drew",
    "reshuffle", "give", "gave", "in", "out", "skip", "reverse", "penalty", "team_play",
    "pass_turn", "concede", "round_over", "game_over", "round_start",
}
YOU = re.compile(r"\byour?\b", re.IGNORECASE)


def fallback(kind):
    return kind.replace("_", " ").capitalize() + "."


def simulated(players, seed, concede_after=None, **options):
    """[(events, state after them)] of one random game, optionally ended by a concession."""
    game = engine.Game.new(engine.Options(players=players, **options), seed)
    rng = random.Random(seed)
    steps = [(game.initial_events(), game)]
    while game.stage != "over":
        if concede_after is not None and len(steps) > concede_after and game.turn is not None:
            steps.append((game.act(game.turn, {"type": "concede"}), game))
            continue
        seat = game.turn if game.pending is None else None
        if seat is None:
            seat = rng.choice(game.waiting_on())
        steps.append((game.act(seat, random_action(game, seat, rng)), game))
    return steps


def involved(event):
    """The seats an event is about, which its line may call "you"."""
    seats = set(event.get("seats") or [])
    seats.update(event.get(k) for k in ("seat", "to", "dealer", "partner"))
    return seats - {None}


GAMES = [
    (4, 1, {"target_score": 300}), (4, 2, {"stacking": True, "concede_after": 60}),
    (6, 3, {"stacking": True, "target_score": 200}), (8, 4, {"final_card_penalty": False}),
    (8, 5, {"stacking": True, "target_score": 150}),
]


@pytest.mark.parametrize("players,seed,options", GAMES)
def test_every_event_gets_a_line_for_every_reader_who_may_see_it_naming_no_other_card(
        players, seed, options):
    names = {s: f"Player{s}" for s in range(players)}
    readers = [None, *range(players)]
    shown = {reader: set() for reader in readers}
    types = set()
    for events, state in simulated(players, seed, **options):
        for reader in readers:
            visible = engine.events_for(events, reader)
            shown[reader] |= codes_in(visible)
            knowable = shown[reader] | codes_in(state.view(reader))
            for event in visible:
                line = describe(event, reader, names, players)
                types.add(event["type"])
                assert line and line != fallback(event["type"]), event
                assert line[0].isupper() and line.endswith("."), line
                # The scan of the table's secrecy test: the line names what its reader knows.
                assert cards_in(line) <= knowable, (reader, line)
                assert cards_in(line) <= codes_in(event), (reader, line)
                if YOU.search(line):  # "you" is the reader's own seat, never another's
                    assert reader in involved(event), (reader, line)
                if event["type"] != "traded":  # a trade's line does not name the partner
                    assert all(names[s] in line for s in involved(event) - {reader}), line
        # A finished game's replay of every hand, and the export: every event, no seat.
        for event in events:
            assert describe(event, None, names, players) != fallback(event["type"]), event
    if seed == 2:
        assert "concede" in types
    assert types <= ENGINE_TYPES


def test_the_games_above_produce_every_engine_event_type():
    types = set()
    for players, seed, options in GAMES:
        for events, _state in simulated(players, seed, **options):
            types.update(e["type"] for e in events)
    assert types == ENGINE_TYPES - {"pass_turn"}


def test_the_reader_is_you_and_the_others_are_named():
    names = {0: "Ana", 1: "Bo", 2: "Cy", 3: "Di"}
    gave = {"type": "gave", "seat": 1, "to": 3, "cards": ["R5", "B2"], "visible_to": [1, 3]}
    assert describe(gave, 1, names, 4) == "You gave Di Red 5 and Blue 2."
    assert describe(gave, 3, names, 4) == "Bo gave you Red 5 and Blue 2."
    assert describe(gave, None, names, 4) == "Bo gave Di Red 5 and Blue 2."
    out = {"type": "out", "seat": 2, "visible_to": None}
    assert [describe(out, r, names, 4) for r in (2, 0, None)] == [
        "You are out.", "Cy is out.", "Cy is out."]
    start = {"type": "round_start", "round": 2, "dealer": 0, "visible_to": None}
    assert describe(start, 0, names, 4) == "Round 2 begins; you deal."
    assert describe(start, 1, names, 4) == "Round 2 begins; Ana deals."
    team_play = {"type": "team_play", "seat": 3, "visible_to": None}
    assert describe(team_play, 3, names, 4) == "You must play next for the Team Play."
    wild = {"type": "play", "seat": 0, "card": "WTD4", "color": "G", "visible_to": None}
    assert describe(wild, None, names, 4) == "Ana played Wild Team Draw 4 and chose Green."
    passed = {"type": "pass_turn", "seat": 1, "visible_to": None}
    assert [describe(passed, r, names, 4) for r in (1, None)] == ["You passed.", "Bo passed."]


def test_moderators_are_described_and_an_unknown_type_never_shows_its_fields():
    names = {0: "Ana", 1: "Bot 2 (Easy)"}
    assert describe({"type": "moderator", "action": "abort", "seat": None}, None, names, 4) == (
        "A moderator aborted the table.")
    assert describe({"type": "moderator", "action": "bot", "seat": 1, "player": "Bo"}, 0,
                     names, 4) == "A moderator handed Bo's seat to a bot."
    assert describe({"type": "moderator", "action": "remove", "seat": 1, "player": "Bo"},
                    None, names, 4) == "A moderator removed Bo from the table."
    assert describe({"type": "new_thing", "card": "R5", "seat": 0}, 0, names, 4) == "New thing."


@pytest.mark.django_db
@pytest.mark.parametrize("players,seed", [(4, 21), (6, 22)])
def test_the_table_and_the_replay_give_each_reader_the_same_lines(players, seed):
    users = [make_user(f"d{n}", display_name=f"D{n}") for n in range(players - 1)]
    game = make_started_game(users, bots=("easy",), players=players, seed=seed,
                             spectators=True, target_score=300)
    rng = random.Random(seed)
    for _ in range(60):
        play_random(game, rng)
    game.refresh_from_db()
    rows = replay.rows_of(game)
    names = replay.seat_names(game)
    assert names[players - 1] == f"Bot {players} (Easy)"
    for reader in (None, 0, 1, players - 1):
        on_table = [line["text"] for line in table.table_context(game, reader)["log"]]
        frame = replay.frame(game, rows, len(rows), replay.Perspective(seat=reader), names,
                             reader=reader)
        assert [line["text"] for line in frame["log"]] == on_table
        assert len(on_table) == table.LOG_LENGTH
    assert recent_events(game.pk, 1)[0].seq == rows[-1].seq


def test_seat_names_tell_bots_apart_by_seat():
    class Seat:
        def __init__(self, number, label, bot):
            self.number, self._label, self.is_bot = number, label, bot

        def label(self):
            return self._label

        def get_bot_level_display(self):
            return "Easy"

    assert seat_names([Seat(0, "Ana", False), Seat(1, "Bot (Easy)", True),
                       Seat(2, "Bot (Easy)", True)]) == {
        0: "Ana", 1: "Bot 2 (Easy)", 2: "Bot 3 (Easy)"}
