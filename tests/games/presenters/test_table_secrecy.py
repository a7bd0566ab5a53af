"""Nothing on a table page or in a socket push names a card its seat may not see.

Whole games are played by bot brains (easy and normal) for four people with
spectators allowed; every push sent to every seat's group and to the public
group is recorded from the channel layer, and every few moves each seat's page
and resync are fetched. Each HTML is parsed (text and attributes, hidden
elements included) and every card name or code found must be one the seat
could know: its view now, or an event it was shown.
"""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from games import engine, push, store
from games.actions import decisions
from games.bots import play as botplay
from games.engine.cards import CODES
from games.models import Game, GameEvent
from tests.conftest import make_started_game

pytestmark = pytest.mark.django_db

NAMES = {engine.card_name(c): c for c in CODES}
# Longest first, so that "Red 8 with passing symbol" is not read as "Red 8".
NAME_RE = re.compile(
    "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)) + r"(?! Cards)"
)
SKIP_ATTRS = {
    "class",
    "style",
    "href",
    "d",
    "viewbox",
    "src",
    "rel",
    "hx-post",
    "action",
    "data-ws",
    "data-sync",
    "datetime",
    "data-deadline",
    "name",
    "type",
}
# A CSRF token (64 letters and digits, in a hidden input and in hx-headers) is random: one
# in a few hundred thousand holds "Wild", which the scan would read as the Wild card. No
# card code or name is a run of 32 letters and digits, so such runs are left out.
TOKEN_RE = re.compile(r"[A-Za-z0-9]{32,}")


class CardScanner(HTMLParser):
    """Every card code or name anywhere in a document."""

    def __init__(self):
        super().__init__()
        self.found = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in SKIP_ATTRS or not value:
                continue
            value = TOKEN_RE.sub(" ", value)
            self._text(value)
            for token in re.split(r"[\s,;:/\-]+", value):
                if token in CODES:
                    self.found.add(token)

    def handle_data(self, data):
        self._text(data)

    def _text(self, text):
        for match in NAME_RE.finditer(text):
            self.found.add(NAMES[match.group(0)])


def cards_in(html):
    scanner = CardScanner()
    scanner.feed(html)
    return scanner.found


def codes_in(value):
    if isinstance(value, str):
        return {value} if value in CODES else set()
    if isinstance(value, dict):
        return set().union(set(), *(codes_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(codes_in(v) for v in value))
    return set()


class Knowable:
    """Every code each seat has been shown: its view now and every event it was sent.

    The events part only grows, so it is kept per seat and extended with the new
    rows after each move instead of re-reading the whole game for every check;
    the set is the same as reading everything again.
    """

    def __init__(self, game, seats):
        self.game, self.seats = game, seats
        self.shown = {seat: set() for seat in seats}
        self.upto = 0
        self.state = None

    def refresh(self):
        for row in GameEvent.objects.filter(game=self.game, seq__gt=self.upto).order_by("seq"):
            for seat in self.seats:
                self.shown[seat] |= codes_in(engine.events_for(row.events, seat))
            self.upto = row.seq
        self.state = store.load_state(self.game)

    def __call__(self, seat):
        return self.shown[seat] | codes_in(self.state.view(seat))


class Recorder:
    def __init__(self):
        self.sent = []

    async def group_send(self, group, message):
        self.sent.append((group, message))


MOVE_SEQ = re.compile(r'<li class="move[^"]*" data-seq="(\d+)"')


def seat_of_group(game, group):
    if group == push.public_group(game.pk):
        return None
    return int(group.rsplit("-", 1)[1])


@pytest.mark.parametrize(
    "seed,levels,players",
    [
        (31, ("easy", "easy"), 4),
        (32, ("normal", "easy"), 4),
        (33, ("easy", "normal"), 6),
    ],
)
def test_no_page_or_push_shows_a_card_its_seat_may_not_see(
    client,
    monkeypatch,
    django_capture_on_commit_callbacks,
    seed,
    levels,
    players,
):
    from tests.conftest import make_user

    users = [make_user(f"p{i}", display_name=f"P{i}") for i in range(players)]
    watcher = make_user("watcher")
    recorder = Recorder()
    monkeypatch.setattr(push, "get_channel_layer", lambda: recorder)
    game = make_started_game(users, seed=seed, players=players, spectators=True)
    checked_pages = checked_pushes = 0
    leaks = []
    logged = {}  # group -> (the first push's log_after, the moves its pushes held)

    known_by = {}
    knowable = Knowable(game, [None, *range(players)])

    def check(seat, html, where):
        if seat not in known_by:
            known_by[seat] = knowable(seat)
        found = cards_in(html)
        if seat is not None and 'id="table-hand"' in html:
            # The scan does see what is there: the seat's own hand (a push that leaves the
            # hand out, unchanged, is scanned all the same).
            assert set(knowable.state.view(seat)["hand"]) <= found
        extra = found - known_by[seat]
        if extra:
            leaks.append((where, seat, sorted(extra)))

    for step in range(1500):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        seat = game.waiting_on[0]
        action = botplay.move_for_seat(
            state,
            seat,
            levels[seat % 2],
            seed=seed * 1000 + step,
            history=lambda: [e for r in GameEvent.objects.filter(game=game) for e in r.events],
        )
        recorder.sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            decisions.apply_decision(game.pk, seat, action, "person", idempotency_key=f"s{step}")
        game.refresh_from_db()
        known_by.clear()
        knowable.refresh()
        # Each person's site sockets are told that their games changed, and nothing more: a
        # message that names no card, no hand, no view.
        told = [
            (group, message) for group, message in recorder.sent if group.startswith("waiting-")
        ]
        assert {group for group, _ in told} == {push.waiting_group(u.pk) for u in users}
        assert all(message == {"type": "waiting.changed"} for _, message in told)
        recorder.sent[:] = [sent for sent in recorder.sent if sent not in told]
        groups = {group for group, _ in recorder.sent}
        # Every seat of a person and the spectators heard of it, each in its own group.
        assert groups == {push.seat_group(game.pk, s) for s in range(players)} | {
            push.public_group(game.pk)
        }
        for group, message in recorder.sent:
            check(seat_of_group(game, group), message["html"], f"push {message['seq']} to {group}")
            checked_pushes += 1
            logged.setdefault(group, (message["log_after"], set()))[1].update(
                int(n) for n in MOVE_SEQ.findall(message["html"])
            )
        if step % 7 == 0 or game.status != Game.Status.ACTIVE:
            for s, user in enumerate(users + [None]):
                client.force_login(user or watcher)
                url = reverse("games:play", args=[game.pk])
                check(s if user else None, client.get(url).content.decode(), f"page at {step}")
                check(
                    s if user else None,
                    client.get(url, headers={"HX-Request": "true"}).content.decode(),
                    f"resync at {step}",
                )
                checked_pages += 2
        assert not leaks, leaks[:5]

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert checked_pushes > 100 and checked_pages > 20
    # What was scanned held the log, one item per move: the pages the whole game's (above),
    # the pushes to each group, between them, a move for every row its reader may see after
    # the first push's log began (each push holds the moves after the one before it).
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    for group, (after, moves) in logged.items():
        seat = seat_of_group(game, group)
        assert moves == {
            row.seq for row in rows if row.seq > after and engine.events_for(row.events, seat)
        }, group


def test_the_scanner_finds_a_card_hidden_anywhere():
    assert cards_in("<p>Ana played <b>Red 8 with passing symbol</b></p>") == {"R8P"}
    assert cards_in('<button aria-label="Wild Team Draw 4" hidden></button>') == {"WTD4"}
    assert cards_in('<input type="hidden" value="B7">') == {"B7"}
    assert cards_in('<li id="card-3-GD2" data-code="YS"></li>') == {"GD2", "YS"}
    assert cards_in('<span aria-hidden="true">Blue 1</span>') == {"B1"}
    assert cards_in("<h1>Wild Cards Teams</h1>") == set()


def test_the_scanner_does_not_read_a_card_in_a_csrf_token():
    # A real token that held "Wild" made the page scan report a Wild no one had played.
    token = "Zq" + "Wild" + "7" * 58
    assert cards_in(f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">') == set()
    assert cards_in(f'<body hx-headers=\'{{"X-CSRFToken": "{token}"}}\'>') == set()
    # A card beside a token is still found.
    assert cards_in(f'<button value="W" data-x="{token}">Wild</button>') == {"W"}
