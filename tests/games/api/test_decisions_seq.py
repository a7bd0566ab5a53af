"""A decision's `seq` judged for the seat's own position (games.actions.decisions.still_valid):
another seat's simultaneous pick does not refuse a still-valid pass, anything that changed
what the seat may do does, and a seq from the future is told apart. Also the answers'
X-RateLimit-* headers and which refusals spend the account's requests."""

from unittest import mock

import pytest

from games import store
from games.actions import decisions
from games.models import Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.games.api.conftest import Api, run_site_bots

pytestmark = pytest.mark.django_db


@pytest.fixture
def ana_and_robo(robo):
    """Ana at seat 0, the bot account at seat 1, site bots at 2 and 3, at the setup pass
    (every seat chooses a card at once; the site bots' picks wait for their tasks)."""
    return make_started_game([make_user("ana"), robo], bot_accounts=True, bots=["easy"])


def pick_for(game, seat, index=0):
    return store.load_state(Game.objects.get(pk=game.pk)).legal_actions(seat)[index]


def test_another_seats_simultaneous_pick_does_not_refuse_a_still_valid_pass(ana_and_robo, robo_api):
    """The attack of the old game-wide guard: the bot reads the setup pass at seq s, Ana
    picks her card meanwhile, and the bot's pick, sent with seq s, is still the same
    choice: it is applied, not refused 409."""
    game = ana_and_robo
    seen = robo_api.get(f"/games/{game.pk}").json()
    decisions.apply_decision(game.pk, 0, pick_for(game, 0), "person", idempotency_key="ana")
    response = robo_api.post(
        f"/games/{game.pk}/decisions",
        {"action": seen["legal"][0], "key": "pick", "seq": seen["seq"]},
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"seq": seen["seq"] + 2, "replayed": False}
    assert GameEvent.objects.get(game=game, seq=seen["seq"] + 2).seat == 1


def test_a_pick_that_completed_the_pass_makes_an_older_decision_stale(ana_and_robo, robo_api):
    """The bot picked, read the state (seq s), and the others' picks then made the pass:
    its hand changed, so a new pick sent with seq s is refused as stale (not judged on the
    new position), and nothing is recorded."""
    game = ana_and_robo
    seen = robo_api.get(f"/games/{game.pk}").json()
    assert robo_api.post(
        f"/games/{game.pk}/decisions", {"action": seen["legal"][0], "key": "a"}
    ).json()["seq"] == (seen["seq"] + 1)
    after_pick = robo_api.get(f"/games/{game.pk}").json()
    for seat in (0, 2, 3):
        decisions.apply_decision(
            game.pk, seat, pick_for(game, seat), "person", idempotency_key=f"s{seat}"
        )
    last = Game.objects.get(pk=game.pk).last_seq
    assert store.load_state(Game.objects.get(pk=game.pk)).view(1)["decision"] != "setup"
    response = robo_api.post(
        f"/games/{game.pk}/decisions",
        {"action": seen["legal"][-1], "key": "b", "seq": after_pick["seq"]},
    )
    assert response.status_code == 409
    assert response.json()["detail"].startswith("The game has moved on since event")
    assert Game.objects.get(pk=game.pk).last_seq == last


def until_the_bots_turn(game, api):
    """Plays the site bots (and the bot's own picks) until the bot account has a turn."""
    for _ in range(40):
        run_site_bots(game)
        now = api.get(f"/games/{game.pk}").json()
        if now["your_turn"] and now["view"]["decision"] in ("turn", "penalty"):
            return now
        if now["legal"]:
            api.post(
                f"/games/{game.pk}/decisions", {"action": now["legal"][0], "key": f"{now['seq']}"}
            )
    raise AssertionError("the bot account never had a turn")


def test_a_play_made_before_the_turn_moved_on_is_still_refused(robo, robo_api):
    """The bot's turn at seq s; its clock runs out (the time-out plays for it) and the
    table plays round to it again: its late play, sent with seq s, is refused 409, though
    it is its turn again and the card may well be legal."""
    from tests.games.api.conftest import bot_table

    game = bot_table(robo)
    seen = until_the_bots_turn(game, robo_api)
    state = store.load_state(Game.objects.get(pk=game.pk))
    decisions.apply_decision(
        game.pk, 0, state.auto_action(0), GameEvent.Actor.TIMEOUT, idempotency_key="timeout"
    )
    now = until_the_bots_turn(game, robo_api)
    late = next((a for a in seen["legal"] if a in now["legal"]), now["legal"][0])
    before = Game.objects.get(pk=game.pk).last_seq
    response = robo_api.post(
        f"/games/{game.pk}/decisions", {"action": late, "key": "late", "seq": seen["seq"]}
    )
    assert response.status_code == 409
    assert Game.objects.get(pk=game.pk).last_seq == before


def test_a_seq_from_the_future_is_a_400_that_says_so(ana_and_robo, robo_api):
    game = ana_and_robo
    seen = robo_api.get(f"/games/{game.pk}").json()
    response = robo_api.post(
        f"/games/{game.pk}/decisions",
        {"action": seen["legal"][0], "key": "f", "seq": seen["seq"] + 5},
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert f"no event {seen['seq'] + 5}" in detail and f"its last is {seen['seq']}" in detail
    assert Game.objects.get(pk=game.pk).last_seq == seen["seq"]


def test_every_answer_to_a_valid_token_carries_the_accounts_rate_limit(
    ana_and_robo, robo_api, settings
):
    """Limit, remaining and reset on a 200, on a refused decision (which spends a request:
    the game judged it) and on the 429; a request with a bad token is charged to no
    account and carries none."""
    settings.API_RATE_LIMIT = 3
    game = ana_and_robo
    ok = robo_api.get(f"/games/{game.pk}")
    refused = robo_api.post(f"/games/{game.pk}/decisions", {"action": {"type": "fly"}, "key": "x"})
    last = robo_api.get(f"/games/{game.pk}")
    over = robo_api.get(f"/games/{game.pk}")
    assert [r.status_code for r in (ok, refused, last, over)] == [200, 400, 200, 429]
    assert [r["X-RateLimit-Remaining"] for r in (ok, refused, last, over)] == ["2", "1", "0", "0"]
    for r in (ok, refused, last, over):
        assert r["X-RateLimit-Limit"] == "3"
        assert 0 <= int(r["X-RateLimit-Reset"]) <= settings.API_RATE_WINDOW
    assert over["Retry-After"] == over["X-RateLimit-Reset"]
    anonymous = Api("wct_not-a-token").get("/account")
    assert anonymous.status_code == 401 and "X-RateLimit-Limit" not in anonymous


def test_a_decision_the_server_failed_to_save_is_given_back(ana_and_robo, robo_api, settings):
    """A 503 (the database was lost, nothing saved) tells the program to send the same key
    again: that retry costs nothing, so the refused request is given back."""
    settings.API_RATE_LIMIT = 3
    game = ana_and_robo
    seen = robo_api.get(f"/games/{game.pk}").json()
    with mock.patch.object(
        decisions.store, "lock_game", side_effect=decisions.OperationalError("lost")
    ):
        lost = robo_api.post(
            f"/games/{game.pk}/decisions", {"action": seen["legal"][0], "key": "k"}
        )
    assert lost.status_code == 503
    assert lost["X-RateLimit-Remaining"] == "2"  # as before it: the GET spent one
    again = robo_api.post(f"/games/{game.pk}/decisions", {"action": seen["legal"][0], "key": "k"})
    assert again.status_code == 200 and again["X-RateLimit-Remaining"] == "1"
