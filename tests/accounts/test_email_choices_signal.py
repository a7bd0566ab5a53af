"""Saving the profile looks again at the "your turn" emails waiting for the person: the
accounts say so through a signal (they import nothing of the games app), and the games
app's outbox receives it."""

import pytest
from django.urls import reverse

from accounts import signals
from games.actions import outbox
from tests.accounts.test_profile import profile_data

pytestmark = pytest.mark.django_db


def test_the_profile_tells_the_games_app_to_replan_the_waiting_emails(client, ana, monkeypatch):
    replanned = []
    monkeypatch.setattr(outbox, "replan", replanned.append)
    client.force_login(ana)

    response = client.post(reverse("accounts:profile"), profile_data(ana, turn_email="digest"))

    assert response.status_code == 302
    assert replanned == [ana.pk]


def test_the_signal_reaches_the_outbox_with_nothing_else_connected(ana, monkeypatch):
    replanned = []
    monkeypatch.setattr(outbox, "replan", replanned.append)

    answers = signals.email_choices_changed.send(sender=type(ana), user_id=ana.pk)

    assert [receiver for receiver, _ in answers] == [outbox.email_choices_changed]
    assert replanned == [ana.pk]
