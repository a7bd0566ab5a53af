"""The account's events (games.actions.account_events): each recorded once, in the write
that makes it happen, for bot accounts only; read back by id over GET /api/bot/events.

The streams themselves (NDJSON followed live, the websocket) are in test_events_streams.py.
"""

import json
import uuid

import pytest
from django.test import Client

from games import store, tasks
from games.actions import account_events, decisions, presence, timeouts
from games.models import AccountEvent, Game, GameEvent
from lobby import services as lobby
from tests.conftest import PASSWORD, make_started_game, make_table, make_user, play_until
from tests.games.api.conftest import make_bot
from tests.games.clock_support import at, fresh, travel
from tests.games.presenters.test_table_secrecy import codes_in

pytestmark = pytest.mark.django_db


def told(user, **filters):
    """The account's events as the streams send them, oldest first."""
    rows = AccountEvent.objects.filter(user=user, **filters).order_by("id")
    return [account_events.as_message(row) for row in rows]


def types(user, **filters):
    return [event["type"] for event in told(user, **filters)]


def bot_game(host, robo, **options):
    """`host` at seat 0, bot account `robo` at seat 1 (by invitation), site bots after."""
    players = options.setdefault("players", 4)
    game = make_table(host, **options)
    invitation = lobby.invite_bot(game.pk, host, 1, robo.username)
    lobby.accept_invitation(invitation.pk, robo)
    for number in range(2, players):
        lobby.add_bot(game.pk, host, number, "easy")
    lobby.start_table(game.pk, host)
    game.refresh_from_db()
    return game


def decide(game, seat, actor=GameEvent.Actor.PERSON):
    game.refresh_from_db()
    action = store.load_state(game).auto_action(seat)
    return decisions.apply_decision(game.pk, seat, action, actor, idempotency_key=uuid.uuid4().hex)


def play_out(game, moves=10**6):
    """Plays the plain move of whoever must decide, `moves` times or to the end: a seat
    a bot plays as a bot's move, the others as their player's."""
    for _ in range(moves):
        game = fresh(game)
        if game.status != Game.Status.ACTIVE:
            return game
        seat = game.waiting_on[0]
        bot = seat in game.bot_seats
        decide(game, seat, GameEvent.Actor.BOT if bot else GameEvent.Actor.PERSON)
    return fresh(game)


# --- invitations and seats --------------------------------------------------------------


def test_an_invitation_is_told_as_the_invitations_route_lists_it(ana, robo, robo_api):
    game = make_table(ana)
    lobby.invite_bot(game.pk, ana, 2, "robo")

    [event] = told(robo)
    [listed] = robo_api.get("/invitations").json()
    assert event["type"] == "invitation"
    assert (event["invitation"], event["game"], event["seat"], event["host"]) == (
        listed["id"],
        listed["game"],
        listed["seat"],
        listed["host"],
    )
    assert (event["players"], event["pace"]) == (listed["players"], listed["pace"])


def test_a_withdrawn_invitation_is_told_closed_as_cancelled_once(ana, robo):
    game = make_table(ana)
    invitation = lobby.invite_bot(game.pk, ana, 1, "robo")
    lobby.cancel_invitation(game.pk, ana, 1)

    assert types(robo) == ["invitation", "invitation_closed"]
    closed = told(robo)[-1]
    assert (closed["invitation"], closed["seat"], closed["reason"]) == (
        invitation.pk,
        1,
        "cancelled",
    )


def test_an_invitation_lapses_when_someone_else_takes_the_seat(ana, bo, robo):
    game = make_table(ana)
    lobby.invite_bot(game.pk, ana, 1, "robo")
    lobby.take_seat(game.pk, bo, 1)

    assert types(robo) == ["invitation", "invitation_closed"]
    assert told(robo)[-1]["reason"] == "lapsed"


def test_a_declined_invitation_is_told_closed_as_declined(ana, robo):
    game = make_table(ana)
    invitation = lobby.invite_bot(game.pk, ana, 1, "robo")
    lobby.decline_invitation(invitation.pk, robo)
    lobby.decline_invitation(invitation.pk, robo)  # a retry changes nothing

    assert types(robo) == ["invitation", "invitation_closed"]
    assert told(robo)[-1]["reason"] == "declined"


def test_the_host_leaving_closes_the_invitations_of_the_table(ana, robo):
    game = make_table(ana)
    lobby.invite_bot(game.pk, ana, 1, "robo")
    lobby.leave_table(game.pk, ana)

    assert types(robo) == ["invitation", "invitation_closed"]
    assert told(robo)[-1]["reason"] == "cancelled"


def test_accepting_seats_the_bot_and_the_deal_tells_it_the_game_started_and_its_turn(ana, robo):
    game = bot_game(ana, robo)

    assert types(robo) == ["invitation", "seated", "game_started", "your_turn"]
    seated, started, turn = told(robo)[1:]
    assert (seated["game"], seated["seat"]) == (game.pk, 1)
    assert (started["game"], started["seat"], started["players"]) == (game.pk, 1, 4)
    # The setup pass: every seat chooses a card at the deal, event 1.
    assert (turn["game"], turn["seat"], turn["seq"], turn["decision"]) == (game.pk, 1, 1, "setup")
    assert game.account_seats == {"1": robo.pk}


def test_joining_an_open_table_is_told_as_seated(ana, robo):
    game = make_table(ana, bot_accounts=True)
    lobby.join_table(game.pk, robo, 3)
    lobby.join_table(game.pk, robo, 3)  # a retry: already seated, nothing new happened

    assert told(robo) == [
        {
            "id": told(robo)[0]["id"],
            "type": "seated",
            "at": told(robo)[0]["at"],
            "game": game.pk,
            "seat": 3,
        }
    ]


# --- turns -------------------------------------------------------------------------------


def test_your_turn_is_not_told_again_for_another_seats_pick_that_leaves_its_choice_open(ana, robo):
    game = bot_game(ana, robo)
    before = types(robo)
    result = decide(game, 0)  # Ana's setup pick: the pass waits for the others still

    assert {e["type"] for e in result.event.events} <= {"picked", "pick"}
    assert types(robo) == before


def test_over_a_whole_game_your_turn_comes_each_time_the_seat_is_left_to_decide(ana, robo):
    """Every time the bot's seat goes from not waited on to waited on, one your_turn with
    that event's seq; never one after the bot's own decision that left it waiting."""
    game = bot_game(ana, robo)
    waited = 1 in fresh(game).waiting_on
    becomes, own_and_still = [1], []
    while (game := fresh(game)).status == Game.Status.ACTIVE:
        seat = game.waiting_on[0]
        event = decide(game, seat).event
        now_waited = 1 in fresh(game).waiting_on
        if now_waited and not waited:
            becomes.append(event.seq)
        if seat == 1 and now_waited:
            own_and_still.append(event.seq)
        waited = now_waited

    seqs = [e["seq"] for e in told(robo, kind="your_turn")]
    assert becomes and set(becomes) <= set(seqs)
    assert not set(own_and_still) & set(seqs)
    assert len(seqs) == len(set(seqs))  # never twice for one event


# --- the end -----------------------------------------------------------------------------


def test_the_end_of_the_game_is_told_once_with_the_teams_result(ana, robo):
    game = bot_game(ana, robo)
    play_until(game, 10**6)
    game = fresh(game)
    assert game.status == Game.Status.FINISHED

    [finished] = told(robo, kind="game_finished")
    over = store.load_state(game).view(None)
    result = finished["result"]
    rank = dict(map(tuple, over["game_over"]["ranking"]))[1]  # robo's team: seat 1 of 4 -> 1
    assert (finished["game"], finished["seat"], finished["status"]) == (game.pk, 1, "finished")
    assert (result["team"], result["rank"]) == (1, rank)
    assert result["won"] is (over["game_over"]["winner"] == 1)
    assert result["scores"] == over["scores"]
    assert types(robo)[-1] == "game_finished"
    # Ana is a person: her account has no events, whatever happened at her table.
    assert not AccountEvent.objects.filter(user=ana).exists()


def test_a_game_of_people_and_site_bots_records_no_events_at_all(four):
    game = make_started_game(four)
    play_until(game, 40)

    assert fresh(game).account_seats == {}
    assert not AccountEvent.objects.exists()


# --- time-outs and stand-ins --------------------------------------------------------------


def test_each_time_out_is_told_with_its_count_and_the_third_hands_the_seat_over(ana):
    from tests.games.actions.test_clock import start, time_out_once_more

    robo = make_bot("robo")
    bo, cy = make_user("bo"), make_user("cy")
    game = start([ana, bo, cy, robo], bot_accounts=True, seed=3)
    moment = 0
    for count in (1, 2, 3):
        moment = time_out_once_more(game, 3, moment)
        assert [(e["count"], e["of"]) for e in told(robo, kind="timed_out")] == [
            (n, 3) for n in range(1, count + 1)
        ]

    handed = told(robo, kind="seat_handed_over")
    assert [(e["game"], e["seat"], e["reason"]) for e in handed] == [(game.pk, 3, "timeouts")]
    kinds = types(robo)
    third = max(i for i, kind in enumerate(kinds) if kind == "timed_out")
    assert kinds[third + 1] == "seat_handed_over"
    # A site bot plays the seat now: the account is not told its turn any more.
    last = told(robo)[-1]["id"]
    play_out(game, 12)
    assert "your_turn" not in [e["type"] for e in told(robo) if e["id"] > last]


def test_a_stand_in_is_told_when_the_hold_ends_and_when_the_program_is_back(ana, settings):
    robo = make_bot("robo")
    with travel(at(0)):
        game = bot_game(ana, robo, pace=Game.Pace.REALTIME, move_seconds=30)
        presence.seat_connected(game.pk, 1)
        presence.seat_disconnected(game.pk, 1)
    hold = settings.DISCONNECT_HOLD_SECONDS
    with travel(at(hold - 1)):
        timeouts.sweep()
    assert "stand_in_started" not in types(robo)
    with travel(at(hold + 1)):
        timeouts.sweep()
        timeouts.sweep()  # a second sweep finds nothing left to do

    [started] = told(robo, kind="stand_in_started")
    assert (started["game"], started["seat"], started["reason"]) == (game.pk, 1, "away")
    waiting = 1 in fresh(game).waiting_on
    with travel(at(hold + 5)):
        presence.seat_connected(game.pk, 1)
        presence.seat_connected(game.pk, 1)  # a second socket: nothing to hand back

    [ended] = told(robo, kind="stand_in_ended")
    assert ended["seat"] == 1 and ended["id"] > started["id"]
    after = [e for e in told(robo) if e["id"] > ended["id"]]
    # A decision the stand-in had not made yet is the program's again: it is told so.
    assert [e["type"] for e in after] == (["your_turn"] if waiting else [])


def test_a_moderator_handing_the_seat_to_a_bot_tells_the_account_and_ends_its_news(ana):
    from games.moderation import actions as moderation

    robo = make_bot("robo")
    game = bot_game(ana, robo)
    staff = make_user("mod", is_staff=True, is_superuser=True)
    moderation.replace_with_bot(game.pk, 1, staff, "a test of the hand-over")

    assert told(robo)[-1]["type"] == "seat_handed_over"
    assert told(robo)[-1]["reason"] == "moderator"
    assert fresh(game).account_seats == {}
    last = told(robo)[-1]["id"]
    play_out(game)
    assert [e for e in told(robo) if e["id"] > last] == []


def test_a_moderator_aborting_a_running_game_tells_its_bot_accounts_it_is_over(ana):
    from games.moderation import actions as moderation

    robo = make_bot("robo")
    game = bot_game(ana, robo)
    staff = make_user("mod", is_staff=True, is_superuser=True)
    moderation.abort_table(game.pk, staff, "a test of the abort")

    [over] = told(robo, kind="game_finished")
    assert (over["game"], over["seat"], over["status"], over["result"]) == (
        game.pk,
        1,
        "aborted",
        None,
    )


# --- reading them back over HTTP ------------------------------------------------------------


def lines(response):
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    body = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in body.splitlines() if line.strip()]


def test_the_http_answer_gives_the_events_after_since_in_order(ana, robo, robo_api):
    bot_game(ana, robo)
    everything = lines(robo_api.get("/events?since=0&follow=false"))

    assert everything == told(robo)
    second = everything[1]["id"]
    assert lines(robo_api.get(f"/events?since={second}&follow=false")) == everything[2:]
    # Without since: from now on (nothing old is sent again).
    assert lines(robo_api.get("/events?follow=false")) == []


def test_a_second_bot_account_never_reads_the_first_ones_events(ana, robo, rita, rita_api):
    game = make_table(ana)
    lobby.invite_bot(game.pk, ana, 1, "robo")
    lobby.invite_bot(game.pk, ana, 2, "rita")

    mine = lines(rita_api.get("/events?since=0&follow=false"))
    assert [e["seat"] for e in mine] == [2]
    assert {e["id"] for e in mine}.isdisjoint({e["id"] for e in told(robo)})


def test_a_person_gets_no_events_without_a_bot_token(ana):
    client = Client()
    assert client.get("/api/bot/events?since=0").status_code == 401
    client.login(username="ana", password=PASSWORD)
    answer = client.get("/api/bot/events?since=0&follow=false")
    assert answer.status_code == 401 and answer.json()["detail"]


@pytest.mark.parametrize("since", ["-1", "x", "1e3", str(2**63)])
def test_a_bad_since_is_refused_in_words(robo_api, since):
    answer = robo_api.get(f"/events?since={since}&follow=false")
    assert answer.status_code == 400 and "since" in answer.json()["detail"]


def test_old_events_are_pruned_after_the_days_kept(ana, robo, settings):
    settings.ACCOUNT_EVENTS_KEEP_DAYS = 7
    with travel(at(0)):
        lobby.invite_bot(make_table(ana).pk, ana, 1, "robo")
    with travel(at(days=3)):
        lobby.invite_bot(make_table(ana).pk, ana, 1, "robo")
    with travel(at(days=8)):
        assert tasks.prune_account_events() == 1  # the beat's hourly task
    assert len(told(robo)) == 1


# --- secrecy ------------------------------------------------------------------------------


def test_no_event_of_a_whole_game_carries_a_card(ana):
    """Two bot accounts at one table to the end, one of them timing out: every event line
    either account was sent is scanned for any card code at all."""
    from tests.games.actions.test_clock import time_out_once_more

    robo, rita = make_bot("robo"), make_bot("rita")
    with travel(at(0)):
        game = make_table(ana, pace=Game.Pace.REALTIME, move_seconds=30, bot_accounts=True)
        lobby.join_table(game.pk, robo, 1)
        lobby.join_table(game.pk, rita, 3)
        lobby.add_bot(game.pk, ana, 2, "easy")
        lobby.start_table(game.pk, ana)
    moment = time_out_once_more(fresh(game), 1, 0)
    with travel(at(moment)):
        play_out(game)
    assert fresh(game).status == Game.Status.FINISHED
    assert "timed_out" in types(robo)

    for account in (robo, rita):
        sent = told(account)
        assert {"game_started", "your_turn", "game_finished"} <= {e["type"] for e in sent}
        assert codes_in(sent) == set(), account
        assert not {"hand", "hands", "cards", "view"} & {k for e in sent for k in e}


def test_the_migration_copies_the_bot_accounts_seats_of_games_running_at_deploy(ana):
    """A game dealt before Game.account_seats existed tells its events from the next
    decision on: the migration writes the column as the deal would have."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("games.migrations.0013_account_events")
    robo = make_bot("robo")
    game = bot_game(ana, robo)
    finished = bot_game(ana, make_bot("rita"))
    Game.objects.filter(pk__in=[game.pk, finished.pk]).update(account_seats={})
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)

    migration.copy_account_seats(apps, None)
    assert fresh(game).account_seats == {"1": robo.pk}
    assert fresh(finished).account_seats == {}


def test_recording_costs_a_decision_one_statement_and_on_postgresql_the_writers_lock():
    """The query budget of a decision (tests/games/actions/test_query_count.py) at a table
    with a bot account: unchanged when it tells nobody, and one insert more (with the
    advisory lock on PostgreSQL) when it tells the account something."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.games.actions.test_query_count import QUERIES_PER_DECISION

    ana, robo = make_user("ana"), make_bot("robo")
    game = bot_game(ana, robo, target_score=5000)
    extra = 2 if connection.vendor == "postgresql" else 1
    costs = set()
    for _ in range(60):
        game = fresh(game)
        seat = game.waiting_on[0]
        action = store.load_state(game).auto_action(seat)
        before = AccountEvent.objects.count()
        with CaptureQueriesContext(connection) as queries:
            decisions.apply_decision(
                game.pk, seat, action, GameEvent.Actor.PERSON, idempotency_key=uuid.uuid4().hex
            )
        told_now = AccountEvent.objects.count() > before
        assert len(queries) == QUERIES_PER_DECISION + (extra if told_now else 0), told_now
        costs.add(told_now)
    assert costs == {True, False}  # both kinds of decision were measured
