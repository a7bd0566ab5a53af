"""Conceding through the decision door (rule book, "Leaving a game"): the whole team leaves,
the others play on or the last team wins at once, leavers rank below those who stayed."""

import pytest

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user, play_one

pytestmark = pytest.mark.django_db


def start(players):
    users = [make_user(f"player{i}") for i in range(players)]
    return make_started_game(users, players=players)


def concede(game, seat):
    return decisions.apply_decision(
        game.pk,
        seat,
        {"type": "concede"},
        GameEvent.Actor.PERSON,
        idempotency_key=f"concede-{seat}",
    )


def public(game):
    game.refresh_from_db()
    return store.load_state(game).view(None)


def test_two_teams_one_concedes_and_the_other_wins_at_once():
    game = start(4)

    concede(game, 3)  # seat 3 is on team 1 with seat 1

    view = public(game)
    assert game.status == Game.Status.FINISHED
    assert view["departed"] == [False, True, False, True]
    assert view["game_over"] == {"winner": 0, "ranking": [[0, 1], [1, 2]]}
    assert game.clocks == {} and game.deadline_at is None and game.wake_at is None
    assert game.waiting_on == []


def test_three_teams_one_concedes_and_the_other_two_play_on_to_the_end():
    game = start(6)

    concede(game, 2)  # team 2: seats 2 and 5

    view = public(game)
    assert game.status == Game.Status.ACTIVE
    assert view["departed"] == [False, False, True, False, False, True]
    assert not {2, 5} & set(game.waiting_on)
    assert "2" not in game.clocks and "5" not in game.clocks
    while game.status == Game.Status.ACTIVE:
        play_one(game)
        game.refresh_from_db()
    ranking = dict(map(tuple, public(game)["game_over"]["ranking"]))
    assert ranking[2] == 3  # below both teams that stayed
    assert sorted([ranking[0], ranking[1]]) == [1, 2]


def test_three_teams_two_concede_and_the_last_team_wins_at_once():
    game = start(6)
    concede(game, 0)  # team 0: seats 0 and 3

    concede(game, 4)  # team 1: seats 1 and 4

    view = public(game)
    assert game.status == Game.Status.FINISHED
    assert view["game_over"]["winner"] == 2
    ranking = dict(map(tuple, view["game_over"]["ranking"]))
    assert ranking[2] == 1 and ranking[0] > 1 and ranking[1] > 1


def test_four_teams_leavers_rank_below_every_team_that_stayed():
    game = start(8)
    concede(game, 1)  # team 1: seats 1 and 5
    assert public(game)["game_over"] is None

    concede(game, 7)  # team 3: seats 3 and 7
    view = public(game)
    assert game.status == Game.Status.ACTIVE
    assert view["departed"] == [False, True, False, True, False, True, False, True]
    while game.status == Game.Status.ACTIVE:
        play_one(game)
        game.refresh_from_db()

    ranking = dict(map(tuple, public(game)["game_over"]["ranking"]))
    assert sorted([ranking[0], ranking[2]]) == [1, 2]
    assert min(ranking[1], ranking[3]) > max(ranking[0], ranking[2])


def test_a_conceded_team_cannot_act_again():
    game = start(6)
    concede(game, 1)

    with pytest.raises(decisions.IllegalDecision):
        decisions.apply_decision(game.pk, 4, {"type": "concede"}, GameEvent.Actor.PERSON)
