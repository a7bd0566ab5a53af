"""Plain helpers for the engine tests.

Everything here drives the engine through the public contract only
(`docs/engine-contract.md`); nothing reaches into the engine's internals.
"""

import copy
import json
import re
from collections import Counter

import pytest

from games.engine import Game, IllegalAction, Options, card_points

COLORS = ("R", "Y", "G", "B")
CARD_RE = re.compile(r"^(?:[RYGB](?:[0-9]|[258]P|S|R|D2)|W|WTP|WTD4)$")


def _deck_counts():
    """The 112-card Teams deck, straight from the rule book."""
    counts = Counter()
    for c in COLORS:
        counts[c + "0"] = 1
        for d in "134679":
            counts[c + d] = 2
        for d in "258":
            counts[c + d] = 1  # the plain twin
            counts[c + d + "P"] = 1  # the twin with the passing symbol
        for a in ("S", "R", "D2"):
            counts[c + a] = 2
    for w in ("W", "WTP", "WTD4"):
        counts[w] = 4
    return counts


DECK_COUNTS = _deck_counts()


def is_number(code):
    return code[0] in COLORS and code[1].isdigit()


def partner(seat, players):
    return (seat + players // 2) % players


def team(seat, players):
    return seat % (players // 2)


# --- building positions -----------------------------------------------------------------


def make_game(
    hands,
    discard,
    draw_pile=(),
    turn=0,
    *,
    direction=1,
    color=None,
    dealer=0,
    scores=None,
    seed=0,
    **options,
):
    """A round-1 position; the number of players is the number of hands given.

    It refuses (as a test-writing mistake) any position holding more copies of a card
    than the deck has.
    """
    hands = [list(h) for h in hands]
    everything = Counter(c for h in hands for c in h) + Counter(discard) + Counter(draw_pile)
    too_many = {c: k for c, k in everything.items() if k > DECK_COUNTS.get(c, 0)}
    assert not too_many, f"test position has more copies than the deck: {too_many}"
    return Game.from_position(
        Options(players=len(hands), **options),
        hands=hands,
        draw_pile=list(draw_pile),
        discard=list(discard),
        turn=turn,
        direction=direction,
        color=color,
        dealer=dealer,
        scores=scores,
        seed=seed,
    )


def new_game(players=4, seed=1, **options):
    return Game.new(Options(players=players, **options), seed)


# --- reading the game -------------------------------------------------------------------


def hand(game, seat):
    return game.view(seat)["hand"]


def public(game):
    return game.view(None)


def sizes(game):
    return game.view(None)["hand_sizes"]


def total_cards(view):
    return sum(view["hand_sizes"]) + view["draw_pile_size"] + len(view["discard"])


def hand_points(cards):
    return sum(card_points(c) for c in cards)


def snapshot(game):
    return copy.deepcopy(game.to_dict())


def normal(action):
    """An action dict without keys whose value is None, for comparisons."""
    return {k: v for k, v in action.items() if v is not None}


def action_key(action):
    a = normal(action)
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in a.items()))


def legal(game, seat):
    """The seat's legal actions as a set of comparable keys."""
    return {action_key(a) for a in game.legal_actions(seat)}


def plays(*cards):
    """The keys of `play` actions; a Wild expands to one action per colour."""
    keys = set()
    for c in cards:
        if c in ("W", "WTP", "WTD4"):
            keys |= {action_key({"type": "play", "card": c, "color": k}) for k in COLORS}
        else:
            keys.add(action_key({"type": "play", "card": c}))
    return keys


DRAW = action_key({"type": "draw"})
PASS_TURN = action_key({"type": "pass_turn"})
TAKE_PENALTY = action_key({"type": "take_penalty"})


def passes(*cards):
    return {action_key({"type": "pass", "card": c}) for c in cards}


def card_codes_in(value):
    """Every card code named anywhere inside a JSON-like value."""
    found = []
    if isinstance(value, str):
        if CARD_RE.match(value):
            found.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            found += card_codes_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found += card_codes_in(v)
    return found


def event_types(events):
    return [e["type"] for e in events]


# --- acting ---------------------------------------------------------------------------


def play(game, seat, card, color=None):
    action = {"type": "play", "card": card}
    if color is not None:
        action["color"] = color
    return game.act(seat, action)


def draw(game, seat):
    return game.act(seat, {"type": "draw"})


def pass_turn(game, seat):
    return game.act(seat, {"type": "pass_turn"})


def pick(game, seat, card):
    return game.act(seat, {"type": "pass", "card": card})


def give(game, seat, cards):
    return game.act(seat, {"type": "give", "cards": list(cards)})


def take_penalty(game, seat):
    return game.act(seat, {"type": "take_penalty"})


def concede(game, seat):
    return game.act(seat, {"type": "concede"})


def assert_illegal(game, seat, action):
    """The action is refused with a readable IllegalAction and the game is untouched."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as refused:
        game.act(seat, action)
    assert isinstance(refused.value, ValueError)
    message = str(refused.value)
    assert len(message.strip()) >= 5, f"unhelpful message {message!r}"
    assert game.to_dict() == before, "a refused action changed the game"
    return message


def complete_setup(game, choose=lambda h: h[0]):
    """Every seat waited on in the setup pass picks `choose(hand)`; returns the picks."""
    picks = {}
    for seat in list(game.view(None)["waiting_on"]):
        card = choose(hand(game, seat))
        picks[seat] = card
        pick(game, seat, card)
    return picks


def cheapest(cards, k):
    """The time-out choice: the k cards worth fewest points, ties by hand order."""
    order = sorted(range(len(cards)), key=lambda i: (card_points(cards[i]), i))
    return [cards[i] for i in order[:k]]


# --- random games -----------------------------------------------------------------------


def random_decision(game, rng, concede_chance=0.0):
    """(seat, action) for one random legal decision, or None when the game is over."""
    v = game.view(None)
    if v["game_over"] is not None:
        return None
    waiting = list(v["waiting_on"])
    assert waiting, f"the game is not over but nobody is waited on: {v}"
    if concede_chance and rng.random() < concede_chance:
        staying = [s for s in range(v["players"]) if not v["departed"][s]]
        return rng.choice(staying), {"type": "concede"}
    seat = rng.choice(waiting)
    actions = game.legal_actions(seat)
    if actions:
        return seat, rng.choice(actions)
    seat_view = game.view(seat)
    k = seat_view["must_give"]
    assert k > 0, f"seat {seat} is waited on but has nothing to decide"
    return seat, {"type": "give", "cards": rng.sample(seat_view["hand"], k)}


def play_random_game(options, seed, rng, max_actions=20000, concede_chance=0.0, on_step=None):
    """Plays a whole game from Game.new with random legal decisions.

    Returns (game, [(seat, action, events), ...]). `on_step(game, seat, action, events)`
    runs after each action.
    """
    game = Game.new(options, seed)
    log = []
    for _ in range(max_actions):
        decision = random_decision(game, rng, concede_chance)
        if decision is None:
            return game, log
        seat, action = decision
        events = game.act(seat, action)
        log.append((seat, action, events))
        if on_step is not None:
            on_step(game, seat, action, events)
    raise AssertionError(f"game did not end within {max_actions} actions")


def all_views(game):
    players = game.view(None)["players"]
    return [game.view(s) for s in range(players)] + [game.view(None)]


def json_round_trip(value):
    return json.loads(json.dumps(value))
