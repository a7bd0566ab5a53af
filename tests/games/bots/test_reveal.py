"""The partly revealed oracle (benchmark only): it sees the partner's hand or the opponents'
hands and samples the rest exactly as Hard does, so the ladder can price each apart; or it
sees every hand but rebuilds its worlds as Hard does."""

import random
from collections import Counter

import pytest

from games.bots import Budget, SeatMemory, oracle_decide
from games.bots.sampling import sample_world
from games.engine import Game, Options, events_for
from games.engine.random_moves import random_action

from .helpers import assert_sample_matches, position


def _midgame(players, seed):
    """A real position some way into a round, with the events each seat saw."""
    g = Game.new(Options(players=players), seed)
    events = list(g.initial_events())
    rng = random.Random(seed)
    for _ in range(40):
        s = g.waiting_on()[0]
        events += g.act(s, random_action(g, s, rng))
        if g.stage == "over":
            break
    assert g.stage != "over"
    return g, events


@pytest.mark.parametrize("players", [4, 6, 8])
def test_revealed_hands_are_dealt_as_they_are_and_the_rest_is_sampled(players):
    g, events = _midgame(players, players)
    seat = g.waiting_on()[0]
    view = g.view(seat)
    mem = SeatMemory.build(view, events_for(events, seat))
    half = players // 2
    opponents = [s for s in range(players) if s % half != seat % half]
    known = {s: list(g.hands[s]) for s in opponents}
    partner_hands = set()
    for k in range(30):
        hands, draw = sample_world(view, mem, random.Random(k), known)
        assert_sample_matches(view, seat, mem, hands, draw, g)
        for s in opponents:
            assert Counter(hands[s]) == Counter(g.hands[s])
        partner_hands.add(tuple(sorted(hands[(seat + half) % players])))
    # The partner's unknown cards are still guessed, not read from the game.
    assert len(partner_hands) > 1


def test_the_oracle_shown_only_the_opponents_reads_them_and_shown_the_partner_does_not():
    # Seat 1, the next opponent, holds one Blue card. Normal would play B2 and hand it the
    # round; the oracle that sees the opponents avoids it. Shown only the partner's hand it
    # guesses seat 1's card from the unseen ones, which are mostly not Blue.
    hands = [["B2", "R2", "R7"], ["B7"], ["G3", "G1"], []]
    g = position(hands, "Y2", draw=["Y9", "G6", "Y4"])
    budget = Budget(rollouts=6, horizon=20)
    seen = oracle_decide(g, 0, random.Random(0), budget=budget, reveal="opponents")
    assert seen["card"] != "B2"
    guessed = oracle_decide(g, 0, random.Random(0), budget=budget, reveal="partner")
    assert guessed["card"] == "B2"
    # Every hand shown, rebuilt through the view as Hard rebuilds its samples: it sees seat 1.
    rebuilt = oracle_decide(g, 0, random.Random(0), budget=budget, reveal="hands")
    assert rebuilt["card"] != "B2"
    with pytest.raises(ValueError):
        oracle_decide(g, 0, random.Random(0), budget=budget, reveal="everything")


def test_the_partner_reveal_places_the_partners_true_hand_in_every_sample():
    g, events = _midgame(4, 9)
    seat = g.waiting_on()[0]
    view = g.view(seat)
    mem = SeatMemory.build(view, events_for(events, seat))
    partner = (seat + 2) % 4
    opponent_hands = set()
    for k in range(30):
        hands, draw = sample_world(view, mem, random.Random(k), {partner: list(g.hands[partner])})
        assert_sample_matches(view, seat, mem, hands, draw, g)
        assert Counter(hands[partner]) == Counter(g.hands[partner])
        opponent_hands.add(tuple(sorted(hands[(seat + 1) % 4])))
    assert len(opponent_hands) > 1


def test_a_whole_game_with_each_reveal_stays_legal():
    for reveal in ("partner", "opponents", "hands"):
        g = Game.new(Options(players=6), 5)
        events = list(g.initial_events())
        rngs = [random.Random(s) for s in range(6)]
        for _ in range(3000):
            if g.stage == "over":
                break
            s = g.waiting_on()[0]
            a = oracle_decide(
                g,
                s,
                rngs[s],
                budget=Budget(rollouts=2, horizon=10),
                history=events_for(events, s),
                reveal=reveal,
            )
            events += g.act(s, a)  # the engine refuses an illegal action
        assert g.stage == "over"


def test_the_hands_reveal_places_every_hand_as_it_is():
    g, events = _midgame(6, 13)
    seat = g.waiting_on()[0]
    view = g.view(seat)
    mem = SeatMemory.build(view, events_for(events, seat))
    known = {s: list(g.hands[s]) for s in range(6) if s != seat}
    draws = set()
    for k in range(10):
        hands, draw = sample_world(view, mem, random.Random(k), known)
        assert [Counter(h) for h in hands] == [Counter(h) for h in g.hands]
        assert Counter(draw) == Counter(g.draw)
        draws.add(tuple(draw))
    # Only the order of the draw pile is still guessed.
    assert len(draws) > 1
