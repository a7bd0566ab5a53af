"""What staff see of a game in the admin: a running game as a spectator sees it (no hand,
no pass, no seed); its private log only through a reveal that asks why and is recorded;
a finished game whole."""

import re
from html.parser import HTMLParser

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.urls import reverse

from games.engine.cards import CODES
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user, play_until
from tests.games.presenters.test_table_secrecy import Knowable, cards_in

pytestmark = pytest.mark.django_db


class TextCodes(HTMLParser):
    """Card codes in a document's text. The table's scan (cards_in) reads codes in
    attributes and card names in text; an event log prints the engine's events, whose
    cards are codes in text."""

    def __init__(self):
        super().__init__()
        self.found = set()

    def handle_data(self, data):
        self.found |= {token for token in re.split(r"[^A-Za-z0-9]+", data) if token in CODES}


def cards_shown(html):
    scanner = TextCodes()
    scanner.feed(html)
    return cards_in(html) | scanner.found


def hidden_cards_on(html, game):
    """The cards on a page that a spectator of `game` could not know."""
    knowable = Knowable(game, [None])
    knowable.refresh()
    return cards_shown(html) - knowable(None)


def dealt_hands(game):
    """Every card dealt to a seat so far: what a reveal must show."""
    cards = set()
    for events in GameEvent.objects.filter(game=game).values_list("events", flat=True):
        for event in events:
            if event.get("type") == "hand":
                cards |= set(event["cards"])
    return cards


@pytest.fixture
def mod(db):
    """A moderator as the admin knows one: staff with the game's change permission only."""
    user = make_user("mod", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_game", "change_game", "view_gameevent"])
    )
    return user


@pytest.fixture
def running(four):
    # A seed of nineteen digits: the pages are checked for it, and a short one (the tests'
    # counter) could turn up inside a token or a number by chance.
    game = make_started_game(four, seed=7_204_118_325_996_047_311)
    play_until(game, 12)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def staff_pages(game):
    event = GameEvent.objects.filter(game=game, kind="deal").first()
    return [
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:games_game_log", args=[game.pk]),
        reverse("admin:games_game_reveal", args=[game.pk]),
        reverse("admin:games_game_changelist"),
        reverse("admin:games_gameevent_changelist"),
        reverse("admin:games_gameevent_change", args=[event.pk]),
        reverse("admin:index"),
    ]


def test_no_admin_page_of_a_running_game_shows_staff_a_hidden_card_or_the_seed(
    client, running, mod
):
    client.force_login(mod)
    for url in staff_pages(running):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert not hidden_cards_on(html, running), url
        assert str(running.seed) not in html, url
    # The pages are not empty of the game: the public log and the moderators' notes are there.
    log = client.get(reverse("admin:games_game_log", args=[running.pk]))
    assert [row.seq for row in log.context["rows"]] == list(range(1, running.last_seq + 1))
    assert "'type': 'deal'" in log.content.decode().replace("&#x27;", "'")
    assert LogEntry.objects.count() == 0


def test_a_reveal_without_a_reason_shows_and_records_nothing(client, running, mod):
    client.force_login(mod)
    url = reverse("admin:games_game_reveal", args=[running.pk])
    for reason in ("", "   "):
        response = client.post(url, {"reason": reason})
        assert response.status_code == 200
        html = response.content.decode()
        assert 'class="errorlist' in html
        assert not hidden_cards_on(html, running)
        assert str(running.seed) not in html
    assert LogEntry.objects.count() == 0


def test_a_reveal_records_one_entry_and_shows_the_private_log_for_that_answer_only(
    client, running, mod
):
    client.force_login(mod)
    last_seq = running.last_seq
    response = client.post(
        reverse("admin:games_game_reveal", args=[running.pk]),
        {"reason": "report 12: partners seem to share hands"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    hands = dealt_hands(running)
    assert len(hands) > 7 and hands <= cards_shown(html)
    assert str(running.seed) in html

    entry = LogEntry.objects.get()
    assert (entry.user, entry.object_id, entry.content_type.model) == (mod, str(running.pk), "game")
    assert entry.change_message.endswith("report 12: partners seem to share hands")
    # A look changes nothing at the table.
    running.refresh_from_db()
    assert running.last_seq == last_seq
    assert GameEvent.objects.filter(game=running).count() == last_seq

    # The next request sees the public log again, and who revealed it and why.
    again = client.get(reverse("admin:games_game_log", args=[running.pk])).content.decode()
    assert not hidden_cards_on(again, running)
    assert str(running.seed) not in again
    assert "partners seem to share hands" in again and "mod" in again
    history = client.get(reverse("admin:games_game_history", args=[running.pk])).content.decode()
    assert "partners seem to share hands" in history
    assert LogEntry.objects.count() == 1


def test_a_finished_games_log_and_seed_are_shown_without_a_reveal(client, four, mod):
    game = make_started_game(four)
    play_until(game, 10**6)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    client.force_login(mod)
    log = client.get(reverse("admin:games_game_log", args=[game.pk])).content.decode()
    assert dealt_hands(game) <= cards_shown(log)
    assert 'id="reveal-form"' not in log
    change = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert str(game.seed) in change
    reveal = client.post(reverse("admin:games_game_reveal", args=[game.pk]), {"reason": "x"})
    assert reveal.status_code == 302 and LogEntry.objects.count() == 0


def test_an_aborted_games_private_log_still_needs_a_reveal(client, four, mod):
    from games.moderation import actions as moderation

    game = make_started_game(four)
    moderation.abort_table(
        game.pk, make_user("boss", is_staff=True, is_superuser=True), "duplicate"
    )
    client.force_login(mod)
    log = client.get(reverse("admin:games_game_log", args=[game.pk])).content.decode()
    assert not hidden_cards_on(log, game)
    assert "duplicate" in log  # the moderators' note, staff-only, is there
    assert 'id="reveal-form"' in log


def test_nobody_but_a_moderator_reaches_the_reveal(client, running, four, ed):
    url = reverse("admin:games_game_reveal", args=[running.pk])
    for user in (four[0], ed):
        client.force_login(user)
        for response in (client.get(url), client.post(url, {"reason": "curious"})):
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("admin:login"))
            assert not hidden_cards_on(response.content.decode(), running)
    # Staff without the game's change permission are refused too.
    client.force_login(make_user("helper", is_staff=True))
    assert client.post(url, {"reason": "curious"}).status_code == 403
    assert LogEntry.objects.count() == 0


def test_a_moderator_seated_at_the_table_cannot_reveal_it(client, four, mod):
    game = make_started_game([mod, *four[1:]])
    client.force_login(mod)
    log = client.get(reverse("admin:games_game_log", args=[game.pk])).content.decode()
    assert 'id="reveal-form"' not in log
    response = client.post(
        reverse("admin:games_game_reveal", args=[game.pk]), {"reason": "I am curious"}
    )
    assert response.status_code == 403
    assert not hidden_cards_on(response.content.decode(), game)
    assert LogEntry.objects.count() == 0
