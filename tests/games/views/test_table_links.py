"""From the table screen a player can report the table or a player."""

import re

import pytest
from django.urls import reverse

from games.moderation.models import Report
from tests.conftest import make_started_game
from tests.games.views.test_pages import page_for

pytestmark = pytest.mark.django_db


def test_a_player_reports_a_table_from_the_table_screen(client, four):
    game = make_started_game(four)
    html = page_for(client, four[1], game).content.decode()
    link = re.search(r'href="([^"]*)">Report this table or a player<', html)
    assert link, "the table screen links to the report form"
    url = link.group(1).replace("&amp;", "&")
    assert url.startswith(reverse("history:report", args=[game.pk]))
    form = client.get(url)
    assert form.status_code == 200
    before = Report.objects.filter(game=game).count()
    response = client.post(
        url, {"reason": Report.Reason.OTHER, "text": "Please look at this table."}
    )
    assert response.status_code in (200, 302)
    report = Report.objects.get(game=game)
    assert before == 0 and report.reported is None and report.text == "Please look at this table."
