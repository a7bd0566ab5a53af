"""Plain helpers for the bot tests: drive games through the engine's public surface and hand
each bot only its seat's view, legal actions and visible events."""

import random
from collections import Counter

from games.bots import Budget, decide, oracle_decide
from games.engine import Game, Options, events_for
from games.engine.cards import DECK

TINY = Budget(rollouts=2, horizon=12)


def rest_of_deck(*used):
    """The deck minus the given lists of cards, as a sorted list."""
    left = Counter(DECK)
    for cards in used:
        left.subtract(cards)
    assert all(k >= 0 for k in left.values()), "a position uses a card twice too often"
    return sorted(left.elements())


def position(
    hands,
    top,
    *,
    turn=0,
    draw=(),
    color=None,
    players=None,
    direction=1,
    stacking=False,
    extra_discard=None,
):
    """A round-1 position: every card not in a hand, the draw pile or on top goes under the
    top card of the discard pile."""
    n = players or len(hands)
    if extra_discard is None:
        extra_discard = rest_of_deck(*hands, draw, [top])
    return Game.from_position(
        Options(players=n, stacking=stacking),
        hands=hands,
        draw_pile=list(draw),
        discard=list(extra_discard) + [top],
        turn=turn,
        direction=direction,
        color=color,
    )


def ask(level, game, seat, history=(), seed=0, budget=TINY):
    """What `level` does for `seat`, seeing only the seat's view, legal actions and events."""
    return decide(
        level,
        game.view(seat),
        game.legal_actions(seat),
        events_for(list(history), seat),
        random.Random(seed),
        budget=budget,
    )


def is_legal(game, seat, action):
    legal = game.legal_actions(seat)
    if legal:
        return action in legal
    k = game.must_give(seat)
    if not k or action.get("type") != "give" or len(action["cards"]) != k:
        return False
    return not Counter(action["cards"]) - Counter(game.view(seat)["hand"])


def play_checked(options, seed, levels, budget=TINY, max_actions=20_000):
    """Play a game where team t is played by levels[t]; assert every action is legal."""
    g = Game.new(options, seed)
    n, half = g.n, g.half
    events = list(g.initial_events())
    rngs = [random.Random(f"{seed}:{s}") for s in range(n)]
    kinds = Counter()
    for _ in range(max_actions):
        if g.stage == "over":
            return g, kinds
        seat = g.waiting_on()[0]
        level = levels[seat % half]
        view = g.view(seat)
        if level == "oracle":
            a = oracle_decide(g, seat, rngs[seat], budget=budget)
        else:
            a = decide(
                level,
                view,
                g.legal_actions(seat),
                events_for(events, seat),
                rngs[seat],
                budget=budget,
            )
        assert is_legal(g, seat, a), (level, view, a)
        kinds[(level, view["decision"])] += 1
        events += g.act(seat, a)
    raise AssertionError("the game did not end")


def assert_sample_matches(view, seat, mem, hands, draw, game):
    """A sampled world (sampling.sample_world) keeps what the seat knows: every hand's size and
    the draw pile's, the seat's own hand, its partner's known cards, and the very cards of the
    real game (only hidden ones moved)."""
    assert [len(h) for h in hands] == view["hand_sizes"]
    assert len(draw) == view["draw_pile_size"] and hands[seat] == view["hand"]
    whole = Counter(view["discard"]) + Counter(draw)
    for h in hands:
        whole += Counter(h)
    real = Counter(game.discard) + Counter(game.draw)
    for h in game.hands:
        real += Counter(h)
    assert whole == real
    assert not mem.partner_known - Counter(hands[mem.partner])
