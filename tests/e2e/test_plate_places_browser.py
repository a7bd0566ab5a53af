"""In a real Chromium: the seat plates sit where the table always drew them, the reader at the
bottom and the others clockwise around the oval, though their markup no longer says where
(static/css/table.css computes each place from the felt's `data-me` and the plate's seat)."""

import math

import pytest
from django.test import Client

from tests.conftest import make_started_game, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CENTRES = """() => {
  const felt = document.getElementById('table-seats').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#table-seats .plate'), (p) => {
    const r = p.getBoundingClientRect();
    return [p.id, (r.left + r.width / 2 - felt.left) / felt.width * 100,
            (r.top + r.height / 2 - felt.top) / felt.height * 100,
            r.left >= felt.left - 0.5 && r.right <= felt.right + 0.5, felt.width, felt.height];
  });
}"""
# A side plate's centre is held this far from the felt's edge (table.css), so that the whole
# plate stays on the felt: 3.25rem on a phone, 5.6rem on a wider screen; on a phone a plate's
# centre is also held 2rem from the felt's top and 2.2rem from its bottom, where the felt,
# sized to the space above the pinned hand, is taller than wide.
PHONE_EDGE_PX, WIDE_EDGE_PX = 3.25 * 16, 5.6 * 16
PHONE_TOP_PX, PHONE_BOTTOM_PX = 2 * 16, 2.2 * 16


def expected_place(number, me, players, phone=False):
    """Percent of the felt's width and height: the formula the plates are drawn by (on a
    phone the oval reaches a little nearer the felt's top and bottom)."""
    angle = math.radians(90 + (number - me) * 360 / players)
    return 50 + 44 * math.cos(angle), 50 + (42 if phone else 41) * math.sin(angle)


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_reader_sees_themselves_at_the_bottom_and_the_others_clockwise(
    live_server, chromium_browser, players
):
    users = [make_user(f"b{players}-{n}", display_name=f"B{n}") for n in range(players)]
    watcher = make_user(f"w{players}")
    game = make_started_game(users, players=players, seed=30 + players, spectators=True)
    for reader, user in ((0, users[0]), (1, users[1]), (players - 1, users[-1]), (None, watcher)):
        client = Client()
        client.force_login(user)
        for width, height in ((1280, 800), (390, 844)):
            context = chromium_browser.new_context(viewport={"width": width, "height": height})
            context.add_cookies(
                [
                    {
                        "name": "sessionid",
                        "value": client.cookies["sessionid"].value,
                        "url": live_server.url,
                    }
                ]
            )
            page = context.new_page()
            page.goto(f"{live_server.url}/games/{game.pk}/")
            places = page.evaluate(CENTRES)
            # Nothing pushes the page sideways, on a phone either.
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            context.close()
            me = reader if reader is not None else 0
            assert [p[0] for p in places] == [f"seat-{n}" for n in range(players)]
            for number, (_ident, x, y, inside, felt_width, felt_height) in enumerate(places):
                phone = width < 768
                want_x, want_y = expected_place(number, me, players, phone)
                edge = (PHONE_EDGE_PX if phone else WIDE_EDGE_PX) / felt_width * 100
                want_x = min(max(want_x, edge), 100 - edge)
                if phone:
                    top, bottom = (px / felt_height * 100 for px in (PHONE_TOP_PX, PHONE_BOTTOM_PX))
                    want_y = min(max(want_y, top), 100 - bottom)
                assert inside, (reader, width, number, "sticks out of the felt")
                assert abs(x - want_x) < 0.5 and abs(y - want_y) < 0.5, (
                    reader,
                    width,
                    number,
                    (x, y),
                    (want_x, want_y),
                )
