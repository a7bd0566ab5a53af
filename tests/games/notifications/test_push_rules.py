"""Web Push, the whole way: the site decides (the outbox's rules, shared with the emails),
signs (VAPID), encrypts (RFC 8291) and posts to a push service of our own, which checks
the request as a real one does and decrypts each message with the browser's keys. The
clock is frozen (time-machine); the beat's sweep sends what is due.

Each test names what it guards: a push while the player is looking at the table (the
away rule), at night (quiet hours), one per move (the "once a game" rule), the daily
digest, a dead device kept forever (404, 410), a lost message (429, 5xx), a push that
names a card.
"""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client

from accounts.models import PushSubscription, User
from config.celery import app as celery_app
from games import engine, store
from games.actions import webpush
from games.engine.cards import CODES
from games.models import EmailOutbox, Game
from tests.conftest import make_user
from tests.games.actions.test_away_emails import on_the_site, quiet_in_paris, start, sweep
from tests.games.clock_support import at, fresh, move_as_person, travel
from tests.games.notifications.conftest import SITE

pytestmark = pytest.mark.django_db


def table_url(game):
    return f"{SITE}/games/{game.pk}/"


def test_your_turn_goes_once_the_player_is_away_and_never_while_they_are_on_the_site(
    push_service, subscribe, four
):
    """The away rule: a player with the table open gets no push about it."""
    ana, bo = four[0], four[1]
    phone, bo_phone = subscribe(ana), subscribe(bo)
    client = Client()
    on_the_site(client, ana, at(0))
    game = start(four)

    sweep(at(1))
    assert push_service.messages(phone) == []
    (message,) = push_service.messages(bo_phone)  # Bo is away: told at once
    assert message == {
        "title": f"Your turn at table {game.pk}",
        "body": message["body"],
        "url": table_url(game),
        "tag": f"game-{game.pk}",
    }
    assert message["body"] == (
        f"Table {game.pk} (4 players, turn by turn) waits for your move, "
        "due Tue 03 Mar, 09:00 (UTC)."
    )

    on_the_site(client, ana, at(minutes=3))  # the heartbeat of her open page
    sweep(at(minutes=7))
    assert push_service.messages(phone) == []
    sweep(at(minutes=8))  # away since 3 min + EMAIL_AWAY_MINUTES
    (message,) = push_service.messages(phone)
    assert message["url"] == table_url(game) and message["tag"] == f"game-{game.pk}"
    row = EmailOutbox.objects.get(game=game, seat=0, kind="turn", channel="push")
    assert (row.skipped, row.via, row.sent_at) == ("", "push", at(minutes=8))
    assert PushSubscription.objects.get(pk=phone.id).last_success_at is not None
    # What the push service saw: a VAPID JWT for its origin, a TTL, aes128gcm.
    received = push_service.received[-1]
    assert received.claims["aud"] == push_service.origin
    assert received.claims["sub"] == "mailto:admin@cards.example"
    assert int(received.headers["ttl"]) > 0


def test_a_player_with_email_and_a_device_gets_both_and_one_without_email_gets_the_push(
    push_service, subscribe, four
):
    """The email-only checks ("no address") must not stop a push, and each channel has
    its own switch."""
    ana, bo, cy, di = four
    User.objects.filter(pk=bo.pk).update(email=None)
    User.objects.filter(pk=cy.pk).update(turn_push=User.TurnEmail.NONE)
    User.objects.filter(pk=di.pk).update(turn_email=User.TurnEmail.NONE)
    devices = {u.username: subscribe(u) for u in four}
    start(four)
    sweep(at(1))
    pushed = {name for name, b in devices.items() if push_service.messages(b)}
    emailed = {m.to[0].split("@")[0] for m in mail.outbox if m.subject.startswith("Your turn")}
    assert pushed == {"ana", "bo", "di"}
    assert emailed == {"ana", "cy"}
    assert EmailOutbox.objects.get(seat=1, channel="email").skipped == "no address"


def test_no_push_in_quiet_hours_it_waits_until_they_end(push_service, subscribe, four):
    ana = four[0]
    quiet_in_paris(ana, 9, 14)  # 10:00 in Paris at the start: inside them
    phone = subscribe(ana)
    start(four)
    for minutes in (1, 60, 239):
        sweep(at(minutes=minutes))
    assert push_service.messages(phone) == []
    sweep(at(hours=4))  # 14:00 in Paris
    assert len(push_service.messages(phone)) == 1
    assert push_service.received[-1].claims["exp"] > at(hours=4).timestamp()


def _until_anas_next_decision(game, moment):
    """Everyone else plays at once, Ana's decisions time out (a bot plays them), until a
    new decision is hers: the next "your turn" row of hers."""
    seq = fresh(game).clocks["0"]["since"]
    for _hour in range(1, 300):
        with travel(moment):
            for seat in fresh(game).waiting_on:
                if seat != 0:
                    move_as_person(game, seat)
        sweep(moment)
        clock = fresh(game).clocks.get("0")
        if fresh(game).status != Game.Status.ACTIVE or (clock and clock["since"] != seq):
            return moment
        moment += timedelta(hours=1)
    raise AssertionError("no new decision of Ana's")


def test_one_push_a_game_until_the_player_has_been_back(push_service, subscribe, four):
    """Not one per move: a game played on while she is away tells her once."""
    ana = four[0]
    phone = subscribe(ana)
    game = start(four, turn_hours=12)
    sweep(at(1))
    assert len(push_service.messages(phone)) == 1
    moment = _until_anas_next_decision(game, at(minutes=10))
    assert fresh(game).status == Game.Status.ACTIVE
    sweep(moment + timedelta(minutes=1))
    turns = [m for m in push_service.messages(phone) if m["title"].startswith("Your turn")]
    assert len(turns) == 1
    assert EmailOutbox.objects.filter(
        game=game, seat=0, kind="turn", channel="push", skipped="told already"
    ).exists()

    # She comes back, leaves again: the next decision of hers tells her again.
    on_the_site(Client(), ana, moment + timedelta(minutes=2))
    moment = _until_anas_next_decision(game, moment + timedelta(minutes=3))
    sweep(moment + timedelta(minutes=10))
    turns = [m for m in push_service.messages(phone) if m["title"].startswith("Your turn")]
    assert len(turns) == 2


def test_the_half_time_reminder_goes_by_push(push_service, subscribe, four):
    ana = four[0]
    phone = subscribe(ana)
    game = start(four, turn_hours=12)
    sweep(at(1))
    sweep(at(hours=6) + timedelta(seconds=1))
    reminder = [m for m in push_service.messages(phone) if m["title"].startswith("Reminder")]
    assert reminder == [
        {
            "title": f"Reminder: table {game.pk}",
            "body": reminder[0]["body"],
            "url": table_url(game),
            "tag": f"game-{game.pk}",
        }
    ]
    assert "Half your time is gone" in reminder[0]["body"]
    # Not held back by the "your turn" of the same decision: a reminder is about a deadline.
    assert len(push_service.messages(phone)) == 2


def test_reminder_push_off_sends_no_reminder_but_the_email_one(push_service, subscribe, four):
    ana = four[0]
    User.objects.filter(pk=ana.pk).update(notify_reminder_push=False)
    phone = subscribe(ana)
    start(four, turn_hours=12)
    sweep(at(1))
    sweep(at(hours=6) + timedelta(seconds=1))
    assert [m["title"][:8] for m in push_service.messages(phone)] == ["Your tur"]
    assert any(m.subject.startswith("Reminder") for m in mail.outbox if m.to == [ana.email])


def test_the_daily_digest_on_push_is_one_notification_at_the_players_hour(
    push_service, subscribe, ana, bo, cy, di
):
    User.objects.filter(pk=ana.pk).update(
        turn_push=User.TurnEmail.DIGEST, digest_hour=18, time_zone="Europe/Paris"
    )
    phone = subscribe(ana)
    games = [start([ana, bo, cy, di]), start([ana, bo, cy, di], moment=at(minutes=30))]
    for minutes in (1, 31, 120, 8 * 60 - 1):
        sweep(at(minutes=minutes))
    assert push_service.messages(phone) == []
    sweep(at(hours=8))  # 18:00 in Paris
    (message,) = push_service.messages(phone)
    assert message["title"] == "Your turn in 2 games"
    assert message["url"] == f"{SITE}/games/mine/"
    assert all(str(g.pk) in message["body"] for g in games)


def test_several_games_at_once_immediate_one_push_per_game(
    push_service, subscribe, ana, bo, cy, di
):
    """Immediate: each game its own notification (the device keeps one per game by tag)."""
    phone = subscribe(ana)
    games = [start([ana, bo, cy, di]), start([ana, bo, cy, di])]
    sweep(at(1))
    tags = sorted(m["tag"] for m in push_service.messages(phone))
    assert tags == sorted(f"game-{g.pk}" for g in games)


@pytest.mark.parametrize("status", [410, 404])
def test_a_device_the_push_service_forgot_is_removed(push_service, subscribe, four, status):
    """A dead endpoint is not posted to forever: 404 or 410 deletes the subscription, and
    the other device still gets the message."""
    ana = four[0]
    old, new = subscribe(ana), subscribe(ana, "Mozilla/5.0 (Windows NT 10.0) Firefox/133.0")
    push_service.answer(old, status)
    start(four)
    sweep(at(1))
    assert not PushSubscription.objects.filter(pk=old.id).exists()
    assert PushSubscription.objects.filter(pk=new.id).exists()
    assert len(push_service.messages(new)) == 1
    assert push_service.refused == [(old.endpoint, status, "told to")]


def test_the_only_device_gone_leaves_the_row_not_told(push_service, subscribe, four):
    ana = four[0]
    phone = subscribe(ana)
    push_service.answer(phone, 410)
    game = start(four)
    sweep(at(1))
    assert not PushSubscription.objects.filter(user=ana).exists()
    row = EmailOutbox.objects.get(game=game, seat=0, kind="turn", channel="push")
    assert row.skipped == "no device"


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_push_service_that_is_busy_or_failing_gets_the_message_later(
    push_service, subscribe, four, settings, status
):
    ana = four[0]
    phone = subscribe(ana)
    push_service.answer(phone, status)
    game = start(four)
    sweep(at(1))
    assert push_service.messages(phone) == []
    row = EmailOutbox.objects.get(game=game, seat=0, kind="turn", channel="push")
    assert row.sent_at is None and row.not_before > at(1)
    assert PushSubscription.objects.get(pk=phone.id).failures == 1
    sweep(at(1) + timedelta(seconds=settings.OUTBOX_RETRY_SECONDS + 1))
    assert len(push_service.messages(phone)) == 1
    assert PushSubscription.objects.get(pk=phone.id).failures == 0


# --- "Your game is starting" (Find a game) ----------------------------------------------


def _found(game, users):
    """What the matchmaking does: table_found inside the transaction that seats them."""
    with transaction.atomic():
        webpush.table_found(game, [u.pk for u in users])


def test_game_starting_goes_to_the_found_players_even_while_on_the_site(
    push_service, subscribe, four, django_capture_on_commit_callbacks
):
    """The away rule does not apply (the matchmaking passes only the people whose page is
    hidden or gone); the task sent on commit delivers it."""
    ana, bo = four[0], four[1]
    phone, bo_phone = subscribe(ana), subscribe(bo)
    game = start(four, pace=Game.Pace.REALTIME)
    EmailOutbox.objects.all().delete()
    on_the_site(Client(), ana, at(1))
    with travel(at(2)):
        with django_capture_on_commit_callbacks() as callbacks:
            _found(game, [ana])
        # The task it sends once the seats are committed, run here as a worker runs it.
        (send,) = callbacks
        assert send.args[:2] == ("games.tasks.deliver_emails", (game.pk,))
        celery_app.tasks[send.args[0]].apply(send.args[1])
    (message,) = push_service.messages(phone)
    assert message == {
        "title": "Your game is starting",
        "body": f"You are seated at table {game.pk} (4 players, real time).",
        "url": table_url(game),
        "tag": f"game-{game.pk}",
    }
    assert push_service.messages(bo_phone) == []  # not passed: his page is visible


def test_game_starting_waits_for_quiet_hours_and_never_fails_without_devices(
    push_service, subscribe, four
):
    ana, bo = four[0], four[1]
    quiet_in_paris(ana, 9, 11)
    phone = subscribe(ana)
    game = start(four, pace=Game.Pace.TURN_BASED)
    EmailOutbox.objects.all().delete()
    with travel(at(1)):
        _found(game, [ana, bo, make_user("nobody")])  # bo: no device; nobody: no seat
    sweep(at(2))
    assert push_service.messages(phone) == []
    sweep(at(hours=1))  # 11:00 in Paris
    assert [m["title"] for m in push_service.messages(phone)] == ["Your game is starting"]
    assert EmailOutbox.objects.get(seat=1, kind="start").skipped == "no device"


def test_your_turn_after_game_starting_is_the_same_one_notification(push_service, subscribe, four):
    """One per game: "your game is starting" already told her about this table."""
    ana = four[0]
    phone = subscribe(ana)
    game = start(four)
    with travel(at(0)):
        _found(game, [ana])
    sweep(at(1))
    assert [m["tag"] for m in push_service.messages(phone)] == [f"game-{game.pk}"]


# --- Secrecy ----------------------------------------------------------------------------

NAMES = {engine.card_name(c): c for c in CODES}
NAME_RE = re.compile("|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)))


def cards_named(message):
    text = " ".join(str(v) for v in message.values())
    found = {token for token in re.split(r"[\s,;:/().\-]+", text) if token in CODES}
    return found | {NAMES[m.group(0)] for m in NAME_RE.finditer(text)}


def test_no_push_names_a_card(push_service, subscribe, four, ana, bo, cy, di):
    """Every decrypted payload of every trigger is scanned for any card of any hand."""
    phones = [subscribe(u) for u in four]
    game = start(four, turn_hours=12)
    with travel(at(0)):
        _found(game, [cy, di])
    User.objects.filter(pk=bo.pk).update(turn_push=User.TurnEmail.DIGEST, digest_hour=10)
    sweep(at(1))
    sweep(at(hours=1))  # Bo's daily one
    moment = _until_anas_next_decision(game, at(minutes=10))
    sweep(moment + timedelta(hours=7))
    sweep(moment + timedelta(days=1))
    messages = push_service.messages()
    assert len(messages) >= 5
    assert {m["title"][:12] for m in messages} >= {"Your game is", "Your turn at", "Reminder: ta"}
    state = store.load_state(fresh(game))
    held = set().union(*(state.view(seat)["hand"] for seat in range(4)))
    assert held
    for message in messages:
        assert cards_named(message) == set(), message
    assert all(push_service.messages(p) for p in phones)


def test_a_device_added_while_the_email_waits_for_its_hour_hears_at_once(
    push_service, subscribe, four
):
    """The daily email holds a row for hours; a phone turned on meanwhile is not held with
    it (its own choice is "as soon as I am away")."""
    ana = four[0]
    User.objects.filter(pk=ana.pk).update(turn_email=User.TurnEmail.DIGEST, digest_hour=20)
    game = start(four)
    sweep(at(1))
    assert EmailOutbox.objects.get(game=game, seat=0, channel="email").sent_at is None
    phone = subscribe(ana, moment=at(minutes=10))  # on the site until 15 min
    sweep(at(minutes=15) - timedelta(seconds=1))
    assert push_service.messages(phone) == []
    sweep(at(minutes=15))
    assert [m["tag"] for m in push_service.messages(phone)] == [f"game-{game.pk}"]
    assert not [m for m in mail.outbox if m.to == [ana.email]]
