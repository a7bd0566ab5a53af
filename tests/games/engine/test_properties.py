"""Properties of whole random games, for every table size and option combination.

Random legal players drive `Game.new` games to the end; after every step the checks below
must hold (ENGINE_CONTRACT).
"""

import copy
import itertools
import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games.engine import Game, IllegalAction, Options, events_for, sort_hand

from .helpers import (
    COLORS,
    DECK_COUNTS,
    DRAW,
    PASS_TURN,
    TAKE_PENALTY,
    action_key,
    all_views,
    card_codes_in,
    json_round_trip,
    legal,
    make_game,
    partner,
    play_random_game,
    random_decision,
    snapshot,
    total_cards,
)

CONFIGS = list(itertools.product([4, 6, 8], [False, True], [True, False], [None, 50, 150]))
MAX_ACTIONS = 20000

# No shrinking: a failing random game is reported as found (its seeds are printed), since
# shrinking whole games takes minutes and the seeds already reproduce it exactly.
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
PROPERTY = settings(
    max_examples=12,
    deadline=None,
    database=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

configs = st.sampled_from(CONFIGS)
seeds = st.integers(min_value=0, max_value=2**31 - 1)
concede_chances = st.sampled_from([0.0, 0.0, 0.003])


def options_of(config):
    players, stacking, final_card_penalty, target_score = config
    return Options(
        players=players,
        stacking=stacking,
        final_card_penalty=final_card_penalty,
        target_score=target_score,
    )


def clone(game):
    return Game.from_dict(copy.deepcopy(game.to_dict()))


# --- the checks ---------------------------------------------------------------------------


def check_table(game):
    """Invariants of any state: every card accounted for, views consistent, no stall."""
    v = game.view(None)
    n = v["players"]
    assert total_cards(v) == 112, v
    assert v["draw_pile_size"] >= 0 and v["discard"]
    for seat in range(n):
        sv = game.view(seat)
        assert len(sv["hand"]) == v["hand_sizes"][seat]
        assert sv["hand"] == sort_hand(sv["hand"])
        if v["departed"][seat]:
            assert v["hand_sizes"][seat] == 0 and not v["out"][seat]
        if v["out"][seat]:
            assert v["hand_sizes"][seat] == 0
            assert v["hand_sizes"][partner(seat, n)] > 0 or v["round_over"] is not None
    assert v["color"] in COLORS
    if v["game_over"] is None:
        assert v["waiting_on"], "nobody is waited on in a running game"
        for seat in v["waiting_on"]:
            assert game.legal_actions(seat) or game.view(seat)["must_give"] > 0, seat
    else:
        assert v["turn"] is None
        assert list(v["waiting_on"]) == []
        assert all(game.legal_actions(s) == [] for s in range(n))


PUBLIC_CARD_FIELDS = {"play": {"card"}, "deal": {"starter", "set_aside"}, "round_over": {"hands"}}


def check_events(events, players):
    """Every event is JSON-safe, says who may see it, and no card reaches a seat that may
    not see it: public events name only public cards, private ones go to the seats they
    concern."""
    assert json_round_trip(events) == events
    for e in events:
        assert "type" in e and "visible_to" in e, e
        vis = e["visible_to"]
        if vis is None:
            rest = {k: v for k, v in e.items() if k not in PUBLIC_CARD_FIELDS.get(e["type"], set())}
            assert card_codes_in(rest) == [], e
        else:
            assert isinstance(vis, list) and vis, e
            concerned = {e.get("seat"), e.get("to"), e.get("partner")} - {None}
            if card_codes_in({k: v for k, v in e.items() if k != "type"}):
                assert set(vis) <= concerned, e
    for seat in list(range(players)) + [None]:
        expected = [
            e
            for e in events
            if e["visible_to"] is None or (seat is not None and seat in e["visible_to"])
        ]
        assert events_for(events, seat) == expected, seat


def illegal_candidates(game, rng):
    """Actions this state must refuse, for a few random seats."""
    v = game.view(None)
    n = v["players"]
    found = [
        (rng.randrange(n), None),
        (rng.randrange(n), {"type": "play", "card": 5}),
        (rng.randrange(n), {}),
        (n, {"type": "draw"}),
    ]
    for seat in rng.sample(range(n), 2):
        sv = game.view(seat)
        keys = legal(game, seat)
        held = sv["hand"]
        missing = [c for c in DECK_COUNTS if c not in held]
        found.append((seat, {"type": "play", "card": rng.choice(missing), "color": "R"}))
        found.append((seat, {"type": "pass", "card": rng.choice(missing)}))
        for key, action in (
            (DRAW, {"type": "draw"}),
            (PASS_TURN, {"type": "pass_turn"}),
            (TAKE_PENALTY, {"type": "take_penalty"}),
        ):
            if key not in keys:
                found.append((seat, action))
        for card in set(held):
            action = {"type": "play", "card": card}
            if card in ("W", "WTP", "WTD4"):
                action["color"] = rng.choice(COLORS)
            if action_key(action) not in keys:
                found.append((seat, action))
        k = sv["must_give"]
        if k == 0 and held:
            found.append((seat, {"type": "give", "cards": held[:1]}))
        elif k and len(held) > k:
            found.append((seat, {"type": "give", "cards": held[: k + 1]}))
        elif k:
            found.append((seat, {"type": "give", "cards": held[: k - 1]}))
    return found


def check_refusals(game, rng, how_many=3):
    candidates = illegal_candidates(game, rng)
    for seat, action in rng.sample(candidates, min(how_many, len(candidates))):
        before = snapshot(game)
        with pytest.raises(IllegalAction):
            game.act(seat, action)
        assert game.to_dict() == before, (seat, action)


def check_every_legal_action_applies(game):
    v = game.view(None)
    for seat in v["waiting_on"]:
        for action in game.legal_actions(seat):
            trial = clone(game)
            events = trial.act(seat, action)
            assert isinstance(events, list)
            assert total_cards(trial.view(None)) == 112


def check_round_trip(game, full):
    d = game.to_dict()
    assert json_round_trip(d) == d
    back = Game.from_dict(json_round_trip(d))
    assert back.to_dict() == d
    if full:
        assert all_views(back) == all_views(game)
        n = game.view(None)["players"]
        assert [back.legal_actions(s) for s in range(n)] == [
            game.legal_actions(s) for s in range(n)
        ]


def alternative_trades(game, seat, action, rng):
    """Other legal choices for the same secret trade decision."""
    held = game.view(seat)["hand"]
    if action["type"] == "pass":
        others = sorted({c for c in held if c != action["card"]})
        rng.shuffle(others)
        return [{"type": "pass", "card": c} for c in others[:3]]
    k = len(action["cards"])
    found = []
    for _ in range(6):
        cards = rng.sample(held, k)
        if sorted(cards) != sorted(action["cards"]):
            found.append({"type": "give", "cards": cards})
    return found


PUBLIC_OUTCOME = ("turn", "waiting_on", "hand_sizes", "draw_pile_size", "discard", "out")


def check_trade_is_hidden(before, seat, action, after, events, rng):
    """Other teams see the same views and events whichever cards a seat chose to trade.

    A choice of cards to give can have public consequences by the rules (handing over a
    just-drawn playable card ends the turn; after a half pass for a Wild Team Play, what the
    partner kept decides whether they can answer), so a give is compared only with
    alternatives that lead to the same public outcome; then nothing else may differ.
    """
    n = after.view(None)["players"]
    own_team = {seat, partner(seat, n)}
    outsiders = [s for s in range(n) if s not in own_team] + [None]
    for alternative in alternative_trades(before, seat, action, rng):
        other = clone(before)
        other_events = other.act(seat, alternative)
        if action["type"] == "give" and any(
            other.view(None)[k] != after.view(None)[k] for k in PUBLIC_OUTCOME
        ):
            continue
        for s in outsiders:
            assert other.view(s) == after.view(s), (s, seat, action, alternative)
            assert events_for(other_events, s) == events_for(events, s), (s, action)
        return


# --- the properties -----------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "p{}-st{:d}-fc{:d}-t{}".format(*c))
def test_every_option_combination_plays_to_an_end_with_all_112_cards_kept(config):
    # Seeded from the configuration's text: hash() of a tuple holding None changes from run
    # to run (None's hash is its address), and each case must play the same games each run.
    rng = random.Random(repr(config))
    for seed in (1, 2):

        def step(game, seat, action, events):
            check_table(game)
            check_events(events, config[0])

        game, log = play_random_game(
            options_of(config), seed, rng, MAX_ACTIONS, concede_chance=0.001, on_step=step
        )
        v = game.view(None)
        assert v["game_over"] is not None
        if config[3] is None:
            assert v["round"] == 1
        winner = v["game_over"]["winner"]
        if winner is not None and not v["departed"].count(True):
            target = config[3]
            assert target is None or v["scores"][winner] >= target


@PROPERTY
@given(configs, seeds, seeds, concede_chances)
def test_random_games_keep_the_cards_hide_the_cards_and_refuse_bad_moves(
    config, seed, player_seed, chance
):
    rng = random.Random(player_seed)
    game = Game.new(options_of(config), seed)
    check_table(game)
    for _ in range(MAX_ACTIONS):
        decision = random_decision(game, rng, chance)
        if decision is None:
            break
        seat, action = decision
        check_refusals(game, rng)
        before = clone(game) if action["type"] in ("pass", "give") else None
        events = game.act(seat, action)
        check_table(game)
        check_events(events, config[0])
        if before is not None:
            check_trade_is_hidden(before, seat, action, game, events, rng)
    else:
        pytest.fail(f"no end within {MAX_ACTIONS} actions")


@PROPERTY
@given(configs, seeds, seeds, concede_chances)
def test_snapshots_round_trip_and_a_restored_game_plays_on_identically(
    config, seed, player_seed, chance
):
    rng = random.Random(player_seed)
    game = Game.new(options_of(config), seed)
    restored = None
    restore_at = rng.randrange(1, 300)
    for step in range(MAX_ACTIONS):
        check_round_trip(game, full=step % 7 == 0)
        if step == restore_at:
            restored = Game.from_dict(json_round_trip(game.to_dict()))
        decision = random_decision(game, rng, chance)
        if decision is None:
            break
        seat, action = decision
        events = game.act(seat, action)
        if restored is not None:
            assert restored.act(seat, copy.deepcopy(action)) == events
    if restored is not None:
        assert restored.to_dict() == game.to_dict()
        assert all_views(restored) == all_views(game)


@PROPERTY
@given(configs, seeds, seeds, concede_chances)
def test_replaying_the_seed_and_the_actions_reproduces_the_game(config, seed, player_seed, chance):
    options = options_of(config)
    game, log = play_random_game(
        options, seed, random.Random(player_seed), MAX_ACTIONS, concede_chance=chance
    )
    replay = Game.new(options, seed)
    for seat, action, events in log:
        assert replay.act(seat, copy.deepcopy(action)) == events
    assert replay.to_dict() == game.to_dict()
    assert all_views(replay) == all_views(game)


@settings(
    max_examples=8,
    deadline=None,
    database=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(configs, seeds, seeds)
def test_every_listed_legal_action_applies_without_error(config, seed, player_seed):
    rng = random.Random(player_seed)
    game = Game.new(options_of(config), seed)
    for step in range(MAX_ACTIONS):
        if step % 3 == 0:
            check_every_legal_action_applies(game)
        decision = random_decision(game, rng)
        if decision is None:
            break
        game.act(*decision)


@settings(max_examples=60, deadline=None, database=None)
@given(st.sampled_from([4, 6, 8]), seeds, st.data())
def test_a_view_does_not_change_with_cards_hidden_from_its_seat(players, seed, data):
    rng = random.Random(seed)
    deck = [c for c, k in DECK_COUNTS.items() for _ in range(k)]
    rng.shuffle(deck)
    sizes = [data.draw(st.integers(0, 6)) for _ in range(players)]
    for s in range(players // 2):
        if sizes[s] == 0 and sizes[s + players // 2] == 0:
            sizes[s] = 1
    hands = []
    for k in sizes:
        hands.append(deck[:k])
        deck = deck[k:]
    top = next(c for c in deck if c[0] in COLORS and c[1].isdigit())
    deck.remove(top)
    discard = deck[: data.draw(st.integers(0, 5))] + [top]
    pile = deck[len(discard) - 1 :][: data.draw(st.integers(0, 40))]
    in_seats = [s for s in range(players) if sizes[s]]
    turn = data.draw(st.sampled_from(in_seats))
    keep = data.draw(st.sampled_from(range(players)))
    options = {"stacking": data.draw(st.booleans())}
    # Everything hidden from `keep`: other hands (same sizes) and the draw pile's order.
    pool = [c for s in range(players) if s != keep for c in hands[s]] + pile
    rng.shuffle(pool)
    other_hands = []
    for s in range(players):
        if s == keep:
            other_hands.append(hands[s])
        else:
            other_hands.append(pool[: sizes[s]])
            pool = pool[sizes[s] :]
    a = make_game(hands, discard=discard, draw_pile=pile, turn=turn, **options)
    b = make_game(other_hands, discard=discard, draw_pile=pool, turn=turn, **options)
    assert a.view(keep) == b.view(keep)
    assert a.view(None) == b.view(None)
    assert a.legal_actions(keep) == b.legal_actions(keep)
