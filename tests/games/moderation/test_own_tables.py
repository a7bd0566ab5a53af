"""A dealt game's options stay as they were dealt; a moderator takes no action at a table
where he holds a seat; and every moderation that concerns a table is in that table's log:
its event log while it is open or running, the admin's record of it once it is over."""

import re

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from accounts.models import AccountAudit
from games import effects, tasks
from games.actions import chat
from games.models import ChatMessage, ChatMute, Game, GameEvent, Seat
from games.moderation import actions as moderation
from games.moderation.models import Report
from tests.conftest import make_started_game, make_table, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(db):
    """A moderator who may do everything, seated nowhere."""
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.fixture
def seated_mod(db):
    """A moderator who may do everything, and plays."""
    return make_user("mod", is_staff=True, is_superuser=True)


def moderator_events(game):
    return list(GameEvent.objects.filter(game=game, actor="moderator").order_by("seq"))


def text(response):
    return response.content.decode().replace("&#x27;", "'").replace("&quot;", '"')


def post_action(client, url, action, pks, **data):
    return client.post(
        url,
        {"action": action, ACTION_CHECKBOX_NAME: pks, "apply": "Go", "reason": "because", **data},
        follow=True,
    )


# --- A dealt game's options -------------------------------------------------------------


def test_a_running_casual_game_cannot_be_made_rated_in_the_admin(client, four, boss):
    game = make_started_game(four, rated=False)
    client.force_login(boss)
    url = reverse("admin:games_game_change", args=[game.pk])
    page = client.get(url)
    assert 'name="rated"' not in text(page)
    response = client.post(
        url, {"rated": "on", "private": "", "spectators": "on", "reason": "promote it"}
    )
    assert response.status_code == 403
    game.refresh_from_db()
    assert (game.rated, game.spectators) == (False, False)
    assert not moderator_events(game)


def test_an_open_tables_options_change_with_a_reason_and_the_change_is_in_its_log(
    client, ana, boss
):
    game = make_table(ana, rated=False, spectators=False)
    client.force_login(boss)
    url = reverse("admin:games_game_change", args=[game.pk])
    form = {
        "pace": game.pace,
        "move_seconds": game.move_seconds,
        "turn_hours": game.turn_hours,
        "bot_speed": game.bot_speed,
        "missed_deadline": game.missed_deadline,
        "final_card_penalty": "on",
        "spectators": "on",
        "seats-TOTAL_FORMS": 0,
        "seats-INITIAL_FORMS": 0,
    }
    refused = client.post(url, form)
    assert refused.status_code == 200 and "This field is required" in text(refused)
    assert Game.objects.get(pk=game.pk).spectators is False

    # Rated is the host's choice: a moderator's "rated" is not taken.
    client.post(url, {**form, "rated": "on", "reason": "the players asked for spectators"})
    game.refresh_from_db()
    assert (game.spectators, game.rated) == (True, False)
    (event,) = moderator_events(game)
    assert event.events[0]["action"] == "options" and event.events[0]["options"] == {
        "spectators": True
    }
    assert event.events[1]["reason"] == "the players asked for spectators"
    with pytest.raises(moderation.ModerationError, match="casual, not rated"):
        moderation.change_options(game.pk, boss, {"rated": True}, "why not")


# --- A seated moderator -----------------------------------------------------------------


def test_a_seated_moderator_cannot_hand_his_opponents_seat_to_a_bot(client, seated_mod, bo, cy, di):
    game = make_started_game([seated_mod, bo, cy, di])
    client.force_login(seated_mod)
    response = client.post(
        reverse("admin:games_game_moderate", args=[game.pk]),
        {"what": "bot", "seat": 1, "level": "hard", "reason": "slow"},
    )
    assert response.status_code == 200
    assert f"You hold a seat at table {game.pk}: another moderator must act there" in text(response)
    assert Seat.objects.get(game=game, number=1).user == bo
    assert not moderator_events(game)


def test_a_seated_moderator_cannot_abort_or_change_his_own_table(client, seated_mod, bo, cy, ed):
    running = make_started_game([seated_mod, bo, cy])
    waiting = make_table(seated_mod)
    client.force_login(seated_mod)
    response = post_action(
        client, reverse("admin:games_game_changelist"), "abort_tables", [running.pk]
    )
    assert "another moderator must act there" in text(response)
    assert Game.objects.get(pk=running.pk).status == Game.Status.ACTIVE
    # His own open table's page is shown, not editable.
    url = reverse("admin:games_game_change", args=[waiting.pk])
    assert 'name="rated"' not in text(client.get(url))
    assert client.post(url, {"rated": "on", "reason": "mine"}).status_code == 403
    assert not moderator_events(running) and not moderator_events(waiting)


def test_a_seated_moderator_cannot_hide_a_line_or_resolve_a_report_at_his_table(
    client, seated_mod, bo, cy
):
    game = make_started_game([seated_mod, bo, cy])
    line = chat.send(game.pk, bo, "a fair complaint about mod", "k1")[0]
    report = Report.objects.create(game=game, reporter=bo, reported=seated_mod, reason="abuse")
    client.force_login(seated_mod)
    hide = post_action(
        client, reverse("admin:games_chatmessage_changelist"), "hide_messages", [line.pk]
    )
    assert "another moderator must act there" in text(hide)
    resolve = client.post(
        reverse("admin:lobby_report_changelist"),
        {"action": "mark_resolved", ACTION_CHECKBOX_NAME: [report.pk]},
        follow=True,
    )
    assert "another moderator must act there" in text(resolve)
    assert ChatMessage.objects.get(pk=line.pk).hidden_at is None
    assert Report.objects.get(pk=report.pk).resolved_at is None
    assert (
        client.post(
            reverse("admin:lobby_report_change", args=[report.pk]), {"note": "nothing to see"}
        ).status_code
        == 403
    )


def test_a_seated_moderator_cannot_ban_or_mute_an_opponent_at_his_live_table(
    client, seated_mod, bo, cy
):
    game = make_started_game([seated_mod, bo, cy])
    line = chat.send(game.pk, bo, "hello", "k1")[0]
    client.force_login(seated_mod)
    ban = post_action(client, reverse("admin:accounts_user_changelist"), "ban_accounts", [bo.pk])
    assert f"are both seated at table {game.pk}: another moderator must act" in text(ban)
    post_action(client, reverse("admin:games_chatmessage_changelist"), "mute_authors", [line.pk])
    bo.refresh_from_db()
    assert bo.restriction() is None and not AccountAudit.objects.exists()
    assert not ChatMute.objects.exists()
    assert Seat.objects.get(game=game, number=1).user == bo


# --- Every moderation in the table's log -------------------------------------------------


def test_hiding_showing_and_muting_at_a_running_table_are_in_its_log(client, boss, four):
    game = make_started_game(four, spectators=True)
    line = chat.send(game.pk, four[1], "rude words", "k1")[0]
    client.force_login(boss)
    url = reverse("admin:games_chatmessage_changelist")
    post_action(client, url, "hide_messages", [line.pk], reason="insults")
    post_action(client, url, "show_messages", [line.pk], reason="a mistake")
    post_action(client, url, "mute_authors", [line.pk], reason="insults again")

    events = moderator_events(game)
    assert [e.events[0]["action"] for e in events] == ["hide", "show", "mute"]
    assert [e.events[1]["reason"] for e in events] == ["insults", "a mistake", "insults again"]
    assert all(e.user == boss and e.events[0]["player"] == "Bo" for e in events)
    # The players read what happened at their table, never the reason.
    client.force_login(four[2])
    table = text(client.get(reverse("games:play", args=[game.pk])))
    assert "A moderator hid a chat message by Bo." in table
    assert "A moderator muted Bo in chat." in table
    assert "insults" not in table


def test_a_bot_whose_move_was_pending_moves_after_a_moderator_event(
    client, boss, ana, bo, cy, monkeypatch, django_capture_on_commit_callbacks
):
    """A moderator's event moves the table's sequence on: the bot's move, sent for the
    position before it, is sent again for the new one instead of waiting for the sweep."""
    game = make_started_game([ana, bo, cy])  # a bot at seat 3, its setup pass pending
    assert 3 in Game.objects.get(pk=game.pk).waiting_on
    line = chat.send(game.pk, bo, "rude words", "k1")[0]
    sent = []
    monkeypatch.setattr(
        effects, "task_on_commit", lambda name, *args, **options: sent.append((name, *args))
    )
    client.force_login(boss)
    with django_capture_on_commit_callbacks(execute=True):
        post_action(
            client, reverse("admin:games_chatmessage_changelist"), "hide_messages", [line.pk]
        )
    game.refresh_from_db()
    assert ("games.tasks.play_bot", game.pk, 3, game.last_seq) in sent
    assert tasks.play_bot(game.pk, 3, game.last_seq) == "played"


def test_a_resolved_report_is_in_its_tables_log_for_staff_only(client, boss, four):
    game = make_started_game(four, spectators=True)
    report = Report.objects.create(
        game=game, reporter=four[0], reported=four[1], reason="abuse", note="warned by email"
    )
    client.force_login(boss)
    client.post(
        reverse("admin:lobby_report_changelist"),
        {"action": "mark_resolved", ACTION_CHECKBOX_NAME: [report.pk]},
    )
    assert Report.objects.get(pk=report.pk).resolved_by == boss

    (event,) = moderator_events(game)
    line, note = event.events
    assert (line["action"], line["report"], line["visible_to"]) == ("report", report.pk, [])
    assert note["reason"] == "warned by email"
    log = text(client.get(reverse("admin:games_game_log", args=[game.pk])))
    assert "warned by email" in log
    # The table is not told that someone reported.
    client.force_login(four[1])
    table = text(client.get(reverse("games:play", args=[game.pk])))
    assert "A moderator" not in table and "warned" not in table


def test_moderation_at_a_game_that_is_over_is_in_the_admins_record_of_it(client, boss, four):
    game = make_started_game(four, spectators=True)
    moderation.abort_table(game.pk, boss, "duplicate table")
    line = chat.send(game.pk, four[1], "rude words after the end", "k1")[0]
    report = Report.objects.create(game=game, reporter=four[0], reason="other")
    last_seq = Game.objects.get(pk=game.pk).last_seq
    client.force_login(boss)
    post_action(
        client,
        reverse("admin:games_chatmessage_changelist"),
        "hide_messages",
        [line.pk],
        reason="insults",
    )
    client.post(
        reverse("admin:lobby_report_changelist"),
        {"action": "mark_resolved", ACTION_CHECKBOX_NAME: [report.pk]},
    )

    # The event log stays as the game ended (its replay and export read it) ...
    assert Game.objects.get(pk=game.pk).last_seq == last_seq
    assert len(moderator_events(game)) == 1
    # ... and the admin's record of the game has both, shown on its event log page.
    entries = list(
        LogEntry.objects.filter(object_id=str(game.pk))
        .order_by("pk")
        .values_list("change_message", flat=True)
    )
    assert len(entries) == 2
    assert re.match(r"Moderation: hide \(message \d+, player Bo\)\. Reason: insults", entries[0])
    assert entries[1].startswith(f"Moderation: report (report {report.pk})")
    log = text(client.get(reverse("admin:games_game_log", args=[game.pk])))
    assert 'id="after-the-end"' in log and "Reason: insults" in log
