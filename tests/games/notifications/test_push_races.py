"""Real concurrency on PostgreSQL (committed transactions, threads): senders racing for
the same player's rows (the beat's sweep and the task sent on commit, two workers) send
each push once to each device, the push twin of an email row is written once, and the
email goes once too."""

import time

import pytest
from django.core import mail

from accounts import vapid
from accounts.models import PushSubscription
from games.actions import outbox, webpush
from games.models import EmailOutbox
from tests.conftest import race
from tests.games.actions.test_away_emails import start
from tests.games.clock_support import at, travel
from tests.games.notifications.push_service import b64url


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("require_postgres")
def test_concurrent_senders_push_each_row_once_to_each_device(four, push_service, monkeypatch):
    devices = {}
    for user in four:
        browser = push_service.browser(vapid.public_key())
        PushSubscription.objects.create(
            user=user, endpoint=browser.endpoint, p256dh=browser.p256dh, auth=b64url(browser.auth)
        )
        devices[user.pk] = browser
    game = start(four)
    real_send = webpush.send

    def slow_send(user_id, message):
        time.sleep(0.2)  # the other senders reach the rows while this one sends
        return real_send(user_id, message)

    monkeypatch.setattr(webpush, "send", slow_send)
    with travel(at(10)):
        results = race([lambda: outbox.deliver_outbox(game_id=game.pk) for _ in range(4)])

    assert sum(results) == 8, results  # four pushes and four emails
    assert all(len(push_service.messages(b)) == 1 for b in devices.values())
    assert len(mail.outbox) == 4
    pushes = EmailOutbox.objects.filter(game=game, channel="push")
    assert pushes.count() == 4 and not pushes.filter(sent_at__isnull=True).exists()
