"""The half-time reminder and the "your turn" email: exactly once, after the player's
preferences, linking straight to the table; through a real SMTP server once."""

import email
import email.policy
import time

import pytest
from django.core import mail

from games.actions import outbox, timeouts
from games.models import EmailOutbox, Game
from tests.conftest import make_started_game, race
from tests.games.clock_support import at, fresh, move_as_person, travel

TABLE = "https://cards.example"


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = TABLE


def start(users, **options):
    options.setdefault("pace", Game.Pace.TURN_BASED)
    options.setdefault("turn_hours", 24)
    with travel(at(0)):
        game = make_started_game(users, **options)
    # The "your turn" rows of the deal are not what these tests look at.
    EmailOutbox.objects.filter(game=game).update(sent_at=at(0))
    return game


def reminders():
    return [m for m in mail.outbox if m.subject.startswith("Reminder")]


@pytest.mark.django_db
def test_the_half_time_reminder_goes_out_once_across_repeated_sweeps(
    four, django_capture_on_commit_callbacks
):
    game = start(four)
    with travel(at(hours=1)):
        for seat in (0, 2, 3):
            move_as_person(game, seat)

    for minutes in (0, 0, 1, 30, 60 * 11):
        with (
            travel(at(hours=12, minutes=minutes)),
            django_capture_on_commit_callbacks(execute=True),
        ):
            timeouts.sweep()

    (message,) = reminders()
    assert message.to == ["bo@example.com"]
    assert f"{TABLE}/games/{game.pk}/" in message.body
    assert f'href="{TABLE}/games/{game.pk}/"' in message.alternatives[0][0]
    row = EmailOutbox.objects.get(game=game, kind="reminder")
    assert (row.seat, row.seq, row.skipped) == (1, 1, "")
    assert row.sent_at == at(hours=12)
    assert fresh(game).clocks["1"]["reminded"] is True


@pytest.mark.django_db
def test_no_reminder_for_a_decision_made_before_half_time(four, django_capture_on_commit_callbacks):
    game = start(four)
    with travel(at(hours=11)):
        for seat in range(4):
            move_as_person(game, seat)
    EmailOutbox.objects.filter(game=game).update(sent_at=at(0))

    with travel(at(hours=12)), django_capture_on_commit_callbacks(execute=True):
        timeouts.sweep()

    assert reminders() == []
    assert not EmailOutbox.objects.filter(game=game, kind="reminder").exists()


@pytest.mark.django_db
def test_a_player_who_turned_reminders_off_gets_none(four, django_capture_on_commit_callbacks):
    four[1].notify_reminder_email = False
    four[1].save()
    game = start(four)

    with travel(at(hours=12)), django_capture_on_commit_callbacks(execute=True):
        timeouts.sweep()

    assert sorted(m.to[0] for m in reminders()) == [
        "ana@example.com",
        "cy@example.com",
        "di@example.com",
    ]
    assert EmailOutbox.objects.get(game=game, kind="reminder", seat=1).skipped == "preference off"


@pytest.mark.django_db
def test_your_turn_email_when_a_decision_becomes_yours(four):
    four[3].turn_email = "none"
    four[3].save()
    with travel(at(0)):
        game = make_started_game(four, pace=Game.Pace.TURN_BASED, turn_hours=12)

    with travel(at(1)):
        assert outbox.deliver_outbox(game_id=game.pk) == 3
        assert outbox.deliver_outbox(game_id=game.pk) == 0

    turn = [m for m in mail.outbox if m.subject.startswith("Your turn")]
    assert sorted(m.to[0] for m in turn) == ["ana@example.com", "bo@example.com", "cy@example.com"]
    assert all(f"{TABLE}/games/{game.pk}/" in m.body for m in turn)
    assert EmailOutbox.objects.get(game=game, seat=3).skipped == "preference off"


@pytest.mark.django_db
def test_a_your_turn_email_for_a_decision_already_made_is_not_sent(four):
    game = start(four)
    EmailOutbox.objects.filter(game=game).update(sent_at=None)
    with travel(at(5)):
        move_as_person(game, 2)

    outbox.deliver_outbox(game_id=game.pk)

    assert sorted(m.to[0] for m in mail.outbox) == [
        "ana@example.com",
        "bo@example.com",
        "di@example.com",
    ]
    assert EmailOutbox.objects.get(game=game, seat=2).skipped == "already decided"


@pytest.mark.django_db
def test_the_reminder_goes_through_a_real_smtp_server(
    four, settings, smtp_server, django_capture_on_commit_callbacks
):
    port, received = smtp_server
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    game = start(four, turn_hours=72)
    with travel(at(hours=1)):
        for seat in (0, 1, 2):
            move_as_person(game, seat)

    with travel(at(hours=36)), django_capture_on_commit_callbacks(execute=True):
        timeouts.sweep()

    (envelope,) = received
    assert envelope.rcpt_tos == ["di@example.com"]
    message = email.message_from_bytes(envelope.content, policy=email.policy.default)
    # The deadline (72 h after the deal, Monday 09:00 UTC) in the player's zone (UTC).
    assert message["Subject"] == (
        f"Reminder: your deadline at table {game.pk} is Thu 5 Mar, 09:00 (Wild Cards Teams)"
    )
    assert message["List-Unsubscribe"].strip().startswith(f"<{TABLE}/accounts/unsubscribe/")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    assert f"{TABLE}/games/{game.pk}/" in text.get_payload(decode=True).decode()
    assert EmailOutbox.objects.get(game=game, kind="reminder").sent_at is not None


# --- real concurrency (PostgreSQL, committed transactions, threads) ----------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("require_postgres")
def test_concurrent_sweeps_send_the_reminder_exactly_once(four, monkeypatch):
    game = start(four)
    real_handle = timeouts.handle

    def slow_handle(game, now):
        time.sleep(0.3)  # every sweep has surely queried before the first one commits
        return real_handle(game, now)

    monkeypatch.setattr(timeouts, "handle", slow_handle)
    with travel(at(hours=12, seconds=1)):
        results = race([timeouts.sweep for _ in range(4)])

    assert sorted(results) == [0, 0, 0, 1], results  # one sweep got the game, three skipped it
    rows = EmailOutbox.objects.filter(game=game, kind="reminder")
    assert sorted(rows.values_list("seat", flat=True)) == [0, 1, 2, 3]
    assert all(r.sent_at is not None for r in rows)
    assert sorted(m.to[0] for m in reminders()) == [f"{u.username}@example.com" for u in four]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("require_postgres")
def test_concurrent_senders_send_each_outbox_row_once(four, monkeypatch):
    game = start(four)
    EmailOutbox.objects.filter(game=game).update(sent_at=None)
    real_send = outbox.send_claimed

    def slow_send(claimed):
        time.sleep(0.2)  # the other senders reach the row while this one sends it
        return real_send(claimed)

    monkeypatch.setattr(outbox, "send_claimed", slow_send)
    with travel(at(10)):
        results = race([lambda: outbox.deliver_outbox(game_id=game.pk) for _ in range(4)])

    assert sum(results) == 4, results
    assert sorted(m.to[0] for m in mail.outbox) == [f"{u.username}@example.com" for u in four]
    assert EmailOutbox.objects.filter(game=game, sent_at__isnull=True).count() == 0
