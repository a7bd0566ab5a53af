"""One describer writes every line of the move log: the table's, the replay's and the export's
(games.presenters.describe). It writes through the reader's eyes: "you" for their own seat,
names for the others, names only for a reader without a seat; and a line names no card but
those of its own event, which the reader may see.

Random games of the engine alone (games.engine.random_moves) give every event type the site
shows; seeds are given.
"""

import random
import re
from html.parser import HTMLParser

import pytest

from games import engine
from games.engine.random_moves import random_action
from games.presenters import replay, table
from games.presenters.describe import DESCRIBERS, MODERATOR_ACTIONS, describe, seat_names
from games.store import recent_events
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_fragment_markup import play_random
from tests.games.presenters.test_table_secrecy import cards_in, codes_in

# Every event type the engine emits. Random games produce all of them (a concession is
# played on purpose) but "pass_turn", which needs an empty draw pile and discard pile:
# its line is checked by hand below.
ENGINE_TYPES = {
    "deal",
    "hand",
    "picked",
    "pick",
    "setup_pass",
    "swap",
    "traded",
    "play",
    "draw",
    "drew",
    "reshuffle",
    "give",
    "gave",
    "in",
    "out",
    "skip",
    "reverse",
    "penalty",
    "team_play",
    "pass_turn",
    "concede",
    "round_over",
    "game_over",
    "round_start",
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


class MoveLog(HTMLParser):
    """The table's move log read back from its markup: `moves` is [(seq, [headline, step,
    ...])] in the order shown, `latest` the numbers of the moves marked newest."""

    def __init__(self, html):
        super().__init__()
        self.moves, self.latest, self._line = [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "li" and "move" in (attrs.get("class") or "").split():
            self.moves.append((int(attrs["data-seq"]), []))
            if "latest" in attrs["class"].split():
                self.latest.append(self.moves[-1][0])
        elif tag in ("p", "li") and self.moves:
            self._line = []

    def handle_endtag(self, tag):
        if tag in ("p", "li") and self._line is not None:
            self.moves[-1][1].append("".join(self._line))  # the parser unescapes
            self._line = None

    def handle_data(self, data):
        if self._line is not None:
            self._line.append(data)


def moves_in(html):
    return MoveLog(html).moves


def involved(event):
    """The seats an event is about, which its line may call "you"."""
    seats = set(event.get("seats") or [])
    seats.update(event.get(k) for k in ("seat", "to", "dealer", "partner"))
    return seats - {None}


GAMES = [
    (4, 1, {"target_score": 300}),
    (4, 2, {"stacking": True, "concede_after": 60}),
    (6, 3, {"stacking": True, "target_score": 200}),
    (8, 4, {"final_card_penalty": False}),
    (8, 5, {"stacking": True, "target_score": 150}),
]


@pytest.mark.parametrize("players,seed,options", GAMES)
def test_every_event_gets_a_line_for_every_reader_who_may_see_it_naming_no_other_card(
    players, seed, options
):
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
                assert all(names[s] in line for s in involved(event) - {reader}), line
        # A finished game's replay of every hand, and the export: every event, no seat.
        # A player following "all hands" reads other seats' private events too: still "you"
        # for their own seat only, and the others by name.
        for event in events:
            assert describe(event, None, names, players) != fallback(event["type"]), event
            for reader in range(players):
                line = describe(event, reader, names, players)
                if YOU.search(line):
                    assert reader in involved(event), (reader, line)
                assert all(names[s] in line for s in involved(event) - {reader}), line
    if seed == 2:
        assert "concede" in types
    assert types <= ENGINE_TYPES


def test_the_games_above_produce_every_engine_event_type():
    types = set()
    for players, seed, options in GAMES:
        for events, _state in simulated(players, seed, **options):
            types.update(e["type"] for e in events)
    assert types == ENGINE_TYPES - {"pass_turn"}


def test_every_engine_event_type_and_the_moderators_have_their_own_describer():
    """The describer is a table of kinds: a kind the engine emits that is missing from it
    would be shown by its name alone."""
    assert set(DESCRIBERS) == ENGINE_TYPES | {"moderator"}
    assert all(callable(line) for line in DESCRIBERS.values())


@pytest.mark.parametrize("action", ["abort", "bot", "remove", "options", "hide", "show", "mute"])
def test_every_public_moderator_action_has_its_own_line(action):
    """What a moderator does at a table in public (games.moderation): each its own line;
    any other action (a report's resolution, which only staff read) a line saying no more
    than that a moderator acted."""
    assert action in MODERATOR_ACTIONS
    event = {
        "type": "moderator",
        "action": action,
        "seat": 1,
        "player": "Bo",
        "options": {"target_score": 200},
    }
    assert describe(event, None, {1: "Bo"}, 4) != "A moderator acted on the table."
    assert describe({**event, "action": "report"}, None, {1: "Bo"}, 4) == (
        "A moderator acted on the table."
    )


def test_the_reader_is_you_and_the_others_are_named():
    names = {0: "Ana", 1: "Bo", 2: "Cy", 3: "Di"}
    gave = {"type": "gave", "seat": 1, "to": 3, "cards": ["R5", "B2"], "visible_to": [1, 3]}
    assert describe(gave, 1, names, 4) == "You gave Di Red 5 and Blue 2."
    assert describe(gave, 3, names, 4) == "Bo gave you Red 5 and Blue 2."
    assert describe(gave, None, names, 4) == "Bo gave Di Red 5 and Blue 2."
    out = {"type": "out", "seat": 2, "visible_to": None}
    assert [describe(out, r, names, 4) for r in (2, 0, None)] == [
        "You are out.",
        "Cy is out.",
        "Cy is out.",
    ]
    start = {"type": "round_start", "round": 2, "dealer": 0, "visible_to": None}
    assert describe(start, 0, names, 4) == "Round 2 begins; you deal."
    assert describe(start, 1, names, 4) == "Round 2 begins; Ana deals."
    team_play = {"type": "team_play", "seat": 3, "visible_to": None}
    assert describe(team_play, 3, names, 4) == "You must play next for the Team Play."
    wild = {"type": "play", "seat": 0, "card": "WTD4", "color": "G", "visible_to": None}
    assert describe(wild, None, names, 4) == "Ana played Wild Team Draw 4 and chose Green."
    passed = {"type": "pass_turn", "seat": 1, "visible_to": None}
    assert [describe(passed, r, names, 4) for r in (1, None)] == ["You passed.", "Bo passed."]


# The trades through every reader's eyes. At a table of four Bo (1) and Di (3) are partners,
# Ana (0) and Cy (2) the other pair; a reader of None is a spectator (or a replay or export
# reader who did not play).
NAMES4 = {0: "Ana", 1: "Bo", 2: "Cy", 3: "Di"}


def lines_by_reader(event, readers=(1, 3, 0, None)):
    """{reader: line} for the readers the engine lets see the event."""
    return {r: describe(event, r, NAMES4, 4) for r in readers if engine.events_for([event], r)}


def test_tagging_in_says_the_one_who_was_out_is_brought_back_in():
    # Bo drew while his partner Di was out: Bo gives, Di is brought back in.
    give = {"type": "give", "seat": 1, "to": 3, "count": 2, "reason": "tag_in", "visible_to": None}
    assert lines_by_reader(give) == {
        1: "You gave Di 2 cards to bring them back in.",  # the giver
        3: "Bo gave you 2 cards to bring you back in.",  # the receiver, who was out
        0: "Bo gave Di 2 cards to bring them back in.",  # another seat
        None: "Bo gave Di 2 cards to bring them back in.",  # a spectator
    }
    one = dict(give, count=1)
    assert describe(one, 3, NAMES4, 4) == "Bo gave you 1 card to bring you back in."


def test_the_half_pass_says_who_gave_half_their_hand_to_whom():
    # Di played her last card: her partner Bo hands her half of his hand.
    give = {
        "type": "give",
        "seat": 1,
        "to": 3,
        "count": 3,
        "reason": "half_pass",
        "visible_to": None,
    }
    assert lines_by_reader(give) == {
        1: "You gave Di half your hand (3 cards).",
        3: "Bo gave you half their hand (3 cards).",
        0: "Bo gave Di half their hand (3 cards).",
        None: "Bo gave Di half their hand (3 cards).",
    }


def test_the_cards_given_are_named_to_the_two_partners_only():
    gave = {"type": "gave", "seat": 1, "to": 3, "cards": ["R5", "B2"], "visible_to": [1, 3]}
    assert lines_by_reader(gave) == {
        1: "You gave Di Red 5 and Blue 2.",
        3: "Bo gave you Red 5 and Blue 2.",
    }
    # A finished game's replay of every hand shows it to a reader who did not play.
    assert describe(gave, None, NAMES4, 4) == "Bo gave Di Red 5 and Blue 2."
    back = {"type": "in", "seat": 3, "visible_to": None}
    assert lines_by_reader(back) == {
        1: "Di is back in.",
        3: "You are back in.",
        0: "Di is back in.",
        None: "Di is back in.",
    }


def test_in_the_engine_the_receiver_of_a_give_is_the_one_brought_back_in():
    # What the wording above rests on: "to" was out and comes back in by the cards.
    gives = 0
    for players, seed, options in GAMES:
        steps = simulated(players, seed, **options)
        for events, _state in steps:
            for i, event in enumerate(events):
                if event["type"] == "give":
                    gives += 1
                    assert event["reason"] in ("tag_in", "half_pass")
                    assert event["to"] == (event["seat"] + players // 2) % players
                    assert {"type": "in", "seat": event["to"], "visible_to": None} in events[i:]
    assert gives > 5


def test_the_setup_pass_names_every_pair_with_the_reader_first():
    done = {"type": "setup_pass", "seats": [0, 1, 2, 3], "visible_to": None}
    assert lines_by_reader(done, readers=(0, 1, 2, 3, None)) == {
        0: "Partners passed each other a card: you and Cy, Bo and Di.",
        1: "Partners passed each other a card: you and Di, Ana and Cy.",
        2: "Partners passed each other a card: you and Ana, Bo and Di.",
        3: "Partners passed each other a card: you and Bo, Ana and Cy.",
        None: "Partners passed each other a card: Ana and Cy, Bo and Di.",
    }
    # A team that left passes nothing.
    assert describe(dict(done, seats=[1, 3]), 0, NAMES4, 4) == (
        "Partners passed each other a card: Bo and Di."
    )


def test_the_symbol_swap_names_the_two_partners():
    swap = {"type": "swap", "seats": [3, 1], "visible_to": None}
    assert lines_by_reader(swap) == {
        1: "You and Di swapped a card each.",
        3: "You and Bo swapped a card each.",
        0: "Bo and Di swapped a card each.",
        None: "Bo and Di swapped a card each.",
    }


def test_each_partner_reads_what_they_gave_and_received_in_a_pass_or_swap():
    traded = {
        "type": "traded",
        "seat": 1,
        "partner": 3,
        "gave": "R5",
        "received": "B2",
        "visible_to": [1],
    }
    assert lines_by_reader(traded) == {1: "You gave Di Red 5 and received Blue 2."}
    # Only in a finished game's replay of every hand do the others read it.
    assert describe(traded, 3, NAMES4, 4) == "Bo gave you Red 5 and received Blue 2."
    assert describe(traded, None, NAMES4, 4) == "Bo gave Di Red 5 and received Blue 2."


def test_choosing_says_which_trade_the_card_is_for():
    for kind, chosen, picked in (
        ("setup", "to pass to", "a card to pass"),
        ("swap", "to swap with", "a card to swap"),
    ):
        pick = {"type": "pick", "seat": 1, "kind": kind, "card": "R5", "visible_to": [1]}
        assert lines_by_reader(pick) == {1: f"You chose Red 5 {chosen} your partner."}
        assert describe(pick, None, NAMES4, 4) == f"Bo chose Red 5 {chosen} their partner."
        public = {"type": "picked", "seat": 1, "kind": kind, "visible_to": None}
        assert lines_by_reader(public) == {
            1: f"You have chosen {picked}.",
            3: f"Bo has chosen {picked}.",
            0: f"Bo has chosen {picked}.",
            None: f"Bo has chosen {picked}.",
        }


def test_moderators_are_described_and_an_unknown_type_never_shows_its_fields():
    names = {0: "Ana", 1: "Bot 2 (Easy)"}
    assert describe({"type": "moderator", "action": "abort", "seat": None}, None, names, 4) == (
        "A moderator aborted the table."
    )
    assert (
        describe({"type": "moderator", "action": "bot", "seat": 1, "player": "Bo"}, 0, names, 4)
        == "A moderator handed Bo's seat to a bot."
    )
    assert (
        describe(
            {"type": "moderator", "action": "remove", "seat": 1, "player": "Bo"}, None, names, 4
        )
        == "A moderator removed Bo from the table."
    )
    assert describe({"type": "new_thing", "card": "R5", "seat": 0}, 0, names, 4) == "New thing."


@pytest.mark.django_db
@pytest.mark.parametrize("players,seed", [(4, 21), (6, 22)])
def test_the_table_and_the_replay_give_each_reader_the_same_lines(players, seed):
    users = [make_user(f"d{n}", display_name=f"D{n}") for n in range(players - 1)]
    game = make_started_game(
        users, bots=("easy",), players=players, seed=seed, spectators=True, target_score=300
    )
    rng = random.Random(seed)
    for _ in range(60):
        play_random(game, rng)
    game.refresh_from_db()
    rows = replay.rows_of(game)
    names = replay.seat_names(game)
    assert names[players - 1] == f"Bot {players} (Easy)"
    for reader in (None, 0, 1, players - 1):
        moves = moves_in(table.table_context(game, reader)["log_html"])
        on_table = [line for _seq, lines in reversed(moves) for line in lines]
        frame = replay.frame(
            game, rows, len(rows), replay.Perspective(seat=reader), names, reader=reader
        )
        assert [line["text"] for line in frame["log"]] == on_table[-replay.LOG_LINES :]
        # The table's log is the whole game: every row the reader may see is one move.
        seen = [row.seq for row in rows if engine.events_for(row.events, reader)]
        assert [seq for seq, _lines in moves] == seen[::-1]
        assert len(on_table) > replay.LOG_LINES
    assert recent_events(game.pk, 1)[0].seq == rows[-1].seq


def test_seat_names_tell_bots_apart_by_seat():
    class Seat:
        def __init__(self, number, label, bot):
            self.number, self._label, self.is_bot = number, label, bot
            self.user_id = None  # no account: neither a person's nor a bot account's

        def label(self):
            return self._label

        def get_bot_level_display(self):
            return "Easy"

    assert seat_names(
        [Seat(0, "Ana", False), Seat(1, "Bot (Easy)", True), Seat(2, "Bot (Easy)", True)]
    ) == {0: "Ana", 1: "Bot 2 (Easy)", 2: "Bot 3 (Easy)"}
