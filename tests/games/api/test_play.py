"""The Bot API at a game: a bot sees its seat's view and legal actions and nothing of
anyone else's seats, plays a whole game through the API alone, and every decision goes
through the one door (idempotent, judged by the engine, timed like a click)."""

import pytest

from games import store
from games.engine.cards import CODES
from games.models import Game, GameEvent
from lobby import services as lobby
from tests.conftest import make_started_game, make_user
from tests.games.api.conftest import Api, bot_table, run_site_bots
from tests.games.presenters.test_table_secrecy import Knowable, codes_in

pytestmark = pytest.mark.django_db


def my_turn_game(bot, seed=20240):
    game = bot_table(bot, seed=seed)
    run_site_bots(game)
    game.refresh_from_db()
    assert 0 in game.waiting_on
    return game


def choose(answer):
    """A move from what the API said: the first legal action, or the first cards to give."""
    if answer["legal"]:
        return answer["legal"][0]
    give = answer["view"].get("must_give")
    if give:
        return {"type": "give", "cards": answer["view"]["hand"][:give]}
    return None


def test_the_game_answer_is_exactly_the_seats_view_and_legal_actions(robo, robo_api):
    game = my_turn_game(robo)
    answer = robo_api.get(f"/games/{game.pk}").json()
    state = store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))
    assert answer["view"] == state.view(0)
    assert answer["legal"] == state.legal_actions(0)
    assert (answer["game"], answer["seat"], answer["seq"], answer["status"]) == (
        game.pk,
        0,
        game.last_seq,
        "active",
    )
    seats = robo_api.get("/seats").json()
    assert seats == [
        {
            "game": game.pk,
            "seat": 0,
            "status": "active",
            "your_turn": True,
            "last_seq": game.last_seq,
        }
    ]


def test_another_bots_seat_or_a_persons_is_a_404_like_no_game(robo, rita, robo_api, rita_api):
    robo_game = my_turn_game(robo)
    people = make_started_game([make_user("ana"), make_user("bo")])
    before = list(GameEvent.objects.values_list("pk", flat=True))
    answers = []
    for game_id in (robo_game.pk, people.pk, 999999):
        answers.append(rita_api.get(f"/games/{game_id}"))
        answers.append(
            rita_api.post(f"/games/{game_id}/decisions", {"action": {"type": "draw"}, "key": "x1"})
        )
    assert {a.status_code for a in answers} == {404}
    assert len({a.content for a in answers}) == 1  # no hint which ids exist
    assert list(GameEvent.objects.values_list("pk", flat=True)) == before
    assert rita_api.get("/seats").json() == []


def test_a_bot_cannot_accept_another_bots_invitation(robo, rita, robo_api, rita_api):
    ana = make_user("ana")
    table = lobby.create_table(ana, players=4)
    invitation = lobby.invite_bot(table.pk, ana, 1, "robo")
    assert [i["id"] for i in robo_api.get("/invitations").json()] == [invitation.pk]
    assert rita_api.get("/invitations").json() == []
    refused = rita_api.post(f"/invitations/{invitation.pk}/accept")
    assert refused.status_code == 404
    assert not table.seats.filter(user=rita).exists()
    accepted = robo_api.post(f"/invitations/{invitation.pk}/accept")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["seat"] == 1 and accepted.json()["status"] == "open"
    assert table.seats.get(number=1).user == robo
    # Seated at an open table: no view yet, nothing to play.
    answer = robo_api.get(f"/games/{table.pk}").json()
    assert answer["view"] is None and answer["legal"] == []
    # Accepting again (a retry) answers the same seat: accepting is idempotent.
    again = robo_api.post(f"/invitations/{invitation.pk}/accept")
    assert again.status_code == 200 and again.json()["seat"] == 1


def test_joining_an_open_table_that_allows_bots(robo, robo_api):
    ana = make_user("ana")
    closed = lobby.create_table(ana, players=4)
    allowing = lobby.create_table(ana, players=4, bot_accounts=True)
    assert [t["game"] for t in robo_api.get("/tables").json()] == [allowing.pk]
    refused = robo_api.post(f"/tables/{closed.pk}/join")
    assert refused.status_code == 403 and refused.json()["detail"]
    joined = robo_api.post(f"/tables/{allowing.pk}/join", {"seat": 2})
    assert joined.status_code == 200, joined.content
    assert allowing.seats.get(number=2).user == robo
    # Joining again (a retry) answers the seat it holds.
    again = robo_api.post(f"/tables/{allowing.pk}/join")
    assert again.status_code == 200 and again.json()["seat"] == 2


def test_an_illegal_move_is_a_400_with_the_engines_words_and_changes_nothing(robo, robo_api):
    game = my_turn_game(robo)
    state = store.load_state(Game.objects.select_related("snapshot").get(pk=game.pk))
    hand = set(state.view(0)["hand"])
    missing = next(c for c in sorted(CODES) if c not in hand)
    before = game.last_seq
    for action in (
        {"type": "play", "card": missing},
        {"type": "fly"},
        {"type": "play", "card": "R1", "extra": "x"},
        {},
    ):
        response = robo_api.post(f"/games/{game.pk}/decisions", {"action": action, "key": "k"})
        assert response.status_code == 400, (action, response.content)
        assert response.json()["detail"]
    game.refresh_from_db()
    assert game.last_seq == before


def test_the_same_key_twice_is_one_decision(robo, robo_api):
    game = my_turn_game(robo)
    answer = robo_api.get(f"/games/{game.pk}").json()
    move = choose(answer)
    first = robo_api.post(f"/games/{game.pk}/decisions", {"action": move, "key": "move-1"})
    again = robo_api.post(f"/games/{game.pk}/decisions", {"action": move, "key": "move-1"})
    assert first.status_code == again.status_code == 200
    assert first.json() == {"seq": answer["seq"] + 1, "replayed": False}
    assert again.json() == {"seq": answer["seq"] + 1, "replayed": True}
    assert GameEvent.objects.filter(game=game, seq__gt=answer["seq"]).count() == 1
    other = robo_api.post(
        f"/games/{game.pk}/decisions", {"action": {"type": "concede"}, "key": "move-1"}
    )
    assert other.status_code == 409


def test_a_stale_seq_is_refused(robo, robo_api):
    """A second decision made on the state before the seat's own first one (a retry
    with a new key) is refused, not applied to a position the program did not see."""
    game = my_turn_game(robo)
    answer = robo_api.get(f"/games/{game.pk}").json()
    first = robo_api.post(
        f"/games/{game.pk}/decisions",
        {"action": choose(answer), "key": "first", "seq": answer["seq"]},
    )
    assert first.status_code == 200
    response = robo_api.post(
        f"/games/{game.pk}/decisions",
        {"action": answer["legal"][-1], "key": "second", "seq": answer["seq"]},
    )
    assert response.status_code == 409
    assert "moved on" in response.json()["detail"]
    assert Game.objects.get(pk=game.pk).last_seq == first.json()["seq"]


def test_a_move_is_recorded_as_the_bot_accounts_own(robo, robo_api):
    game = my_turn_game(robo)
    answer = robo_api.get(f"/games/{game.pk}").json()
    robo_api.post(f"/games/{game.pk}/decisions", {"action": choose(answer), "key": "mine"})
    event = GameEvent.objects.get(game=game, seq=answer["seq"] + 1)
    assert (event.seat, event.actor, event.user_id) == (0, GameEvent.Actor.PERSON, robo.pk)


@pytest.mark.parametrize("seed,players", [(20240, 4), (20251, 6)])
def test_a_whole_game_through_the_api_shows_no_card_the_seat_may_not_see(robo, seed, players):
    """The bot plays only from what the API tells it; every body the API sends it is
    scanned for card codes it could not know: its view now, or events it was shown."""
    from accounts import bot_tokens

    api = Api(bot_tokens.issue(robo, "game")[1])
    game = bot_table(robo, players=players, seed=seed)
    knowable = Knowable(game, [0])
    moves = 0
    for step in range(3000):
        run_site_bots(game)
        game.refresh_from_db()
        api.sent.clear()
        seats = api.get("/seats").json()
        answer = api.get(f"/games/{game.pk}").json()
        if game.status != Game.Status.ACTIVE:
            assert seats == [] and answer["status"] == "finished"
        knowable.refresh()
        for body in api.sent:
            assert codes_in(body) <= knowable(0), (step, codes_in(body) - knowable(0))
        if game.status != Game.Status.ACTIVE:
            break
        assert seats[0]["your_turn"] == (0 in game.waiting_on)
        move = choose(answer)
        assert move is not None, answer
        response = api.post(f"/games/{game.pk}/decisions", {"action": move, "key": f"m{step}"})
        assert response.status_code == 200, response.content
        assert api.sent[-1] == {"seq": answer["seq"] + 1, "replayed": False}
        moves += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and moves > 5
    assert store.replay(game).to_dict() == store.load_state(game).to_dict()
