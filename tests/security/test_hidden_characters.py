"""Text a person writes for others to read refuses invisible control and formatting
characters (accounts.text): a right-to-left override makes "gg evil.exe" read otherwise, a
zero-width space makes one name look like another's. Chat lines, display names, token names
and report texts, each posted as a person would, are refused in words and store nothing."""

import pytest
from django.urls import reverse

from accounts.models import ApiToken, User
from games.models import ChatMessage
from games.moderation.models import Report
from tests.conftest import PASSWORD, make_started_game
from tests.games.api.conftest import make_bot

pytestmark = pytest.mark.django_db

HIDDEN = {
    "right-to-left override": ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    "left-to-right isolate": ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    "right-to-left mark": ("\u200f", "U+200F RIGHT-TO-LEFT MARK"),
    "zero-width space": ("\u200b", "U+200B ZERO WIDTH SPACE"),
    "byte-order mark": ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    "soft hyphen": ("\u00ad", "U+00AD SOFT HYPHEN"),
    "line separator": ("\u2028", "U+2028 LINE SEPARATOR"),
    "a joiner joining nothing": ("\u200d", "U+200D ZERO WIDTH JOINER"),
}
# Written every day: a family emoji (joiners between emoji), Persian with a non-joiner, the
# flag of Wales (tag characters after the black flag).
ORDINARY = [
    "gg \U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645",
    "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f wales",
]


def sample(char):
    return f"good game{char} lle.exe"


@pytest.fixture
def table(ana, bo, cy):
    return make_started_game([ana, bo, cy], spectators=True)


def hx(client, url, data):
    return client.post(url, data, headers={"HX-Request": "true"})


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_a_chat_line_with_a_hidden_character_is_refused_in_words(kind, table, ana, client):
    char, name = HIDDEN[kind]
    client.force_login(ana)
    answer = hx(
        client, reverse("games:chat_send", args=[table.pk]), {"text": sample(char), "key": "k1"}
    )
    assert answer.status_code == 400
    assert name in answer.text and "invisible" in answer.text
    assert not ChatMessage.objects.exists()


def test_joiners_and_tags_are_refused_alone_but_sent_in_ordinary_writing(table, ana, client):
    client.force_login(ana)
    send = reverse("games:chat_send", args=[table.pk])
    for n, line in enumerate(["\u200dgg", "gg\u200c", "tag\U000e0067"]):
        assert hx(client, send, {"text": line, "key": f"bad{n}"}).status_code == 400, line
    for n, line in enumerate(ORDINARY):
        answer = hx(client, send, {"text": line, "key": f"k{n}"})
        assert answer.status_code == 200, answer.text
    assert list(ChatMessage.objects.order_by("pk").values_list("text", flat=True)) == ORDINARY


@pytest.mark.parametrize("kind", ["right-to-left override", "zero-width space"])
def test_a_display_name_with_a_hidden_character_is_refused_at_sign_up_and_on_the_profile(
    kind, ana, client
):
    char, name = HIDDEN[kind]
    answer = client.post(
        reverse("accounts:signup"),
        {
            "username": "mallory",
            "email": "mallory@example.com",
            "display_name": f"An{char}a",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert answer.status_code == 400 and name in answer.text
    assert not User.objects.filter(username="mallory").exists()

    client.force_login(ana)
    answer = client.post(
        reverse("accounts:profile"),
        {
            "display_name": f"Bo{char}",
            "email": ana.email,
            "time_zone": "UTC",
            "turn_email": "immediate",
            "digest_hour": "8",
            "notify_reminder_email": "on",
        },
    )
    assert answer.status_code == 400 and name in answer.text
    ana.refresh_from_db()
    assert ana.display_name == "Ana"


def test_a_token_name_with_a_hidden_character_is_refused(client):
    robo = make_bot("robo")
    client.force_login(robo)
    char, name = HIDDEN["right-to-left override"]
    answer = client.post(reverse("accounts:bot_token_create"), {"name": f"laptop{char}"})
    assert answer.status_code == 400 and name in answer.text
    assert not ApiToken.objects.exists()


def test_a_report_with_a_hidden_character_is_refused(table, ana, bo, client):
    client.force_login(ana)
    char, name = HIDDEN["left-to-right isolate"]
    answer = client.post(
        reverse("history:report", args=[table.pk]),
        {"reported": bo.pk, "reason": "abuse", "text": f"he wrote {char}this{char}"},
    )
    assert answer.status_code == 400 and name in answer.text
    assert not Report.objects.exists()
