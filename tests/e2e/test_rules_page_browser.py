"""The Rules page's card pictures, measured in Chromium at a desktop's and a phone's size: the
table's faces at one size, in tidy rows, each with its name under it, none over another card,
a caption or a line of text, and the page never wider than the screen."""

from itertools import pairwise

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.e2e.conftest import new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [{"width": 1280, "height": 800}, {"width": 390, "height": 844}]
# The cards' list (4 numbers, 3 passing, 3 actions, 3 wilds) and the four trades' examples.
CARDS_SHOWN = 13 + (4 + 1 + 4 + 1) + (1 + 1 + 1) + (5 + 2) + (1 + 3 + 1)

# Every box the page draws for a card, a caption or a line of text, measured in one pass.
MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top + scrollY, w: r.width, h: r.height}; };
  const rules = document.querySelector("article.rules");
  const cards = [...rules.querySelectorAll(".card-item")].map((item) => ({
    label: item.querySelector(".card").getAttribute("aria-label"),
    card: box(item.querySelector(".card")),
    face: box(item.querySelector(".face")),
    name: box(item.querySelector(".card-name")),
    nameText: item.querySelector(".card-name").textContent.trim(),
    set: [...rules.querySelectorAll(".card-set")].indexOf(item.closest(".card-set")),
  }));
  const captions = [...rules.querySelectorAll(".card-name, .card-does, .card-group figcaption")]
    .map((el) => ({what: el.textContent.trim(), ...box(el)}));
  // The text around the cards: paragraphs, terms and each line of a step's own sentence.
  const text = [...rules.querySelectorAll("p, dt, h2, h3")]
    .map((el) => ({what: el.textContent.trim().slice(0, 40), ...box(el)}));
  for (const li of rules.querySelectorAll("ol > li")) {
    for (const node of li.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
      const range = document.createRange(); range.selectNodeContents(node);
      for (const r of range.getClientRects())
        text.push({what: node.textContent.trim().slice(0, 40),
                   x: r.left, y: r.top + scrollY, w: r.width, h: r.height});
    }
  }
  // A face as static/css/table.css draws it at this width, outside the article's styles.
  const probe = document.createElement("span");
  probe.className = "face c-R";
  document.body.append(probe);
  const table = box(probe);
  probe.remove();
  const root = document.documentElement;
  return {cards, captions, text, table,
          scrollWidth: root.scrollWidth, clientWidth: root.clientWidth};
}"""


def overlap(a, b):
    """Whether two boxes share more than a sliver (half a pixel of rounding either way)."""
    return (
        min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 0.5
        and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 0.5
    )


def test_the_rules_card_pictures_stand_in_tidy_rows_of_one_size_each_named_under_it(
    daphne_url, chromium_browser
):
    page = new_page(chromium_browser)
    page.goto(f"{daphne_url}/rules/")
    for size in SIZES:
        page.set_viewport_size(size)
        at = f"{size['width']}x{size['height']}"
        m = page.evaluate(MEASURE)
        cards = m["cards"]

        assert m["scrollWidth"] <= m["clientWidth"], f"the page scrolls sideways at {at}"
        assert len(cards) == CARDS_SHOWN, at
        # One size for every picture, the size the table gives a card at this width: a face
        # squeezed smaller, as one set inside a sentence was, piles its marks on each other.
        sizes = {(round(c["face"]["w"], 1), round(c["face"]["h"], 1)) for c in cards}
        assert sizes == {(round(m["table"]["w"], 1), round(m["table"]["h"], 1))}, (at, sizes)

        for i, a in enumerate(cards):
            for b in cards[i + 1 :]:
                assert not overlap(a["card"], b["card"]), f"{a['label']} over {b['label']} at {at}"
            for caption in m["captions"]:
                assert not overlap(a["card"], caption), (
                    f"{a['label']} over '{caption['what']}' at {at}"
                )
            for line in m["text"]:
                assert not overlap(a["card"], line), f"{a['label']} over '{line['what']}' at {at}"
            # Its name is the one its picture is read by, under it and centred on it.
            assert a["nameText"] == a["label"], at
            assert a["name"]["y"] >= a["card"]["y"] + a["card"]["h"] - 0.5, (a["label"], at)
            centre = a["card"]["x"] + a["card"]["w"] / 2
            assert abs(a["name"]["x"] + a["name"]["w"] / 2 - centre) < 1.5, (a["label"], at)

        # Rows: a set of four or fewer is one row, and neighbours in a row stand one gap
        # apart everywhere on the page.
        gaps = set()
        for s in {c["set"] for c in cards}:
            row = sorted(
                (c["card"] for c in cards if c["set"] == s), key=lambda b: (round(b["y"]), b["x"])
            )
            if len(row) <= 4:
                assert len({round(box["y"], 1) for box in row}) == 1, (
                    f"set {s} breaks its row at {at}"
                )
            for left, right in pairwise(row):
                if round(left["y"], 1) == round(right["y"], 1):
                    gaps.add(round(right["x"] - left["x"] - left["w"]))
        assert len(gaps) == 1, f"uneven spacing between cards at {at}: {gaps}"

        violations = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
        assert not violations, [(v["id"], [n["target"] for n in v["nodes"]]) for v in violations]
    page.context.close()
