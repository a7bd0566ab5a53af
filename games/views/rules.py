"""The Rules page: the game in the site's own words, with the table's own card faces."""

from django.shortcuts import render

from games.presenters.cards import card_face


def faces(*codes):
    return [card_face(code) for code in codes]


def rules(request):
    context = {
        "numbers": faces("R0", "Y3", "G7", "B9"),
        "passing": faces("R2P", "Y5P", "G8P"),
        "actions": faces("BS", "GR", "YD2"),
        "wilds": faces("W", "WTP", "WTD4"),
        # The trades, each as a short game of its own: two partners' cards.
        "setup": {
            "you": faces("R3", "Y7", "GS", "B1"),
            "give": card_face("Y7"),
            "partner": faces("R9", "G4", "B6", "WTP"),
            "get": card_face("R9"),
        },
        "swap": {"played": card_face("G5P"), "give": card_face("BD2"), "get": card_face("Y1")},
        "half": {"partner": faces("R4", "Y4", "G1", "GR", "B7"), "given": faces("Y4", "G1")},
        "tag": {"drawn": card_face("B3"), "hand": faces("R6", "GS", "B3"), "given": faces("GS")},
    }
    return render(request, "rules.html", context)
