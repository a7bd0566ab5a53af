"""The table's fragments keep the ids, roles and accessible names that the page's script
(static/js/table.js), the load tool (bench/load.py) and the browser tests find them by.

Every seat and a spectator read the fragments of games of 4, 6 and 8 played with random
legal moves; each fragment is parsed and checked against the engine's view of that reader.
Seeds are given, so that these tests leave conftest's seed sequence to the tests after them.
"""

import random
import uuid
from html.parser import HTMLParser

import pytest

from games import engine, store
from games.actions import decisions
from games.engine.random_moves import random_action
from games.models import TEAM_SHAPES, Game, GameEvent
from games.presenters import table
from tests.conftest import make_started_game, make_user, play_one

pytestmark = pytest.mark.django_db

VOID = {"input", "br", "img", "meta", "link", "hr"}
FRAGMENT_IDS = [
    "table-status",
    "deal-check-text",
    "table-seats",
    "table-hand",
    "table-result",
    "table-log",
    "table-announce",
]


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.texts = tag, attrs, parent, [], []

    def walk(self):
        for child in self.children:
            yield child
            yield from child.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        return [
            n
            for n in self.walk()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in n.attrs.get("class", "").split())
            and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def find(self, *args, **kwargs):
        found = self.find_all(*args, **kwargs)
        assert len(found) == 1, (args, kwargs, len(found))
        return found[0]

    def text(self):
        return "".join(self.texts) + "".join(c.text() for c in self.children)


class Tree(HTMLParser):
    def __init__(self, html):
        super().__init__()
        self.root = self.current = Node("#root", {}, None)
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v if v is not None else "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        assert node is not None, f"</{tag}> closes nothing"
        self.current = node.parent

    def handle_data(self, data):
        self.current.texts.append(data)


def parse(html):
    return Tree(html).root


def play_random(game, rng):
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    state = store.load_state(game)
    seat = rng.choice(game.waiting_on)
    decisions.apply_decision(
        game.pk, seat, random_action(state, seat, rng), "person", idempotency_key=uuid.uuid4().hex
    )


def readings(players, seed, moves, every=3):
    """(game, state, seat, fragments) for every reader, every few moves of a played game."""
    users = [
        make_user(f"p{players}-{n}", display_name=f"Player <{n}> & co") for n in range(players - 1)
    ]
    game = make_started_game(
        users,
        bots=("easy",),
        players=players,
        seed=seed,
        target_score=300,
        stacking=True,
        spectators=True,
    )
    rng = random.Random(seed)
    for move in range(moves):
        game = Game.objects.select_related("snapshot").get(pk=game.pk)
        if game.status != Game.Status.ACTIVE:
            break
        if move % every == 0:
            state = store.load_state(game)
            for seat in [None, *range(players)]:
                yield (
                    game,
                    state,
                    seat,
                    table.render_fragments(table.table_context(game, seat, state=state)),
                )
        play_random(game, rng)


GAMES = [(4, 3, 150), (6, 8, 90), (8, 5, 90)]


@pytest.mark.parametrize("players,seed,moves", GAMES)
def test_every_fragment_keeps_its_id_its_swap_and_its_number(players, seed, moves):
    for game, state, seat, html in readings(players, seed, moves, every=10):
        root = parse(html)
        scores = root.find("section", id="table-status").find("ul", cls="scores")
        assert scores.attrs["aria-label"] == "Scores"
        chips = [li.text() for li in scores.find_all("li", cls="team-chip")]
        yours = None if seat is None else seat % (players // 2)
        public = state.view(None)
        assert chips == [
            f"Team {TEAM_SHAPES[t]}{' (yours)' if t == yours else ''}: {score}"
            f"{' left' if public['departed'][t] else ''}"
            for t, score in enumerate(public["scores"])
        ]
        tops = [n for n in root.children]
        assert [n.attrs.get("id") for n in tops] == FRAGMENT_IDS
        assert [n.attrs.get("hx-swap-oob") for n in tops] == ["true"] * 6 + ["innerHTML"]
        assert {n.attrs.get("data-seq") for n in tops} == {str(game.last_seq)}
        # The policy lets no style attribute through: the plates' places are in the CSS.
        assert not [n for n in root.walk() if "style" in n.attrs]


@pytest.mark.parametrize("players,seed,moves", GAMES)
def test_each_plate_says_whose_seat_it_is_to_its_reader(players, seed, moves):
    half = players // 2
    seen = set()
    for game, state, seat, html in readings(players, seed, moves):
        public = state.view(None)
        last = last_to_act(game)
        felt = parse(html).find("section", id="table-seats")
        assert felt.attrs["data-me"] == str(seat if seat is not None else 0)
        assert felt.attrs["aria-label"] == "The table"
        plates = felt.find("ol", cls="seat-list").find_all("li", cls="plate")
        assert [p.attrs["id"] for p in plates] == [f"seat-{n}" for n in range(players)]
        for number, plate in enumerate(plates):
            you = number == seat
            partner = seat is not None and number == (seat + half) % players
            cards = public["hand_sizes"][number]
            to_play = public["turn"] == number and not public["game_over"]
            name = (
                f"Bot {number + 1} (Easy)" if number == players - 1 else f"Player <{number}> & co"
            )
            assert plate.attrs["aria-label"] == (
                f"{name}{' (you)' if you else ''}, team {TEAM_SHAPES[number % half]}"
                f"{', your partner' if partner else ''}, {cards} card{'' if cards == 1 else 's'}"
                f"{', out' if public['out'][number] else ''}"
                f"{', left the game' if public['departed'][number] else ''}"
                f"{', to play' if to_play else ''}{', last to act' if number == last else ''}"
            )
            classes = plate.attrs["class"].split()
            assert ("you" in classes) == you and ("to-play" in classes) == to_play
            assert ("last-acted" in classes) == (number == last)
            assert f"team-{number % half}" in classes
            assert plate.find("span", cls="name").text() == name
            count = f"{cards} card{'' if cards == 1 else 's'}"
            assert plate.find("span", cls="count").text() == count
            assert bool(plate.find_all("svg", cls="rings")) == partner
            assert bool(plate.find_all("span", cls="dealer")) == (public["dealer"] == number)
            # "out" is a link to the Rules page; the other states are plain text.
            states = plate.find_all("span", cls="state") + plate.find_all("a", cls="state")
            state_text = " ".join(s.text() for s in states)
            assert state_text == plate_state(public, number, to_play)
            seen.add(state_text)
    assert {"", "to play", "has chosen", "choosing…"} <= seen


def last_to_act(game):
    """The seat of the newest event row with a public event that names a seat, or None."""
    for events in (
        GameEvent.objects.filter(game=game).order_by("-seq").values_list("events", flat=True)
    ):
        seated = [e for e in events if e.get("visible_to") is None and "seat" in e]
        if seated:
            return seated[0]["seat"]
    return None


def plate_state(public, number, to_play):
    """What a plate says its seat is doing: the first that applies."""
    over = bool(public["game_over"])
    for applies, text in (
        (public["departed"][number], "left"),
        (public["out"][number], "out"),
        (to_play, "to play"),
        (number in public["picked"], "has chosen"),
        (number in public["choosing"], "choosing…"),
        (number in public["waiting_on"] and not over, "deciding…"),
    ):
        if applies:
            return text
    return ""


@pytest.mark.parametrize("players,seed,moves", GAMES)
def test_the_hand_offers_exactly_the_legal_moves_each_by_its_name(players, seed, moves):
    modes = set()
    for _game, state, seat, html in readings(players, seed, moves):
        hand_area = parse(html).find("section", id="table-hand")
        assert hand_area.attrs["aria-labelledby"] == "hand-heading"
        if seat is None:
            assert hand_area.find("h2", id="hand-heading").text() == "Spectating"
            assert not hand_area.find_all("form")
            continue
        view = state.view(seat)
        legal = state.legal_actions(seat)
        form = hand_area.find("form", id="hand-form")
        mode = form.attrs["data-mode"]
        modes.add(mode or None)
        cards = form.find("ul", cls="hand")
        assert cards.attrs["aria-label"] == "Your cards"
        buttons = cards.find_all("button", cls="hand-card")
        assert [b.attrs["id"] for b in buttons] == [
            f"card-{i}-{code}" for i, code in enumerate(view["hand"])
        ]
        # Each button is named by its text: the card's name (its face is aria-hidden).
        assert [b.find("span", cls="visually-hidden").text() for b in buttons] == [
            engine.card_name(c) for c in view["hand"]
        ]
        if not view["hand"]:
            assert cards.find("li", cls="empty").text() == "No cards."
        enabled = {
            b.attrs.get("value") or b.attrs.get("data-wild") or b.attrs.get("data-code")
            for b in buttons
            if "disabled" not in b.attrs
        }
        kinds = {a["type"] for a in legal}
        if mode == "play":
            assert enabled == {a["card"] for a in legal if a["type"] == "play"}
            for b in buttons:
                wild = b.attrs.get("data-wild")
                if wild:
                    modes.add("wild")
                    assert b.attrs["aria-controls"] == f"colours-{wild}"
                    assert b.attrs["aria-expanded"] == "false"
                    colours = hand_area.find("form", id=f"colours-{wild}")
                    assert "hidden" in colours.attrs
                    assert [c.text() for c in colours.find_all("button")] == [
                        "Red",
                        "Yellow",
                        "Green",
                        "Blue",
                    ]
                else:
                    assert b.attrs["name"] == "play" and b.attrs["type"] == "submit"
        elif mode in ("pick", "give"):
            need = view["must_give"] if mode == "give" else 1
            assert form.attrs["data-need"] == str(need)
            assert all(
                b.attrs["aria-pressed"] == "false" and "choosable" in b.attrs["class"]
                for b in buttons
            )
            if mode == "pick":
                assert enabled == {a["card"] for a in legal if a["type"] == "pass"}
            submit = form.find("button", id=f"btn-{mode}")
            # The pick button says which trade it makes, and so does the hint beside it.
            label = {"setup": "Pass card", "swap": "Swap card"}.get(view["decision"], "Give")
            assert submit.text() == label, view["decision"]
            if mode == "pick":
                modes.add(view["decision"])
                hint = form.find("div", cls="controls").find("span", cls="hint")
                assert hint.text().startswith("Choose one card, then ")
                assert hint.find("em").text() == label
            assert "disabled" in submit.attrs
        else:
            assert not enabled
        for kind, ident, label in (
            ("draw", "btn-draw", "Draw a card"),
            ("pass_turn", "btn-pass", "Pass"),
            ("take_penalty", "btn-take", "Take penalty"),
        ):
            found = form.find_all("button", id=ident)
            assert bool(found) == (kind in kinds and mode == "play"), (kind, mode)
            assert all(b.text() == label for b in found)
        concede = hand_area.find_all("button", id="btn-concede")
        if concede:
            assert concede[0].attrs["aria-controls"] == "concede-confirm"
            assert hand_area.find("form", id="concede-confirm").find_all(
                "button", id="btn-concede-cancel"
            )
    assert {"play", "pick", None, "setup", "swap"} <= modes


@pytest.mark.parametrize("players,seed,moves", GAMES)
def test_the_centre_and_the_result_are_named_for_screen_readers(players, seed, moves):
    for game, state, _seat, html in readings(players, seed, moves, every=5):
        root = parse(html)
        public = state.view(None)
        felt = root.find("section", id="table-seats")
        way = "clockwise" if public["direction"] == 1 else "counter-clockwise"
        assert felt.find("div", cls="direction").attrs["aria-label"] == f"Play goes {way}"
        assert felt.find("div", cls="draw-pile").attrs["aria-label"] == (
            f"Draw pile: {public['draw_pile_size']} cards"
        )
        top = felt.find("div", cls="top")
        assert top.attrs["role"] == "img"
        assert top.attrs["aria-label"] == (
            f"Top of the discard pile: {engine.card_name(public['discard'][-1])}"
        )
        assert [li.text() for li in felt.find("details", id="discard-list").find_all("li")] == [
            engine.card_name(c) for c in public["discard"]
        ]
        result = root.find("section", id="table-result")
        assert ("hidden" in result.attrs) == (not (public["round_over"] or public["last_round"]))
        log = root.find("section", id="table-log")
        assert log.find("h2", id="log-heading").text() == "Moves"
        # One item per move, newest first, the newest marked; the list is the scroll box
        # static/js/table.js keeps in place, and a keyboard can reach it.
        moves = log.find("ol", cls="log")
        assert moves.attrs["tabindex"] == "0"
        items = [li for li in moves.children if li.tag == "li"]
        numbers = [int(li.attrs["data-seq"]) for li in items]
        assert numbers == sorted(numbers, reverse=True) and numbers[0] == game.last_seq
        assert ["latest" in li.attrs["class"].split() for li in items] == (
            [True] + [False] * (len(items) - 1)
        )
        assert all(li.find_all("p") for li in items)
        assert root.find("div", id="table-announce").attrs["role"] == "log"


def test_the_result_shows_every_hand_to_every_reader_once_a_round_ends(four):
    game = make_started_game(four, seed=11, target_score=300)
    for _ in range(2000):
        game.refresh_from_db()
        state = store.load_state(game)
        if state.view(None)["last_round"]:
            break
        play_one(game)
    result = state.view(None)["last_round"]
    assert result
    for seat in (None, 0, 1, 2, 3):
        html = table.render_fragments(table.table_context(game, seat, state=state))
        section = parse(html).find("section", id="table-result")
        assert "hidden" not in section.attrs
        assert section.find("h2", id="result-heading").text() in ("Round result", "Final result")
        hands = section.find("table", cls="hands-revealed")
        assert hands.find("caption").text() == "Every hand, revealed and counted"
        rows = hands.find("tbody").find_all("tr")
        assert [[span.text() for span in row.find_all("span", cls="mini")] for row in rows] == [
            [engine.card_name(c) for c in hand] for hand in result["hands"]
        ]


def test_the_tree_reads_what_it_is_given():
    root = parse(
        '<section id="a" hx-swap-oob="true"><ul aria-label="Your cards">'
        '<li><button id="b" disabled>X<span>Y</span></button></li></ul><input hidden>'
        '</section><div id="c"></div>'
    )
    assert [n.attrs["id"] for n in root.children] == ["a", "c"]
    button = root.find("button", id="b")
    assert button.text() == "XY" and "disabled" in button.attrs
    assert root.find("ul").attrs["aria-label"] == "Your cards"
    assert root.find_all("input")[0].parent.attrs["id"] == "a"
