"""The Rules page teaches the game with the table's own card faces, and every page's header
leads to it and to the lobby, the games to watch and the player's history."""

import re

import pytest
from django.urls import reverse

from games.presenters.cards import card_face

pytestmark = pytest.mark.django_db


def test_the_rules_show_the_tables_card_faces_and_the_four_trades_step_by_step(client):
    page = client.get(reverse("rules")).content.decode()
    for code in ("WTP", "WTD4", "R2P", "BS"):
        assert card_face(code)["html"] in page
        assert f'aria-label="{card_face(code)["name"]}"' in page
    for anchor in ("setup-pass", "swap", "half-pass", "tag-in", "out-term"):
        assert f'id="{anchor}"' in page
    for trade in ("setup-pass", "swap", "half-pass", "tag-in"):
        section = page.split(f'id="{trade}"', 1)[1].split("<h3", 1)[0]
        assert len(re.findall(r"<li>", section)) >= 3, trade
    assert 'id="sym-passing"' in page  # the symbols the faces use are on the page


def test_every_page_header_leads_to_lobby_watch_my_games_history_ratings_and_rules(client, ana):
    client.force_login(ana)
    for url in (reverse("lobby:index"), reverse("rules"), reverse("lobby:watch")):
        page = client.get(url).content.decode()
        nav = page.split('<nav aria-label="Site"', 1)[1].split("</nav>", 1)[0]
        assert [name for name in re.findall(r">(\w+)</a>", nav)] == [
            "Lobby",
            "Watch",
            "History",
            "Ratings",
            "Rules",
        ]
        # "My games" carries the count of games waiting, so it is read by its own id.
        assert re.search(r'href="/games/mine/" id="my-games-link"[^>]*>My games<', nav)
    rules = client.get(reverse("rules")).content.decode()
    assert re.search(r'href="/rules/" aria-current="page">Rules<', rules)
