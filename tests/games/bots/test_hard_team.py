"""Hard's search of the team choices (setup pass, symbol swap, half pass and tag-in give),
its rule for leaving Normal's move, and the oracle's blindness to the draw order."""

import random
from collections import Counter

from games.bots import Budget, SeatMemory, decide, oracle_decide
from games.bots.candidates import give_candidates, pick_candidates
from games.bots.policies import Ctx, normal_give, normal_pick
from games.bots.sampling import sample_world
from games.bots.search import _clearly_better
from games.engine import Game, Options, events_for
from games.engine.random_moves import random_action

from .helpers import TINY

SMALL = Budget(rollouts=3, horizon=15)


def _positions(kinds, players=4, games=60):
    """(game, seat, events) at each decision of `kinds` met in random games."""
    for seed in range(games):
        g = Game.new(Options(players=players), seed)
        events = list(g.initial_events())
        rng = random.Random(seed)
        while g.stage != "over":
            seat = g.waiting_on()[0]
            v = g.view(seat)
            if v["decision"] in kinds:
                yield g, seat, events
            events += g.act(seat, random_action(g, seat, rng))


def test_give_candidates_are_legal_gives_led_by_normals():
    met = 0
    for g, seat, events in _positions(("give",)):
        view = g.view(seat)
        ctx = Ctx.from_view(view, SeatMemory.build(view, events_for(events, seat)))
        k = view["must_give"]
        cands = give_candidates(ctx, k)
        assert cands[0]["cards"] == normal_give(ctx, k)
        keys = set()
        for a in cands:
            assert a["type"] == "give" and len(a["cards"]) == k
            assert not Counter(a["cards"]) - Counter(view["hand"])
            keys.add(tuple(sorted(a["cards"])))
        assert len(keys) == len(cands)  # no split tried twice
        met += 1
    assert met > 20


def test_pick_candidates_are_distinct_cards_led_by_normals():
    for g, seat, events in _positions(("setup", "swap"), games=10):
        view = g.view(seat)
        legal = g.legal_actions(seat)
        ctx = Ctx.from_view(view, SeatMemory.build(view, events_for(events, seat)))
        cands = pick_candidates(ctx, legal)
        assert cands[0]["card"] == normal_pick(ctx, [a["card"] for a in legal])
        assert all(a in legal for a in cands)
        assert len({a["card"] for a in cands}) == len(cands)


def test_the_override_rule_needs_a_clear_paired_margin():
    assert _clearly_better([0.1, 0.12, 0.09, 0.11, 0.1, 0.08])  # small, but consistent
    assert not _clearly_better([1.0, -1.0, 1.0, -0.9, 1.0, -1.0])  # positive mean, noise
    assert not _clearly_better([-0.1, -0.1, -0.2])
    assert not _clearly_better([0.5])  # one sample proves nothing


def _twin(g, seat, events, seed):
    """A game the seat cannot tell from `g`: its view is the same, the hidden cards are
    dealt again from what it knows."""
    view = g.view(seat)
    history = events_for(events, seat)
    mem = SeatMemory.build(view, history)
    hands, draw = sample_world(view, mem, random.Random(seed))
    twin = Game.from_view(view, hands=hands, draw_pile=draw, seed=seed, history=history)
    for s in view["picked"]:  # who has already chosen is public, the card is not
        if s != seat:
            twin.picks[s] = twin.hands[s][0]
    return twin


def test_hard_team_choices_do_not_change_when_only_hidden_cards_change():
    kinds = Counter()
    for g, seat, events in _positions(("setup", "swap", "give"), games=30):
        view = g.view(seat)
        decision = view["decision"]
        if kinds[decision] >= 3:
            continue
        twin = _twin(g, seat, events, kinds[decision] + 1)
        assert twin.view(seat) == view
        assert [twin.hands[s] for s in range(g.n) if s != seat] != [
            g.hands[s] for s in range(g.n) if s != seat
        ]
        history = events_for(events, seat)
        a = decide("hard", view, g.legal_actions(seat), history, random.Random(5), budget=SMALL)
        b = decide(
            "hard",
            twin.view(seat),
            twin.legal_actions(seat),
            history,
            random.Random(5),
            budget=SMALL,
        )
        assert a == b
        kinds[decision] += 1
    assert kinds["setup"] and kinds["swap"] and kinds["give"]


def test_hard_searches_team_choices_and_plays_them_legally_and_deterministically():
    for g, seat, events in _positions(("setup", "swap", "give"), games=8):
        view = g.view(seat)
        history = events_for(events, seat)
        picks = [
            decide("hard", view, g.legal_actions(seat), history, random.Random(9), budget=SMALL)
            for _ in range(2)
        ]
        assert picks[0] == picks[1]
        Game.from_dict(g.to_dict()).act(seat, picks[0])  # legal


def test_the_oracle_sees_what_is_in_the_draw_pile_but_not_its_order():
    for g, seat, _events in _positions(("turn",), games=3):
        if len(g.legal_actions(seat)) < 2 or len(g.draw) < 2:
            continue
        other = Game.from_dict(g.to_dict())
        random.Random(1).shuffle(other.draw)
        assert other.draw != g.draw
        a = oracle_decide(g, seat, random.Random(3), budget=TINY)
        b = oracle_decide(other, seat, random.Random(3), budget=TINY)
        assert a == b


def test_an_action_budget_is_deterministic_and_bounded():
    import pytest

    with pytest.raises(ValueError):
        Budget(rollouts=3, actions=100)
    b = Budget(actions=500, min_samples=4, max_samples=10)
    assert b.more(3, 10_000, None)  # the minimum comes first, whatever it cost
    assert not b.more(4, 500, None)  # then the action count decides
    assert b.more(4, 499, None)
    assert not b.more(10, 0, None)  # and never more than the maximum
    for g, seat, events in _positions(("give", "swap"), games=4):
        view = g.view(seat)
        history = events_for(events, seat)
        picks = {
            str(
                decide(
                    "hard",
                    view,
                    g.legal_actions(seat),
                    history,
                    random.Random(2),
                    budget=Budget(actions=300),
                )
            )
            for _ in range(2)
        }
        assert len(picks) == 1
