"""Each moderation needs its own permission: a staff member who may only look (every view_*
permission, nothing else) posts the admin's action forms as a moderator would, and nothing
changes; the admin says why. The functions behind the actions refuse such an account too,
and a moderator holding one permission gets only what it allows."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts.models import AccountAudit
from games.actions import chat
from games.models import ChatMessage, ChatModeration, ChatMute, Game, GameEvent, Seat
from games.moderation import actions as moderation
from games.moderation import chat as chat_moderation
from games.moderation.models import Report
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db

REFUSED = "it lacks the permission that action needs. Nothing was changed."


def staff_with(username, *codenames, every_view=True):
    user = make_user(username, is_staff=True)
    permissions = Permission.objects.filter(codename__in=codenames)
    if every_view:
        permissions |= Permission.objects.filter(codename__startswith="view_")
    user.user_permissions.add(*permissions)
    return user


@pytest.fixture
def viewer(db):
    """Staff who may look at everything in the admin and change nothing."""
    return staff_with("viewer")


@pytest.fixture
def boss(db):
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.fixture
def game(four):
    return make_started_game(four, spectators=True)


@pytest.fixture
def line(game, four):
    return chat.send(game.pk, four[1], "you all play like bots", "k1")[0]


def post_action(client, url, action, pks, **data):
    """The action's second post, with its reason: what the intermediate page sends."""
    return client.post(
        url,
        {"action": action, ACTION_CHECKBOX_NAME: pks, "apply": "Go", "reason": "because", **data},
        follow=True,
    )


def assert_refused(response):
    assert response.status_code == 200
    assert REFUSED in response.content.decode().replace("&quot;", '"')


def test_a_view_only_staff_member_is_offered_no_moderation_action(client, viewer, game, line):
    client.force_login(viewer)
    for url, actions in [
        (reverse("admin:games_game_changelist"), ["abort_tables"]),
        (
            reverse("admin:accounts_user_changelist"),
            ["suspend_accounts", "ban_accounts", "lift_restrictions"],
        ),
        (
            reverse("admin:games_chatmessage_changelist"),
            ["hide_messages", "show_messages", "mute_authors"],
        ),
        (reverse("admin:games_chatmute_changelist"), ["unmute"]),
        (reverse("admin:lobby_report_changelist"), ["mark_resolved"]),
    ]:
        page = client.get(url)
        assert page.status_code == 200, url
        for action in actions:
            assert f'value="{action}"' not in page.content.decode(), (url, action)


def test_a_view_only_staff_member_cannot_abort_a_table(client, viewer, game):
    client.force_login(viewer)
    response = post_action(
        client, reverse("admin:games_game_changelist"), "abort_tables", [game.pk]
    )
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert not GameEvent.objects.filter(actor="moderator").exists()
    assert_refused(response)


def test_a_view_only_staff_member_cannot_ban_suspend_or_lift(client, viewer, boss, ana, bo, cy):
    moderation.ban(cy, boss, "cheating")
    client.force_login(viewer)
    url = reverse("admin:accounts_user_changelist")
    responses = [
        post_action(client, url, "ban_accounts", [ana.pk]),
        post_action(client, url, "suspend_accounts", [bo.pk], days=3),
        post_action(client, url, "lift_restrictions", [cy.pk]),
    ]
    for user in (ana, bo, cy):
        user.refresh_from_db()
    assert (ana.restriction(), bo.restriction(), cy.restriction()) == (None, None, "banned")
    assert list(AccountAudit.objects.values_list("action", flat=True)) == ["ban"]
    for response in responses:
        assert_refused(response)


def test_a_view_only_staff_member_cannot_hide_a_line_or_mute_and_unmute(
    client, viewer, boss, line, cy
):
    chat_moderation.mute(cy, boss, "spam")
    client.force_login(viewer)
    url = reverse("admin:games_chatmessage_changelist")
    responses = [
        post_action(client, url, "hide_messages", [line.pk]),
        post_action(client, url, "mute_authors", [line.pk]),
        post_action(
            client,
            reverse("admin:games_chatmute_changelist"),
            "unmute",
            [ChatMute.objects.get(user=cy).pk],
        ),
    ]
    assert ChatMessage.objects.get(pk=line.pk).hidden_at is None
    assert list(ChatMute.objects.values_list("user", flat=True)) == [cy.pk]
    assert list(ChatModeration.objects.values_list("action", flat=True)) == ["mute"]
    for response in responses:
        assert_refused(response)


def test_a_view_only_staff_member_cannot_resolve_a_report(client, viewer, game, ana):
    report = Report.objects.create(game=game, reporter=ana, reason="other")
    client.force_login(viewer)
    response = client.post(
        reverse("admin:lobby_report_changelist"),
        {"action": "mark_resolved", ACTION_CHECKBOX_NAME: [report.pk]},
        follow=True,
    )
    report.refresh_from_db()
    assert (report.resolved_at, report.resolved_by) == (None, None)
    assert_refused(response)


def test_the_moderation_functions_refuse_a_view_only_staff_member_whoever_calls_them(
    viewer, boss, game, line, four, ed
):
    ana, bo, cy, di = four
    report = Report.objects.create(game=game, reporter=ana, reason="other")
    chat_moderation.mute(cy, boss, "spam")
    for call in [
        lambda: moderation.abort_table(game.pk, viewer, "x"),
        lambda: moderation.replace_with_bot(game.pk, 1, viewer, "x"),
        lambda: moderation.remove_user(game.pk, bo, viewer, "x"),
        lambda: moderation.resolve_report(report.pk, viewer),
        lambda: moderation.ban(ed, viewer, "x"),
        lambda: moderation.suspend(ed, viewer, "x", report.created_at.replace(year=2999)),
        lambda: moderation.lift(ed, viewer, "x"),
    ]:
        with pytest.raises(moderation.ModerationError, match="needs the permission"):
            call()
    for call in [
        lambda: chat_moderation.hide(line, viewer, "x"),
        lambda: chat_moderation.mute(bo, viewer, "x"),
        lambda: chat_moderation.unmute(cy, viewer, "x"),
    ]:
        with pytest.raises(chat.ChatRefused, match="needs the permission"):
            call()
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert Seat.objects.get(game=game, number=1).user == bo
    assert not GameEvent.objects.filter(actor="moderator").exists()
    assert Report.objects.get().resolved_at is None
    assert ChatMessage.objects.get(pk=line.pk).hidden_at is None
    assert list(ChatMute.objects.values_list("user", flat=True)) == [cy.pk]


def test_each_permission_allows_its_own_actions_only(client, game, line, ana, ed):
    """A chat moderator hides lines and bans nobody; an account moderator bans and hides
    nothing; neither aborts a table."""
    chat_mod = staff_with("chatmod", "moderate_chat")
    account_mod = staff_with("accountmod", "ban_user")

    client.force_login(chat_mod)
    post_action(client, reverse("admin:games_chatmessage_changelist"), "hide_messages", [line.pk])
    assert_refused(
        post_action(client, reverse("admin:accounts_user_changelist"), "ban_accounts", [ed.pk])
    )
    client.force_login(account_mod)
    post_action(client, reverse("admin:accounts_user_changelist"), "ban_accounts", [ed.pk])
    assert_refused(
        post_action(
            client, reverse("admin:games_chatmessage_changelist"), "show_messages", [line.pk]
        )
    )
    assert_refused(
        post_action(client, reverse("admin:games_game_changelist"), "abort_tables", [game.pk])
    )

    ed.refresh_from_db()
    assert ed.restriction() == "banned"
    assert ChatMessage.objects.get(pk=line.pk).hidden_by == chat_mod
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
