"""The table links its terms to the Rules page: a plate's "out", and the hint of a give
(the half pass or tagging back in)."""

import pytest
from django.urls import get_script_prefix, reverse

from games.presenters.table import plates, render, render_fragments, table_context
from tests.security.world import build_world

pytestmark = pytest.mark.django_db

PLATE = {
    "number": 1,
    "team": 1,
    "shape": "square",
    "name": "Bo",
    "cards": 0,
    "out": True,
    "departed": False,
    "to_play": False,
    "dealer": False,
    "has_chosen": False,
    "choosing": False,
    "waiting": False,
    "last": False,
    "traded": False,
    "timeouts": 0,
    "timeouts_limit": 3,
    "due": None,
    "rating": None,
    "bot_account": False,
}


def plate(p):
    words = plates.plate_words(get_script_prefix(), dict(p))
    return render.fill_slots(plates.render_plate(tuple(words.items())), None)


def test_an_out_plate_links_out_to_the_rules():
    html = plate(PLATE)
    assert f'href="{reverse("rules")}#out-term"' in html and ">out</a>" in html
    playing = plate({**PLATE, "out": False, "cards": 5})
    assert "#out-term" not in playing


def test_the_seat_that_must_give_is_shown_the_rules_of_the_give():
    game = build_world("give").games["give"]
    pages = {seat: render_fragments(table_context(game, seat)) for seat in range(game.players)}
    giving = [seat for seat, html in pages.items() if 'id="btn-give"' in html]
    assert giving
    for seat, html in pages.items():
        shown = f"{reverse('rules')}#tag-in" in html and f"{reverse('rules')}#half-pass" in html
        assert shown == (seat in giving), seat
