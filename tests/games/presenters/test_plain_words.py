"""The table says in plain words what it waits for, what a concession did, who won, which
cards a trade brought in, and keeps jargon and stale badges out of the status bar
(games.presenters.table, docs/table.md "Plain words").

Games are played with seeded random legal moves (test_fragment_markup.play_random), every
seat a person but the last, a bot.
"""

import random
import uuid

import pytest
from django.urls import reverse

from games import engine, store
from games.actions import decisions
from games.models import TEAM_SHAPES, Game
from games.presenters import table
from games.presenters.table import hand as hand_part
from games.presenters.table.status import join_names
from tests.conftest import make_started_game, make_user
from tests.games.presenters.test_fragment_markup import parse, play_random

pytestmark = pytest.mark.django_db


def started(players, seed, **options):
    users = [make_user(f"w{players}-{n}", display_name=f"W{n}") for n in range(players - 1)]
    return make_started_game(
        users, bots=("easy",), players=players, seed=seed, spectators=True, **options
    )


def fragments(game, seat, state=None):
    return parse(table.render_fragments(table.table_context(game, seat, state=state)))


def turn_line(tree):
    """The status line's first words: the one that says what the table waits for."""
    line = tree.find("section", id="table-status").find("div", cls="turn-line")
    return " ".join(line.children[0].text().split()) if line.children else ""


def fresh(game):
    return Game.objects.select_related("snapshot").get(pk=game.pk)


def concede(game, seat):
    decisions.apply_decision(
        game.pk, seat, {"type": "concede"}, "person", idempotency_key=uuid.uuid4().hex
    )


# --- what the table waits for -------------------------------------------------------------


def test_during_a_trade_the_status_line_says_whom_the_table_waits_for_and_for_what():
    game = started(4, 61, target_score=500)
    rng = random.Random(61)
    seen = set()
    for _ in range(400):
        game = fresh(game)
        if game.status != Game.Status.ACTIVE or seen == {"setup", "swap"}:
            break
        state = store.load_state(game)
        view = state.view(None)
        if view["decision"] in ("setup", "swap") and view["waiting_on"]:
            what = (
                "to pick a card to pass"
                if view["decision"] == "setup"
                else ("to choose a card to swap")
            )
            context = table.table_context(game, None, state=state)
            names = [context["public"].name(s) for s in sorted(view["waiting_on"])]
            line = turn_line(fragments(game, None, state))
            assert f"Waiting for {join_names(names)} {what}" in line, line
            assert "to play" not in line
            # A seat that has chosen reads whom it waits for too; one still choosing reads
            # its own task.
            for seat in range(4):
                line = turn_line(fragments(game, seat, state))
                if seat in view["waiting_on"]:
                    assert line.startswith("Choose a card to "), line
                elif view["waiting_on"]:
                    others = [context["public"].name(s) for s in sorted(view["waiting_on"])]
                    assert f"Waiting for {join_names(others)} {what}" in line, line
            seen.add(view["decision"])
        play_random(game, rng)
    assert seen == {"setup", "swap"}


def test_names_are_joined_as_a_sentence_says_them():
    assert join_names(["Ana"]) == "Ana"
    assert join_names(["Ana", "Bot 3"]) == "Ana and Bot 3"
    assert join_names(["Ana", "Bo", "Cy"]) == "Ana, Bo and Cy"


# --- a concession -------------------------------------------------------------------------


def test_a_team_that_conceded_at_six_reads_so_and_the_way_back_while_the_others_play_on():
    game = started(6, 62)
    concede(game, 0)
    game = fresh(game)
    assert game.status == Game.Status.ACTIVE  # two teams play on
    for seat in (0, 3):  # the conceder and their partner
        hand = fragments(game, seat).find("section", id="table-hand")
        note = hand.find("p", id="conceded-note")
        assert "Your team conceded this game." in note.text()
        assert note.find("a", id="conceded-lobby").attrs["href"] == reverse("lobby:index")
    assert not fragments(game, 1).find("section", id="table-hand").find_all("p", id="conceded-note")


def test_a_concession_at_four_ends_the_game_and_its_result_says_who_conceded():
    game = started(4, 63)
    concede(game, 1)
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    for seat, words in (
        (1, "Your team conceded this game. Your team lost the game."),
        (3, "Your team conceded this game. Your team lost the game."),
        (0, "Your team won the game."),
    ):
        tree = fragments(game, seat)
        assert tree.find("p", id="result-headline").text() == words
        notes = tree.find("section", id="table-hand").find_all("p", id="conceded-note")
        assert len(notes) == (seat % 2 == 1)


# --- the end ------------------------------------------------------------------------------


@pytest.mark.parametrize("players,seed", [(4, 64), (6, 65)])
def test_the_end_of_the_game_has_a_headline_from_each_readers_side(players, seed):
    game = started(players, seed)  # a single round
    rng = random.Random(seed)
    for _ in range(800):
        game = fresh(game)
        if game.status != Game.Status.ACTIVE:
            break
        play_random(game, rng)
    assert game.status == Game.Status.FINISHED
    over = store.load_state(game).view(None)["game_over"]
    winner = over["winner"]
    assert winner is not None
    for seat in range(players):
        headline = fragments(game, seat).find("p", id="result-headline").text()
        won = seat % (players // 2) == winner
        assert headline == ("Your team won the game." if won else "Your team lost the game.")
    spectator = fragments(game, None).find("p", id="result-headline").text()
    assert spectator == f"Team {TEAM_SHAPES[winner]} won the game."
    status = fragments(game, 0).find("section", id="table-status")
    assert "data-finished" in status.attrs


def test_a_round_that_ends_has_its_headline_too():
    game = started(4, 66, target_score=500)
    rng = random.Random(66)
    for _ in range(800):
        game = fresh(game)
        view = store.load_state(game).view(None)
        if view["round_over"] and not view["game_over"]:
            break
        play_random(game, rng)
    winner = view["round_over"]["winner"]
    if winner is None:
        pytest.skip("this seed's first round was blocked")
    for seat in range(4):
        headline = fragments(game, seat).find("p", id="result-headline").text()
        assert headline == f"Your team {'won' if seat % 2 == winner else 'lost'} the round."


# --- the cards a trade brought in ---------------------------------------------------------


def marked(tree):
    hand = tree.find("section", id="table-hand")
    return [
        b.attrs["id"].split("-", 2)[2]
        for b in hand.find_all("button", cls="hand-card")
        if "received" in b.attrs["class"].split()
    ]


@pytest.mark.parametrize("players,seed", [(4, 67), (6, 68)])
def test_a_received_card_stays_marked_until_its_readers_next_move(players, seed):
    """After a trade brings a seat a card, the card is marked in that seat's hand (a class,
    a description saying where it came from) on every move that follows, until the seat
    itself moves; then, unless that move completed another trade, no card is marked."""
    game = started(players, seed, target_score=500, stacking=True)
    rng = random.Random(seed)
    expect: dict[int, list[str]] = {s: [] for s in range(players)}
    kept = cleared = 0
    for _ in range(220):
        game = fresh(game)
        if game.status != Game.Status.ACTIVE:
            break
        state = store.load_state(game)
        rows = store.recent_events(game.pk, None)
        last = rows[-1]
        for seat in range(players):
            visible = engine.events_for(last.events, seat)
            seated = [e for e in visible if e.get("seat") is not None and e["type"] != "moderator"]
            if (seated and seated[0]["seat"] == seat) or any(e["type"] == "hand" for e in seated):
                if expect[seat]:
                    cleared += 1
                expect[seat] = []
            for e in visible:
                if e["type"] == "traded" and e["seat"] == seat:
                    expect[seat].append(e["received"])
                elif e["type"] == "gave" and e["to"] == seat:
                    expect[seat].extend(e["cards"])
            hand = state.view(seat)["hand"]
            still = [c for c in expect[seat] if c in hand]
            tree = fragments(game, seat, state)
            assert sorted(marked(tree)) == sorted(still), (seat, last.seq)
            if still:
                kept += 1
                assert tree.find("span", id="received-note").text() == (
                    "received from your partner"
                )
                for b in tree.find("section", id="table-hand").find_all("button", cls="received"):
                    assert b.attrs["aria-describedby"] == "received-note"
        play_random(game, rng)
    assert kept > 20 and cleared > 5


def test_the_marks_are_read_from_the_rows_already_held(django_assert_num_queries):
    game = started(4, 69)
    rows = store.recent_events(game.pk, None)
    with django_assert_num_queries(0):
        hand_part.received_since_last_move(rows, 0)


# --- jargon and stale badges --------------------------------------------------------------


def test_the_status_bar_shows_no_deal_commitment_jargon_nor_an_empty_watch_count(client):
    game = started(4, 70)
    status = fragments(game, 0).find("section", id="table-status")
    round_line = status.find("div", cls="round").text()
    assert "commitment" not in round_line.lower() and round_line.startswith("Round")
    assert "fingerprint" not in status.text() and not status.find_all("details", id="deal-check")
    # The fingerprint is explained among the table's links, under a plain question.
    client.force_login(game.seats.get(number=0).user)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    links = page.split('aria-label="About this table"', 1)[1].split("</nav>", 1)[0]
    check = links.split('id="deal-check"', 1)[1].split("</details>", 1)[0]
    assert "<summary>Was this deal fair?</summary>" in check
    assert "published this fingerprint of its shuffle" in check
    assert f'href="{reverse("history:verify", args=[game.pk])}"' in check
    assert "How you can check this deal was fair" in check
    # Nobody watches: no count is shown.
    watchers = status.find("span", cls="watchers")
    assert "hidden" in watchers.attrs


def test_the_header_names_each_page_as_the_page_names_itself(client):
    user = make_user("titles", display_name="Titles")
    client.force_login(user)
    history = client.get(reverse("history:mine")).content.decode()
    assert "<title>History · " in history and "<h1>History</h1>" in history
    assert "Your games" not in history
    mine = client.get(reverse("games:mine")).content.decode()
    assert "<title>My games · " in mine and "<h1>My games</h1>" in mine
    assert "Your games" not in mine
