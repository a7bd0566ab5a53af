"""Table chat: who receives which room's lines, refusals in words, keys, mutes, reports,
hiding, a person's own chat switch, and the HTML each line is shown as."""

import re

import pytest
from django.urls import reverse

from games import push
from games.actions import chat
from games.models import ChatMessage, ChatModeration, ChatMute, ChatSetting, Game
from games.moderation import actions as moderation
from games.moderation import chat as chat_moderation
from games.moderation.models import Report
from games.presenters import chat as chat_views
from tests.conftest import make_started_game, make_user

pytestmark = pytest.mark.django_db


class Recorder:
    def __init__(self):
        self.sent = []

    async def group_send(self, group, message):
        self.sent.append((group, message))

    def of(self, kind):
        return [(group, message) for group, message in self.sent if message["type"] == kind]


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(push, "get_channel_layer", lambda: recorder)
    return recorder


@pytest.fixture
def table(ana, bo, cy):
    """Ana, Bo and Cy seated, a bot at seat 3; spectators allowed."""
    return make_started_game([ana, bo, cy], spectators=True)


@pytest.fixture
def mod(db):
    return make_user("mod", is_staff=True, is_superuser=True)


def seat_groups(game, seats):
    return {push.seat_group(game.pk, s) for s in seats}


def say(game, user, text, key=None, *, commit):
    with commit(execute=True):
        return chat.send(game.pk, user, text, key or f"k-{text[:30]}")[0]


def test_a_players_line_goes_to_each_seated_persons_group_only_during_play(
    table, ana, recorder, django_capture_on_commit_callbacks
):
    say(table, ana, "hello partners", commit=django_capture_on_commit_callbacks)
    groups = {group for group, _ in recorder.of("chat.message")}
    assert groups == seat_groups(table, [0, 1, 2])  # not the bot's seat, not the spectators


def test_a_spectators_line_goes_to_the_public_group_only(
    table, ed, recorder, django_capture_on_commit_callbacks
):
    line = say(table, ed, "go team circle", commit=django_capture_on_commit_callbacks)
    assert line.room == ChatMessage.Room.SPECTATORS
    assert {group for group, _ in recorder.of("chat.message")} == {push.public_group(table.pk)}


def test_once_the_game_is_over_the_players_line_reaches_the_spectators_too(
    table, ana, mod, recorder, django_capture_on_commit_callbacks
):
    moderation.abort_table(table.pk, mod, "test")
    recorder.sent.clear()
    say(table, ana, "good game", commit=django_capture_on_commit_callbacks)
    assert {group for group, _ in recorder.of("chat.message")} == (
        seat_groups(table, [0, 1, 2]) | {push.public_group(table.pk)}
    )


def test_a_private_table_has_no_spectators_to_chat_or_push_to(
    ana, bo, cy, ed, recorder, django_capture_on_commit_callbacks
):
    game = make_started_game([ana, bo, cy], spectators=True, private=True)
    with pytest.raises(chat.ChatRefused, match="not at this table"):
        chat.send(game.pk, ed, "hi", "k1")
    say(game, ana, "hi", commit=django_capture_on_commit_callbacks)
    assert push.public_group(game.pk) not in {group for group, _ in recorder.sent}


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "Write something first"),
        ("   \n\t ", "Write something first"),
        ("x" * 301, "too long: at most 300 characters"),
        ("bad\x00nul", "characters a chat line cannot hold"),
        ("bell\x07", "characters a chat line cannot hold"),
        (["a list"], "A chat message is text"),
    ],
)
def test_bad_lines_are_refused_in_words_and_store_nothing(table, ana, recorder, text, message):
    with pytest.raises(chat.ChatRefused, match=message) as refused:
        chat.send(table.pk, ana, text, "k1")
    assert refused.value.status == 400
    assert not ChatMessage.objects.exists() and not recorder.sent


def test_a_line_of_exactly_the_limit_is_sent(table, ana):
    assert chat.send(table.pk, ana, "y" * 300, "k1")[1]


def test_a_flood_is_refused_with_when_to_come_back(table, ana, settings):
    settings.CHAT_RATE_LIMIT, settings.CHAT_RATE_WINDOW = 5, 10
    for n in range(5):
        chat.send(table.pk, ana, f"line {n}", f"k{n}")
    with pytest.raises(
        chat.ChatRefused,
        match=r"Too many messages: at most 5 in 10 seconds\. "
        r"Wait \d+ s\.",
    ) as refused:
        chat.send(table.pk, ana, "one more", "k6")
    assert refused.value.status == 429
    assert ChatMessage.objects.count() == 5
    # Another person at the same table has a limit of their own.
    assert chat.send(table.pk, make_user_at(table, 1), "me too", "b1")[1]


def make_user_at(game, number):
    return game.seats.get(number=number).user


def test_a_key_sent_again_stores_and_pushes_the_line_once(
    table, ana, recorder, django_capture_on_commit_callbacks
):
    first = say(table, ana, "once", "same-key", commit=django_capture_on_commit_callbacks)
    pushes = len(recorder.sent)
    with django_capture_on_commit_callbacks(execute=True):
        again, created = chat.send(table.pk, ana, "once", "same-key")
    assert (again.pk, created) == (first.pk, False)
    assert ChatMessage.objects.count() == 1 and len(recorder.sent) == pushes


def test_the_key_is_checked(table, ana):
    for key in ("", "k" * 41, "tab\tkey", None):
        with pytest.raises(chat.ChatRefused, match="needs its key"):
            chat.send(table.pk, ana, "hi", key)


def test_outsiders_and_open_tables_are_refused(ana, bo, ed):
    game = make_started_game([ana, bo])  # no spectators
    with pytest.raises(chat.ChatRefused, match="not at this table") as refused:
        chat.send(game.pk, ed, "hi", "k1")
    assert refused.value.status == 403
    open_table = Game.objects.create(host=ana)
    with pytest.raises(chat.ChatRefused, match="no such table"):
        chat.send(open_table.pk, ana, "hi", "k1")


def test_a_muted_player_is_refused_and_reaches_nobody(
    table, ana, bo, mod, recorder, django_capture_on_commit_callbacks
):
    chat_moderation.mute(bo, mod, "insults")
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(chat.ChatRefused, match="A moderator has muted you in chat") as refused:
            chat.send(table.pk, bo, "you are all terrible", "k1")
    assert refused.value.status == 403
    assert not ChatMessage.objects.exists() and not recorder.sent
    # The others still chat; the log says who muted whom and why; lifting it lets Bo talk.
    assert chat.send(table.pk, ana, "calm down", "a1")[1]
    chat_moderation.unmute(bo, mod, "apologised")
    assert chat.send(table.pk, bo, "sorry", "b2")[1]
    log = list(
        ChatModeration.objects.order_by("pk").values_list("action", "user", "moderator", "reason")
    )
    assert log == [("mute", bo.pk, mod.pk, "insults"), ("unmute", bo.pk, mod.pk, "apologised")]


def test_moderator_actions_need_a_reason(table, ana, bo, mod):
    line = chat.send(table.pk, ana, "hi", "k1")[0]
    for call in (
        lambda: chat_moderation.mute(bo, mod, " "),
        lambda: chat_moderation.hide(line, mod, ""),
    ):
        with pytest.raises(chat.ChatRefused, match="Say why"):
            call()
    assert not ChatMute.objects.exists() and not ChatModeration.objects.exists()


def test_a_hidden_line_leaves_every_page_and_is_logged(
    table, ana, bo, mod, recorder, client, django_capture_on_commit_callbacks
):
    line = say(table, ana, "something rude", commit=django_capture_on_commit_callbacks)
    recorder.sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        chat_moderation.hide(line, mod, "rude")
    assert {group for group, _ in recorder.of("chat.hidden")} == seat_groups(table, [0, 1, 2])
    assert recorder.of("chat.hidden")[0][1]["id"] == line.pk
    client.force_login(bo)
    assert "something rude" not in client.get(reverse("games:chat", args=[table.pk])).text
    entry = ChatModeration.objects.get()
    assert (entry.action, entry.message, entry.moderator, entry.reason) == (
        "hide",
        line,
        mod,
        "rude",
    )
    chat_moderation.hide(line, mod, "a mistake", show=True)
    assert "something rude" in client.get(reverse("games:chat", args=[table.pk])).text


def test_a_report_names_the_line_for_the_moderators(table, ana, bo, ed):
    line = chat.send(table.pk, ana, "rude words", "k1")[0]
    found = chat_moderation.report(table.pk, line.pk, bo)
    assert (found.game, found.reporter, found.reported, found.reason) == (
        table,
        bo,
        ana,
        Report.Reason.ABUSE,
    )
    assert found.text == f"Chat message {line.pk}: rude words"
    with pytest.raises(chat.ChatRefused, match="already reported"):
        chat_moderation.report(table.pk, line.pk, bo)
    with pytest.raises(chat.ChatRefused, match="your own message"):
        chat_moderation.report(table.pk, line.pk, ana)
    # A spectator cannot reach the players' room during play, not even to report it.
    with pytest.raises(chat.ChatRefused, match="no such message") as refused:
        chat_moderation.report(table.pk, line.pk, ed)
    assert refused.value.status == 404
    assert Report.objects.count() == 1


def test_turning_the_chat_off_is_stored_and_told_to_the_persons_sockets(
    table, ana, recorder, client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        chat.set_off(ana, True)
    assert ChatSetting.objects.get(user=ana).muted
    assert recorder.sent == [(push.user_group(ana.pk), {"type": "chat.setting", "off": True})]
    with pytest.raises(chat.ChatRefused, match="You turned the chat off") as refused:
        chat.send(table.pk, ana, "hi", "k1")
    assert refused.value.status == 409
    chat.send(table.pk, make_user_at(table, 1), "are you there?", "b1")
    client.force_login(ana)
    page = client.get(reverse("games:chat", args=[table.pk])).text
    assert "You turned the chat off" in page and "are you there?" not in page
    chat.set_off(ana, False)
    assert "are you there?" in client.get(reverse("games:chat", args=[table.pk])).text


def test_a_line_is_escaped_on_the_page_and_in_the_push(
    table, ana, bo, recorder, client, django_capture_on_commit_callbacks
):
    say(
        table,
        ana,
        '<script>alert("x")</script> & <b>bold</b>',
        commit=django_capture_on_commit_callbacks,
    )
    html = recorder.of("chat.message")[0][1]["html"]
    client.force_login(bo)
    page = client.get(reverse("games:chat", args=[table.pk])).text
    for shown in (html, page):
        assert "<script>alert" not in shown and "<b>bold" not in shown
        assert (
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"
            in shown
        )


def test_the_panel_shows_the_newest_lines_of_the_rooms_the_reader_may_read(
    table, ana, ed, settings, client
):
    settings.CHAT_HISTORY, settings.CHAT_RATE_LIMIT = 3, 100
    for n in range(5):
        chat.send(table.pk, ana, f"player line {n}", f"a{n}")
    client.force_login(ana)
    shown = re.findall(r"player line \d", client.get(reverse("games:chat", args=[table.pk])).text)
    assert shown == ["player line 2", "player line 3", "player line 4"]


def test_the_chat_page_and_posts_refuse_in_words(table, ana, ed, client):
    client.force_login(ana)
    send = reverse("games:chat_send", args=[table.pk])
    answer = client.post(send, {"text": "  ", "key": "k1"}, headers={"HX-Request": "true"})
    assert answer.status_code == 400 and "Write something first" in answer.text
    answer = client.post(send, {"text": "x" * 400}, headers={"HX-Request": "true"})
    assert answer.status_code == 400 and "too long" in answer.text
    # A plain post works and comes back to the chat page, a quick phrase too.
    assert client.post(send, {"text": "plain post"}).status_code == 302
    assert client.post(send, {"phrase": "Well played", "text": ""}).status_code == 302
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["plain post", "Well played"]
    toggle = client.post(reverse("games:chat_off", args=[table.pk]), {"off": "maybe"})
    assert toggle.status_code == 400 and "turn the chat off" in toggle.text
    client.force_login(make_user("zed"))
    private = make_started_game([ana, make_user("yan")], private=True)
    answer = client.get(reverse("games:chat", args=[private.pk]))
    assert answer.status_code == 403 and "not at this table" in answer.text


def test_the_panel_shows_the_fair_play_note_and_the_quick_phrases(table, ana, ed, client):
    client.force_login(ana)
    page = client.get(reverse("games:chat", args=[table.pk]), headers={"HX-Request": "true"}).text
    assert "partners may talk, but not about their cards" in page
    for phrase in ("Good game", "Well played"):
        assert f'value="{phrase}"' in page
    client.force_login(ed)
    page = client.get(reverse("games:chat", args=[table.pk]), headers={"HX-Request": "true"}).text
    assert "The players do not see this room" in page


def test_readable_rooms():
    running = Game(status=Game.Status.ACTIVE)
    over = Game(status=Game.Status.FINISHED)
    assert chat_views.readable_rooms(running, seated=True) == ["players"]
    assert chat_views.readable_rooms(over, seated=True) == ["players"]
    assert chat_views.readable_rooms(running, seated=False) == ["spectators"]
    assert chat_views.readable_rooms(over, seated=False) == ["players", "spectators"]


CHAT_BOX = re.compile(r'<details class="chat" id="chat"( open)?')


def chat_box_open(client, user, game):
    client.force_login(user)
    return CHAT_BOX.search(client.get(reverse("games:play", args=[game.pk])).text)[1] is not None


def test_the_tables_chat_box_starts_folded_until_someone_could_read_a_line(
    table, ana, bo, ed, client, django_capture_on_commit_callbacks
):
    # Empty: folded for everyone, so that the move log has the column.
    assert not chat_box_open(client, ana, table)
    assert not chat_box_open(client, ed, table)
    say(table, ana, "Good luck", commit=django_capture_on_commit_callbacks)
    # A line in the players' room opens it for the players, not for a spectator (the
    # spectators' room is still empty, and the players' is not theirs until the end).
    assert chat_box_open(client, bo, table)
    assert chat_box_open(client, ana, table)
    assert not chat_box_open(client, ed, table)
    # Someone who turned the chat off sees it folded.
    chat.set_off(bo, True)
    assert not chat_box_open(client, bo, table)
    # A hidden line does not count.
    ChatMessage.objects.update(hidden_at=table.created_at)
    assert not chat_box_open(client, ana, table)


def test_with_only_bots_to_talk_to_the_chat_box_starts_folded_even_with_a_line(
    ana, client, django_capture_on_commit_callbacks
):
    alone = make_started_game([ana])
    say(alone, ana, "Hello bots", commit=django_capture_on_commit_callbacks)
    assert not chat_box_open(client, ana, alone)
