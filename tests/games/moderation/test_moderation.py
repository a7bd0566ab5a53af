"""Moderator actions, their audit trail, bans at log-in/join/act, reports, and that
none of it is reachable by players."""

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse
from django.utils import timezone

from accounts.models import AccountAudit, User
from games import push, store
from games.actions import decisions, presence, timeouts
from games.models import Game, GameEvent, Seat
from games.moderation import actions as moderation
from games.moderation.models import Report
from lobby import services as lobby
from tests.conftest import PASSWORD, make_started_game, make_table, play_until
from tests.games.clock_support import at, fresh, move_as_person, timeout_events, travel

pytestmark = pytest.mark.django_db


@pytest.fixture
def mod(db):
    from tests.conftest import make_user

    return make_user("mod", is_staff=True, is_superuser=True)


def last_event(game):
    return GameEvent.objects.filter(game=game).order_by("-seq").first()


def assert_moderator_event(event, mod, what, reason, seat=None):
    assert event.actor == GameEvent.Actor.MODERATOR and event.kind == "moderator"
    assert event.user == mod and event.action is None and event.seat == seat
    public, note = event.events
    assert public == {**public, "type": "moderator", "action": what, "visible_to": None}
    assert note == {
        "type": "moderator_note",
        "reason": reason,
        "moderator": "mod",
        "visible_to": [],
    }


# --- The actions ----------------------------------------------------------------------


def test_aborting_a_running_table_ends_it_with_no_result_and_records_why(four, mod):
    game = make_started_game(four)
    play_until(game, 12)
    before = store.load_state(Game.objects.get(pk=game.pk)).to_dict()

    moderation.abort_table(game.pk, mod, "players colluding")

    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert (game.deadline_at, game.bot_due_at, game.waiting_on) == (None, None, [])
    assert (game.clocks, game.wake_at) == ({}, None)  # nothing left for the clock sweep
    assert_moderator_event(last_event(game), mod, "abort", "players colluding")
    assert game.last_seq == 13 and game.snapshot.seq == 13
    assert store.load_state(game).to_dict() == before == store.replay(game).to_dict()
    with pytest.raises(decisions.GameNotActive):
        decisions.apply_decision(game.pk, 0, {"type": "concede"}, "person")


def test_a_moderator_action_needs_a_reason(four, mod):
    game = make_started_game(four)
    with pytest.raises(moderation.ModerationError):
        moderation.abort_table(game.pk, mod, "  ")
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_a_finished_or_aborted_table_cannot_be_aborted_again(four, mod):
    game = make_started_game(four)
    moderation.abort_table(game.pk, mod, "once")
    with pytest.raises(moderation.ModerationError):
        moderation.abort_table(game.pk, mod, "twice")
    assert GameEvent.objects.filter(game=game, kind="moderator").count() == 1


def test_replacing_a_player_by_a_bot_hands_the_seat_on_and_the_game_goes_on(
    four, mod, django_capture_on_commit_callbacks
):
    ana, bo, cy, di = four
    game = make_started_game(four)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks() as callbacks:
        moderation.replace_with_bot(game.pk, 1, mod, "abusive chat", "hard")

    seat = Seat.objects.get(game=game, number=1)
    assert (seat.user, seat.bot_level) == (None, "hard")
    game.refresh_from_db()
    assert 1 in game.bot_seats
    event = last_event(game)
    assert_moderator_event(event, mod, "bot", "abusive chat", seat=1)
    assert event.events[0]["player"] == "Bo"
    # Seat 1 has a setup pass to make: its bot is scheduled after commit.
    assert callbacks, "the bot's move and the notification run after commit"
    assert store.replay(game).to_dict() == game.snapshot.state


def test_a_seat_handed_to_a_bot_keeps_no_clock_or_hold_and_never_times_out(four, mod):
    with travel(at(0)):
        game = make_started_game(four)  # real time: every seat has a 30 s setup clock
    with travel(at(10)):
        for seat in (0, 1, 2):
            move_as_person(game, seat)
        presence.seat_disconnected(game.pk, 3)
    assert fresh(game).deadline_at == at(30) and fresh(game).presence["3"]["hold_until"]

    with travel(at(12)):
        moderation.replace_with_bot(game.pk, 3, mod, "away for good", "easy")

    game = fresh(game)
    assert (game.clocks, game.presence, game.deadline_at, game.wake_at) == ({}, {}, None, None)
    assert game.bot_seats == [3] and game.bot_due_at == at(12)
    with travel(at(200)):
        timeouts.sweep()
    assert timeout_events(game) == []


def test_a_moderator_action_is_pushed_to_the_table_after_commit_without_its_reason(
    four, mod, django_capture_on_commit_callbacks
):
    game = make_started_game(four)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(push.seat_group(game.pk, 0), channel)

    with django_capture_on_commit_callbacks(execute=True):
        moderation.replace_with_bot(game.pk, 1, mod, "abusive chat")

    message = async_to_sync(layer.receive)(channel)
    assert message["seq"] == 2
    assert "A moderator handed Bo&#x27;s seat to a bot." in message["html"]
    assert "abusive chat" not in message["html"]


def test_a_table_a_moderator_acted_on_before_its_start_deals_and_replays(ana, bo, cy, di, mod):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 1)
    lobby.take_seat(game.pk, cy, 2)
    moderation.remove_user(game.pk, cy, mod, "rude name")
    lobby.take_seat(game.pk, di, 2)
    lobby.add_bot(game.pk, ana, 3, "easy")

    lobby.start_table(game.pk, ana)
    play_until(game, 6)

    game.refresh_from_db()
    assert list(
        GameEvent.objects.filter(game=game).order_by("seq").values_list("kind", flat=True)[:2]
    ) == ["moderator", "deal"]
    assert game.last_seq == 6 and game.snapshot.seq == 6
    assert store.replay(game).to_dict() == game.snapshot.state


def test_removing_a_user_from_an_open_table_empties_the_seat(ana, bo, mod):
    game = make_table(ana)
    lobby.take_seat(game.pk, bo, 2)
    moderation.remove_user(game.pk, bo, mod, "rude name")
    assert Seat.objects.get(game=game, number=2).is_empty
    assert_moderator_event(last_event(game), mod, "remove", "rude name", seat=2)
    assert Game.objects.get(pk=game.pk).status == Game.Status.OPEN


def test_removing_a_user_from_a_running_table_gives_their_seat_to_a_bot(four, mod):
    game = make_started_game(four)
    moderation.remove_user(game.pk, four[2], mod, "stalling")
    seat = Seat.objects.get(game=game, number=2)
    assert seat.user is None and seat.bot_level == "normal"
    assert_moderator_event(last_event(game), mod, "remove", "stalling", seat=2)


def test_removing_someone_not_seated_is_refused(four, ed, mod):
    game = make_started_game(four)
    with pytest.raises(moderation.ModerationError):
        moderation.remove_user(game.pk, ed, mod, "why")


def test_a_ban_records_an_audit_row_and_hands_every_running_seat_to_a_bot(four, ed, mod):
    ana, bo, cy, di = four
    running = make_started_game(four)
    other = make_started_game([cy, bo, ed, di])
    waiting = make_table(ed)
    lobby.take_seat(waiting.pk, bo, 1)

    moderation.ban(bo, mod, "cheating")

    bo.refresh_from_db()
    assert bo.banned_at is not None and bo.restriction() == "banned"
    audit = AccountAudit.objects.get(user=bo)
    assert (audit.action, audit.moderator, audit.reason) == ("ban", mod, "cheating")
    assert not Seat.objects.filter(user=bo).exists()
    for game in (running, other):
        event = last_event(game)
        assert (
            event.actor == "moderator" and event.events[1]["reason"] == "account banned: cheating"
        )
        assert Seat.objects.get(game=game, number=event.seat).bot_level == "normal"
    assert Seat.objects.get(game=waiting, number=1).is_empty


def test_a_suspension_ends_by_itself(ana, mod):
    import time_machine

    moderation.suspend(ana, mod, "spam", timezone.now() + timedelta(days=2))
    ana.refresh_from_db()
    assert ana.restriction() == "suspended"
    assert AccountAudit.objects.get(user=ana).until == ana.suspended_until
    with time_machine.travel(timezone.now() + timedelta(days=3)):
        assert ana.restriction() is None


def test_lifting_a_ban_is_audited_too(ana, mod):
    moderation.ban(ana, mod, "mistake?")
    moderation.lift(ana, mod, "it was a mistake")
    ana.refresh_from_db()
    assert ana.restriction() is None
    assert list(AccountAudit.objects.filter(user=ana).values_list("action", flat=True)) == [
        "lift",
        "ban",
    ]


# --- A banned user cannot log in, join or act -----------------------------------------


def test_a_banned_user_cannot_log_in(client, ana, mod):
    moderation.ban(ana, mod, "cheating")
    response = client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 400
    assert "_auth_user_id" not in client.session


def test_a_suspended_user_cannot_log_in_until_it_ends(client, ana, mod):
    moderation.suspend(ana, mod, "spam", timezone.now() + timedelta(hours=1))
    client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert "_auth_user_id" not in client.session


def test_a_ban_ends_the_sessions_the_user_already_has(client, ana, bo, mod):
    game = make_table(bo)
    client.force_login(ana)
    assert client.get(reverse("history:mine")).status_code == 200
    moderation.ban(ana, mod, "cheating")
    assert client.get(reverse("history:mine")).status_code == 302
    client.post(reverse("lobby:take", args=[game.pk, 1]))
    assert Seat.objects.get(game=game, number=1).is_empty


def test_a_restricted_user_cannot_act_even_through_the_service(four, mod):
    game = make_started_game(four)
    ana = four[0]
    # Suspended in the database while the caller still holds the user as it was loaded
    # before (as an open socket does): the write door reads the account afresh.
    User.objects.filter(pk=ana.pk).update(suspended_until=timezone.now() + timedelta(days=1))
    assert not ana.is_restricted
    state = store.load_state(Game.objects.get(pk=game.pk))
    with pytest.raises(decisions.DecisionRefused):
        decisions.apply_decision(game.pk, 0, state.auto_action(0), "person", user=ana)
    assert Game.objects.get(pk=game.pk).last_seq == 1


def test_other_players_still_log_in(client, ana, bo, mod):
    moderation.ban(ana, mod, "cheating")
    client.post(reverse("accounts:login"), {"username": "bo", "password": PASSWORD})
    assert client.session["_auth_user_id"] == str(bo.pk)


# --- The admin ----------------------------------------------------------------------


def test_games_are_searchable_by_player_and_filtered_by_state(client, four, ed, mod):
    running = make_started_game(four)
    other = make_started_game([four[0], ed])
    client.force_login(mod)
    url = reverse("admin:games_game_changelist")
    found = client.get(url, {"q": "ed"}).context["cl"].result_list
    assert [g.pk for g in found] == [other.pk]
    Game.objects.filter(pk=other.pk).update(status=Game.Status.FINISHED)
    active = client.get(url, {"status__exact": "active"}).context["cl"].result_list
    assert [g.pk for g in active] == [running.pk]


def test_the_admin_event_log_lists_every_event_in_order(client, four, mod):
    game = make_started_game(four)
    play_until(game, 8)
    moderation.abort_table(game.pk, mod, "test reason")
    client.force_login(mod)
    response = client.get(reverse("admin:games_game_log", args=[game.pk]))
    assert response.status_code == 200
    assert [r.seq for r in response.context["rows"]] == list(range(1, 10))
    html = response.content.decode()
    assert "test reason" in html and "Moderator" in html


def test_the_admin_abort_action_asks_why_then_aborts(client, four, mod):
    game = make_started_game(four)
    client.force_login(mod)
    url = reverse("admin:games_game_changelist")
    data = {"action": "abort_tables", ACTION_CHECKBOX_NAME: [game.pk]}
    asking = client.post(url, data)
    assert asking.status_code == 200 and "reason" in asking.context["form"].fields
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE

    client.post(url, {**data, "apply": "Abort", "reason": "duplicate table"})
    assert Game.objects.get(pk=game.pk).status == Game.Status.ABORTED
    assert_moderator_event(last_event(game), mod, "abort", "duplicate table")


def test_the_admin_seat_form_replaces_a_player_by_a_bot_or_removes_them(client, four, mod):
    game = make_started_game(four)
    client.force_login(mod)
    url = reverse("admin:games_game_moderate", args=[game.pk])
    client.post(url, {"what": "bot", "seat": 3, "level": "easy", "reason": "afk"})
    assert Seat.objects.get(game=game, number=3).bot_level == "easy"
    client.post(url, {"what": "remove", "seat": 1, "level": "normal", "reason": "abuse"})
    assert Seat.objects.get(game=game, number=1).user is None
    kinds = list(
        GameEvent.objects.filter(game=game, actor="moderator").values_list("events", flat=True)
    )
    assert [e[0]["action"] for e in kinds] == ["bot", "remove"]


def test_the_admin_ban_and_suspend_actions_write_audit_rows_shown_on_the_account(
    client, ana, bo, mod
):
    client.force_login(mod)
    url = reverse("admin:accounts_user_changelist")
    client.post(
        url,
        {
            "action": "ban_accounts",
            ACTION_CHECKBOX_NAME: [ana.pk],
            "apply": "Ban",
            "reason": "cheating",
        },
    )
    client.post(
        url,
        {
            "action": "suspend_accounts",
            ACTION_CHECKBOX_NAME: [bo.pk],
            "apply": "Suspend",
            "reason": "spam",
            "days": 3,
        },
    )
    ana.refresh_from_db()
    bo.refresh_from_db()
    assert ana.restriction() == "banned" and bo.restriction() == "suspended"
    page = client.get(reverse("admin:accounts_user_change", args=[ana.pk])).content.decode()
    assert "cheating" in page
    banned = client.get(url, {"restriction": "banned"}).context["cl"].result_list
    assert [u.pk for u in banned] == [ana.pk]


# --- Reports ----------------------------------------------------------------------------


def test_a_player_reports_a_player_and_it_shows_in_the_admin_with_the_game(client, four, mod):
    game = make_started_game(four)
    client.force_login(four[0])
    url = reverse("history:report", args=[game.pk])
    assert client.get(url).status_code == 200
    response = client.post(url, {"reported": four[1].pk, "reason": "abuse", "text": "rude"})
    assert response.status_code == 302
    report = Report.objects.get()
    assert (report.game, report.reporter, report.reported, report.reason) == (
        game,
        four[0],
        four[1],
        "abuse",
    )

    client.force_login(mod)
    page = client.get(reverse("admin:lobby_report_changelist")).content.decode()
    assert reverse("admin:games_game_change", args=[game.pk]) in page
    client.post(
        reverse("admin:lobby_report_changelist"),
        {"action": "mark_resolved", ACTION_CHECKBOX_NAME: [report.pk]},
    )
    report.refresh_from_db()
    assert report.resolved_by == mod


def test_a_report_about_the_table_itself_and_only_about_its_players(client, four, ed):
    game = make_started_game(four)
    client.force_login(four[0])
    url = reverse("history:report", args=[game.pk])
    client.post(url, {"reported": "", "reason": "stalling", "text": ""})
    assert Report.objects.get().reported is None
    client.post(url, {"reported": ed.pk, "reason": "abuse"})
    assert Report.objects.count() == 1


def test_private_tables_cannot_be_reported_by_outsiders(client, four, ed):
    game = make_started_game(four, private=True)
    client.force_login(ed)
    assert (
        client.post(reverse("history:report", args=[game.pk]), {"reason": "other"}).status_code
        == 404
    )


# --- Non-staff reach none of it --------------------------------------------------------


def test_players_reach_no_moderation_page_or_action(client, four, ed):
    game = make_started_game(four)
    ana = four[0]
    report = Report.objects.create(game=game, reporter=ana, reason="other")
    urls = [
        reverse("admin:index"),
        reverse("admin:games_game_changelist"),
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:games_game_log", args=[game.pk]),
        reverse("admin:games_game_moderate", args=[game.pk]),
        reverse("admin:accounts_user_changelist"),
        reverse("admin:accounts_accountaudit_changelist"),
        reverse("admin:lobby_report_changelist"),
        reverse("admin:lobby_report_change", args=[report.pk]),
    ]
    client.force_login(ed)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
    client.post(
        reverse("admin:games_game_changelist"),
        {"action": "abort_tables", ACTION_CHECKBOX_NAME: [game.pk], "apply": "1", "reason": "x"},
    )
    client.post(
        reverse("admin:games_game_moderate", args=[game.pk]),
        {"what": "bot", "seat": 1, "level": "easy", "reason": "x"},
    )
    client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "ban_accounts", ACTION_CHECKBOX_NAME: [ana.pk], "apply": "1", "reason": "x"},
    )
    game.refresh_from_db()
    ana.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and Seat.objects.get(game=game, number=1).user
    assert ana.restriction() is None
    assert not GameEvent.objects.filter(actor="moderator").exists()
