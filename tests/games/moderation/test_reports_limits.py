"""Reports have limits: one open report per reporter, table and player (or the table
itself), and so many per reporter a day. A report past them is answered in words and stores
nothing. Posted through the report form and the chat's Report button, as a person would."""

import pytest
from django.test import Client
from django.urls import reverse

from games.actions import chat
from games.moderation import actions as moderation
from games.moderation.models import Report
from tests.conftest import make_started_game, make_user, race

pytestmark = pytest.mark.django_db


def report(client, game, reported=None, reason="abuse", text="rude"):
    return client.post(
        reverse("history:report", args=[game.pk]),
        {"reported": reported.pk if reported else "", "reason": reason, "text": text},
    )


def test_fifteen_reports_in_a_row_about_one_table_store_one_per_player(client, four):
    ana, bo, cy, di = four
    game = make_started_game(four)
    client.force_login(ana)
    targets = [bo, cy, di, None] * 4
    answers = [
        report(client, game, target, text=f"report {n}").status_code
        for n, target in enumerate(targets[:15])
    ]
    assert answers[:4] == [302] * 4
    assert answers[4:] == [409] * 11
    assert Report.objects.count() == 4
    assert sorted(Report.objects.values_list("text", flat=True)) == [
        "report 0",
        "report 1",
        "report 2",
        "report 3",
    ]


def test_a_second_open_report_about_the_same_player_is_answered_and_stores_nothing(client, four):
    ana, bo = four[:2]
    game = make_started_game(four)
    client.force_login(ana)
    assert report(client, game, bo).status_code == 302
    again = report(client, game, bo, reason="cheating", text="and he cheats")
    assert again.status_code == 409
    page = again.content.decode().replace("&#x27;", "'")
    assert f"You have already reported Bo at table {game.pk}" in page
    assert list(Report.objects.values_list("reason", flat=True)) == ["abuse"]


def test_a_second_open_report_about_the_table_itself_is_refused_too(client, four):
    game = make_started_game(four)
    client.force_login(four[0])
    assert report(client, game, reason="stalling").status_code == 302
    assert report(client, game, reason="other").status_code == 409
    assert Report.objects.count() == 1


def test_once_a_report_is_resolved_the_reporter_may_report_the_player_again(client, four):
    ana, bo = four[:2]
    game = make_started_game(four)
    client.force_login(ana)
    report(client, game, bo)
    moderation.resolve_report(
        Report.objects.get().pk, make_user("boss", is_staff=True, is_superuser=True)
    )
    assert report(client, game, bo, text="again").status_code == 302
    assert Report.objects.count() == 2 and Report.objects.open().count() == 1


def test_a_reporter_files_at_most_the_daily_limit_across_tables(client, settings, four, ed):
    settings.REPORT_RATE_LIMIT = 3
    ana, bo, cy, di = four
    games = [make_started_game(four), make_started_game([bo, cy, di, ed])]
    client.force_login(bo)
    assert report(client, games[0], ana).status_code == 302
    assert report(client, games[0], cy).status_code == 302
    assert report(client, games[1], ed).status_code == 302
    refused = report(client, games[1], cy)
    assert refused.status_code == 429
    assert "Too many reports: at most 3 in 24 hours" in refused.content.decode()
    assert Report.objects.count() == 3
    # Another reporter is not held back by Bo's reports.
    client.force_login(ana)
    assert report(client, games[0], bo).status_code == 302


def test_a_second_chat_line_of_the_same_author_is_not_a_second_open_report(client, four):
    ana, bo = four[:2]
    game = make_started_game(four)
    first = chat.send(game.pk, bo, "first insult", "k1")[0]
    second = chat.send(game.pk, bo, "second insult", "k2")[0]
    client.force_login(ana)
    assert client.post(reverse("games:chat_report", args=[game.pk, first.pk])).status_code == 302
    refused = client.post(
        reverse("games:chat_report", args=[game.pk, second.pk]), headers={"HX-Request": "true"}
    )
    assert refused.status_code == 409
    assert "You have already reported Bo" in refused.content.decode().replace("&#x27;", "'")
    assert Report.objects.get().text == f"Chat message {first.pk}: first insult"


def test_chat_reports_count_toward_the_daily_limit(client, settings, four):
    settings.REPORT_RATE_LIMIT = 2
    ana, bo, cy, di = four
    game = make_started_game(four)
    lines = [chat.send(game.pk, user, "rude", "k")[0] for user in (bo, cy, di)]
    client.force_login(ana)
    answers = [
        client.post(
            reverse("games:chat_report", args=[game.pk, line.pk]), headers={"HX-Request": "true"}
        ).status_code
        for line in lines
    ]
    assert answers == [200, 200, 429]
    assert Report.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_reports_posted_at_the_same_moment_store_one(require_postgres):
    """The check before the insert cannot see a report another request is storing: the
    database's constraint on open reports decides, and the loser is answered in words."""
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    game = make_started_game(people)
    clients = []
    for _ in range(6):
        one = Client()
        one.force_login(people[0])
        clients.append(one)
    answers = race([lambda c=c: report(c, game, people[1]).status_code for c in clients])
    assert sorted(answers) == [302] + [409] * 5, answers
    assert Report.objects.count() == 1
