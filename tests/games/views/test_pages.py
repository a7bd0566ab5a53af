import json
import re

import pytest
from django.urls import reverse

from games import engine, store
from games.models import GameEvent
from tests.conftest import make_started_game, play_until

pytestmark = pytest.mark.django_db


def page_for(client, user, game, **headers):
    client.force_login(user)
    return client.get(reverse("games:play", args=[game.pk]), headers=headers)


def card_codes_in(value):
    """Every card code anywhere inside an event (a string the engine can name)."""
    if isinstance(value, str):
        return {value} if engine.card_name(value) != value else set()
    if isinstance(value, dict):
        value = value.values()
    if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):
        return set().union(*(card_codes_in(v) for v in value)) if value else set()
    return set()


def hidden_codes(game, seat):
    """Codes held by other seats that this seat has no way to know of."""
    state = store.load_state(game)
    view = state.view(seat)
    known = set(view.get("hand", [])) | set(view["discard"])
    for row in GameEvent.objects.filter(game=game):
        for event in engine.events_for(row.events, seat):
            known |= card_codes_in(event)
    others = set()
    for s in range(game.players):
        if s != seat:
            others |= set(state.view(s)["hand"])
    return others - known


def shows_card(html, code):
    # CSS classes name colours and kinds (c-W), never a particular hidden card.
    html = re.sub(r'\sclass="[^"]*"', "", html)
    name = re.escape(engine.card_name(code))
    return bool(
        re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", html)
        or re.search(rf"{name}(?! with| Team| Cards)", html)  # not the site name
    )


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("moves", [1, 5, 30, 90])
def test_a_page_never_shows_a_card_its_seat_may_not_see(client, four, moves, seed):
    game = make_started_game(four, seed=seed)
    play_until(game, moves)
    game.refresh_from_db()

    for seat, user in enumerate(four):
        html = page_for(client, user, game).content.decode()
        secret = hidden_codes(game, seat)
        if not secret:  # only once the result has revealed every hand
            assert store.load_state(game).view(seat)["round_over"]
            continue
        leaked = [code for code in secret if shows_card(html, code)]
        assert leaked == [], f"seat {seat} sees {leaked}"


def test_a_player_sees_their_own_hand_by_name(client, four):
    game = make_started_game(four)
    hand = store.load_state(game).view(2)["hand"]

    html = page_for(client, four[2], game).content.decode()

    for code in hand:
        assert engine.card_name(code) in html


def test_a_player_posts_a_legal_move(client, four):
    game = make_started_game(four)
    action = store.load_state(game).legal_actions(1)[0]
    client.force_login(four[1])

    response = client.post(
        reverse("games:act", args=[game.pk]), {"action": json.dumps(action), "key": "abc"}
    )

    assert response.status_code == 302
    event = GameEvent.objects.get(game=game, seq=2)
    assert (event.seat, event.user, event.actor, event.action) == (1, four[1], "person", action)


def test_a_double_submitted_form_moves_once(client, four):
    game = make_started_game(four)
    action = store.load_state(game).legal_actions(1)[0]
    client.force_login(four[1])

    for _ in range(2):
        client.post(
            reverse("games:act", args=[game.pk]), {"action": json.dumps(action), "key": "same-form"}
        )

    assert GameEvent.objects.filter(game=game).count() == 2


def test_an_illegal_move_shows_the_engines_message_and_changes_nothing(client, four):
    game = make_started_game(four)
    client.force_login(four[1])

    response = client.post(
        reverse("games:act", args=[game.pk]),
        {"action": json.dumps({"type": "draw"}), "key": "x"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert GameEvent.objects.filter(game=game).count() == 1


@pytest.mark.parametrize("payload", [{"action": "not json"}, {"action": "[1, 2]"}, {}])
def test_garbage_posts_are_refused_politely(client, four, payload):
    game = make_started_game(four)
    client.force_login(four[1])

    response = client.post(reverse("games:act", args=[game.pk]), payload, follow=True)

    assert response.status_code == 400
    assert "That is not a move." in response.content.decode()
    assert GameEvent.objects.filter(game=game).count() == 1


def test_an_outsider_can_neither_watch_a_private_game_nor_act(client, four, ed):
    game = make_started_game(four)
    client.force_login(ed)

    assert client.get(reverse("games:play", args=[game.pk])).status_code == 403
    assert (
        client.post(
            reverse("games:act", args=[game.pk]), {"action": json.dumps({"type": "draw"})}
        ).status_code
        == 403
    )


def test_a_spectator_sees_only_the_public_view_and_cannot_act(client, four, ed):
    game = make_started_game(four, spectators=True)
    play_until(game, 20)

    html = page_for(client, ed, game).content.decode()

    assert "You are watching." in html
    assert "Your hand" not in html
    for code in hidden_codes(game, None):
        assert not shows_card(html, code), code
    assert client.post(reverse("games:act", args=[game.pk]), {"action": "{}"}).status_code == 403


def test_the_page_refreshes_itself_as_fragments(client, four):
    game = make_started_game(four)

    body = page_for(client, four[0], game, **{"HX-Request": "true"}).content.decode()

    assert body.lstrip().startswith("<section")
    assert 'data-seq="1"' in body
    assert "<html" not in body
