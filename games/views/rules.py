"""The Rules page: the game in the site's own words, with the table's own card faces."""

from django.shortcuts import render

from games.presenters.cards import card_face


def faces(*codes):
    return [card_face(code) for code in codes]


def described(**does):
    """Faces for the card list, each with what it does: the caption under its picture.

    Keyword arguments keep the order they are written in, which is the order on the page."""
    return [dict(card_face(code), does=text) for code, text in does.items()]


def rules(request):
    context = {
        "numbers": described(
            R0="counts 0 in a hand",
            Y3="counts 3 in a hand",
            G7="counts 7 in a hand",
            B9="counts 9 in a hand",
        ),
        "passing": described(
            R2P="plays as a 2, then a swap",
            Y5P="plays as a 5, then a swap",
            G8P="plays as an 8, then a swap",
        ),
        "actions": described(
            BS="the next player loses their turn",
            GR="play turns the other way",
            YD2="the next player draws two, loses their turn",
        ),
        "wilds": described(
            W="you choose the colour",
            WTP="play jumps to your partner",
            WTD4="the next player draws two, then their partner",
        ),
        # The trades, each as a short game of its own: two partners' cards.
        "setup": {
            "you": faces("R3", "Y7", "GS", "B1"),
            "give": faces("Y7"),
            "partner": faces("R9", "G4", "B6", "WTP"),
            "get": faces("R9"),
        },
        "swap": {"played": faces("G5P"), "give": faces("BD2"), "get": faces("Y1")},
        "half": {"partner": faces("R4", "Y4", "G1", "GR", "B7"), "given": faces("Y4", "G1")},
        "tag": {"drawn": faces("B3"), "hand": faces("R6", "GS", "B3"), "given": faces("GS")},
    }
    return render(request, "rules.html", context)
