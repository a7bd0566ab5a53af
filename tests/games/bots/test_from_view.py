"""Game.from_view rebuilds every decision a bot may search: fed the true hidden cards, the
imagined table plays on exactly like the real one."""

import random

import pytest

from games.engine import Game, Options, events_for
from games.engine.random_moves import random_action

KEYS = (
    "hands",
    "draw",
    "discard",
    "color",
    "direction",
    "turn",
    "penalty",
    "stage",
    "pending",
    "pickers",
    "give",
    "forced",
    "ops",
    "round_over",
    "game_over",
)


def _same(a, b):
    da, db = a.to_dict(), b.to_dict()
    return {k: da[k] for k in KEYS} == {k: db[k] for k in KEYS}


def _rebuild(g, seat, events):
    view = g.view(seat)
    hands = [list(h) for h in g.hands]
    draw = list(reversed(g.draw))  # first = top
    return Game.from_view(
        view, hands=hands, draw_pile=draw, seed=g.seed, history=events_for(events, seat)
    )


@pytest.mark.parametrize("players,stacking", [(4, False), (4, True), (6, False), (8, True)])
def test_rebuilt_positions_play_on_like_the_real_game(players, stacking):
    seen = set()
    for seed in range(40):
        g = Game.new(Options(players=players, stacking=stacking), seed)
        events = list(g.initial_events())
        rng = random.Random(seed)
        while g.stage != "over":
            seat = g.waiting_on()[0]
            decision = g.view(seat)["decision"]
            if decision in ("setup", "swap", "give", "forced", "turn", "penalty"):
                reason = g.view(seat)["give_reason"] if decision == "give" else None
                twin = _rebuild(g, seat, events)
                # The real game's other choosers may already have picked: copy their picks
                # (a search leaves them to be made again) and play both on identically.
                twin.picks = list(g.picks)
                # Nor can a seat know how the next reshuffle falls (seed and count) or how
                # many passes in a row preceded it: copy those too.
                twin.reshuffles, twin.passes = g.reshuffles, g.passes
                seen.add((decision, reason))
                real = Game.from_dict(g.to_dict())
                for _ in range(30):
                    if real.stage == "over" or real.round != g.round:
                        break
                    s = real.waiting_on()[0]
                    a = random_action(real, s, rng)
                    real.act(s, a)
                    twin.act(s, a)
                    assert _same(real, twin), (decision, reason)
            events += g.act(seat, random_action(g, seat, rng))
    # Every kind of searched decision was met, tag-in gives included.
    assert {("setup", None), ("give", "half_pass"), ("give", "tag_in"), ("turn", None)} <= seen


def test_a_tag_in_give_needs_the_givers_events():
    for seed in range(200):
        g = Game.new(Options(players=4), seed)
        rng = random.Random(seed)
        while g.stage != "over":
            seat = g.waiting_on()[0]
            v = g.view(seat)
            if v["decision"] == "give" and v["give_reason"] == "tag_in":
                with pytest.raises(ValueError):
                    Game.from_view(
                        v, hands=[list(h) for h in g.hands], draw_pile=list(reversed(g.draw))
                    )
                return
            g.act(seat, random_action(g, seat, rng))
    pytest.fail("no tag-in met")
