"""Hard: sampling hidden cards from what the seat knows, and searching with them."""

import math
import random

import pytest

from games.bots import Budget, SeatMemory, decide
from games.bots.sampling import sample_world
from games.engine import Game, Options, events_for
from games.engine.cards import COLOR, IS_WILD

from .helpers import ask, assert_sample_matches, position, rest_of_deck


def test_samples_match_every_public_count_and_never_use_a_seen_card():
    g = Game.new(Options(players=6), 3)
    events = list(g.initial_events())
    rng = random.Random(0)
    from games.engine.random_moves import random_action

    for _ in range(120):
        if g.stage == "over":
            break
        s = g.waiting_on()[0]
        events += g.act(s, random_action(g, s, rng))
        if g.view(s)["decision"] != "turn" or g.turn is None:
            continue
        seat = g.turn
        view = g.view(seat)
        mem = SeatMemory.build(view, events_for(events, seat))
        hands, draw = sample_world(view, mem, random.Random(1))
        assert_sample_matches(view, seat, mem, hands, draw, g)
        Game.from_view(view, hands=hands, draw_pile=draw)  # a playable imagined table


def test_samples_give_a_seat_that_drew_no_card_of_the_colour_it_lacked():
    # Seat 1 drew on its turn with Green in play, so it holds no Green and no Wild.
    g = position(
        [["G1", "G3", "R4"], ["R1", "R3", "B4", "Y9"], ["B1", "B3"], ["Y1", "Y3", "Y4"]],
        "G5",
        draw=["B7", "B9", "R6"],
    )
    history = [
        {"type": "play", "seat": 3, "card": "G5", "color": "G", "visible_to": None},
        {"type": "draw", "seat": 1, "count": 1, "reason": "turn", "visible_to": None},
    ]
    view = g.view(0)
    mem = SeatMemory.build(view, history)
    assert {"G", "W"} <= mem.voids[1]
    for seed in range(30):
        hands, _ = sample_world(view, mem, random.Random(seed))
        assert not any(COLOR[c] == "G" or c in IS_WILD for c in hands[1])
    # A penalty draw brings in unknown cards: the void is forgotten.
    history.append({"type": "draw", "seat": 1, "count": 2, "reason": "penalty", "visible_to": None})
    assert not SeatMemory.build(view, history).voids[1]


def test_hard_works_out_from_the_cards_it_has_seen_which_move_loses_at_once():
    # Seat 1 has one card and its partner is out. Every card seat 0 has not seen is Blue, so
    # playing Blue 2 hands the opponents the round. Normal sheds its lonely Blue anyway.
    hands = [["B2", "R2", "R7"], ["B7"], ["B3", "B1"], []]
    g = position(hands, "Y2", draw=["B9", "B6", "B4"])
    assert ask("normal", g, 0) == {"type": "play", "card": "B2"}
    hard = ask("hard", g, 0, seed=1, budget=Budget(rollouts=6, horizon=20))
    assert hard == {"type": "play", "card": "R2"}


def test_hard_takes_a_wall_clock_budget_too():
    g = position([["Y3", "W", "Y7", "R3"], ["B1", "B3"], ["G1", "G3"], ["R1", "R4"]], "Y5")
    a = decide(
        "hard",
        g.view(0),
        g.legal_actions(0),
        [],
        random.Random(0),
        budget=Budget(seconds=0.02, horizon=10),
    )
    assert a in g.legal_actions(0)


def test_hard_with_one_choice_does_not_search():
    g = position([["Y3", "G1"], ["B1", "B3"], ["G4", "G3"], ["R1", "R4"]], "Y5")
    assert ask("hard", g, 0, budget=Budget(rollouts=10**9)) == {"type": "play", "card": "Y3"}


def test_the_oracle_sees_the_real_hands():
    from games.bots import oracle_decide

    # As above, but the unseen cards are mixed: only the oracle knows seat 1 holds Blue.
    hands = [["B2", "R2", "R7"], ["B7"], ["G3", "G1"], []]
    g = position(hands, "Y2", draw=["Y9", "G6", "Y4"])
    assert ask("normal", g, 0) == {"type": "play", "card": "B2"}
    a = oracle_decide(g, 0, random.Random(0), budget=Budget(rollouts=4, horizon=20))
    assert a["card"] != "B2"


def _table(sizes):
    """A 6- or 8-player round-1 position whose seats hold `sizes` cards (plain, unplayable
    on the Yellow 5 on top, so nothing about the cards matters but their number)."""
    pool = [
        c for c in rest_of_deck(["Y5"]) if c not in IS_WILD and COLOR[c] != "Y" and c[1:] != "5"
    ]
    hands, i = [], 0
    for k in sizes:
        hands.append(pool[i : i + k])
        i += k
    return position(hands, "Y5", draw=pool[i : i + 10])


def test_an_unfinished_rollout_scored_against_the_best_rival_team_or_all_of_them():
    from games.bots.search import _value

    # Team 0 (seats 0 and 3) holds 4 cards. In `level` each rival team holds 5; in `lone`
    # one rival team holds 4 and the other 30. Against every team our share is larger in
    # `lone` (the 30-card team counts for nothing); against the best rival, `level` is
    # better (we lead every team by a card there, and are only level in `lone`).
    level = _table([2, 3, 3, 2, 2, 2])
    lone = _table([2, 2, 15, 2, 2, 15])
    assert _value(lone, 0, 1) > _value(level, 0, 1)
    assert _value(level, 0, 1, "best") > _value(lone, 0, 1, "best")
    assert abs(_value(lone, 0, 1, "best") - 0.5) < 1e-9
    # With two teams the two scores are the same thing.
    two = _table([2, 3, 2, 4])
    assert abs(_value(two, 0, 1, "best") - _value(two, 0, 1)) < 1e-12


def test_an_unfinished_rollout_scored_by_rank_meets_each_rival_team_alone():
    from games.bots.search import _value

    # Team 0 holds 4 cards; the rival teams 5 and 30. Against each alone: 1/(1 + e^-0.45)
    # and about 1, so the mean is their average, and a rival team that left counts 1.
    lone = _table([2, 2, 15, 2, 3, 15])
    near = 1 / (1 + math.exp(-0.45))
    far = 1 / (1 + math.exp(-0.45 * 26))
    assert _value(lone, 0, 1, "rank") == pytest.approx((near + far) / 2)
    second_far = 1 / (1 + math.exp(-0.45 * 25))
    assert _value(lone, 1, 1, "rank") == pytest.approx((1 - near + second_far) / 2)
    lone.departed[2] = True
    assert _value(lone, 0, 1, "rank") == pytest.approx((near + 1) / 2)
    # With two teams it is the share.
    two = _table([2, 3, 2, 4])
    assert _value(two, 0, 1, "rank") == pytest.approx(_value(two, 0, 1))


@pytest.mark.parametrize("target", [None, 500])
def test_a_finished_round_scored_by_rank_ranks_the_losers_by_the_points_left(target):
    from games.bots.search import _value

    # Seat 0 goes out with its partner (seat 3) out already: team 0 wins. Team 1 is left
    # with 3 points, team 2 with 17: team 1 ranks above team 2, so it takes half its
    # pairings, whether the game ends there or (to a target) a new round is dealt.
    hands = [["Y3"], ["B1"], ["G9"], [], ["R2"], ["R8"]]
    rest = rest_of_deck(*hands, ["Y5"])
    g = Game.from_position(
        Options(players=6, target_score=target),
        hands=hands,
        draw_pile=rest[:40],
        discard=rest[40:] + ["Y5"],
        turn=0,
    )
    start = g.round
    g.act(0, {"type": "play", "card": "Y3"})
    assert (g.stage == "over") == (target is None)
    assert [_value(g, t, start, "rank") for t in range(3)] == [1.0, 0.5, 0.0]
    assert [_value(g, t, start) for t in range(3)] == [1.0, 0.0, 0.0]


def test_the_override_threshold_is_a_budget_knob():
    # The position where Hard rightly leaves Normal's Blue 2 (above): a threshold no
    # sample can clear keeps Normal's move.
    hands = [["B2", "R2", "R7"], ["B7"], ["B3", "B1"], []]
    g = position(hands, "Y2", draw=["B9", "B6", "B4"])
    assert ask("hard", g, 0, seed=1, budget=Budget(rollouts=6, horizon=20)) == {
        "type": "play",
        "card": "R2",
    }
    assert ask("hard", g, 0, seed=1, budget=Budget(rollouts=6, horizon=20, z=1e6)) == {
        "type": "play",
        "card": "B2",
    }


def test_the_site_searches_with_the_budget_of_its_table_size(monkeypatch):
    import games.bots as bots

    seen = []

    def spy(view, legal, history, rng, memory, budget):
        seen.append(budget)
        return legal[0]

    monkeypatch.setattr(bots, "hard_decide", spy)
    for n in (4, 6, 8):
        # Seat 0 can play either of two Yellows: a real choice, which Hard searches at 4
        # and 6 players; at 8 it plays the turn with its base move.
        others = [
            c
            for c in rest_of_deck(["Y3", "Y7", "Y5"])
            if c not in IS_WILD and COLOR[c] != "Y" and c[1:] != "5"
        ]
        hands = [["Y3", "Y7", others[0]]] + [others[1 + 2 * i : 3 + 2 * i] for i in range(n - 1)]
        g = position(hands, "Y5", draw=others[2 * n : 2 * n + 4])
        searched = len(seen)
        decide("hard", g.view(0), g.legal_actions(0), [], random.Random(0))
        if n < 8:
            assert seen[-1] is bots.site_budget(n)
        else:
            assert len(seen) == searched
        # The setup pass, a choice made with the partner, is searched at every size.
        g = Game.new(Options(players=n), 3)
        decide("hard", g.view(0), g.legal_actions(0), [], random.Random(0))
        assert seen[-1] is bots.site_budget(n)
    assert seen[0] is bots.SITE_BUDGET and seen[0].z is None  # 4 players: Z = 1.5
    assert seen[2].z == seen[4].z == 1.0
    assert bots.site_budget(8).weights == "late_wild"


def test_the_site_hard_at_eight_players_spends_a_wild_once_a_rival_team_can_win():
    # Team 1 (seats 1 and 5) holds one card. Normal keeps its Wild for need and plays the
    # Red 1; the site's 8-player Hard plays its turns with the late-Wild weights and sheds
    # the 50-point Wild, which would count against its team's place among the losers.
    hands = [
        ["R1", "W", "G9", "B8"],
        ["Y4"],
        ["G1", "G2"],
        ["B1", "B2"],
        ["Y1", "Y2"],
        [],
        ["G3", "G4"],
        ["B3", "B4"],
    ]
    g = position(hands, "R5", draw=["Y6", "Y7", "B6", "B7"])
    assert ask("normal", g, 0)["card"] == "R1"
    assert ask("hard", g, 0, budget=None)["card"] == "W"


def _scripted_rollouts(monkeypatch, worth):
    """Replace the rollouts by a scripted value per move (the card on top after the move),
    plus noise, and count how often each move is played out."""
    import games.bots.search as search

    played = {}
    noise = random.Random(5)

    def fake(g, team, horizon, score="share", public=None, weights=None, explore=0.0):
        card = g.discard[-1]
        played[card] = played.get(card, 0) + 1
        return worth[card] + noise.uniform(-0.3, 0.3), 10

    monkeypatch.setattr(search, "rollout", fake)
    return played


def test_racing_stops_playing_out_a_move_clearly_worse_than_normals(monkeypatch):
    g = position([["Y3", "Y7", "G5", "R5"], ["B1", "B3"], ["G4", "G3"], ["R1", "R4"]], "Y5")
    normal = ask("normal", g, 0)["card"]
    others = [c for c in ("Y3", "Y7", "G5", "R5") if c != normal]
    # One move close to Normal's, the others far worse.
    worth = {normal: 0.5, others[0]: 0.49, others[1]: 0.0, others[2]: 0.0}
    played = _scripted_rollouts(monkeypatch, worth)
    a = ask("hard", g, 0, budget=Budget(rollouts=200, drop=1.0))
    assert a["card"] == normal
    assert played[normal] == played[others[0]] == 200
    assert played[others[1]] < 40 and played[others[2]] < 40
    # Without racing every move is played out on every sample.
    played.clear()
    ask("hard", g, 0, budget=Budget(rollouts=200))
    assert set(played.values()) == {200}


def test_racing_stops_the_search_when_only_normals_move_is_left(monkeypatch):
    g = position([["Y3", "Y7", "G5", "R5"], ["B1", "B3"], ["G4", "G3"], ["R1", "R4"]], "Y5")
    normal = ask("normal", g, 0)["card"]
    worth = dict.fromkeys(("Y3", "Y7", "G5", "R5"), 0.0)
    worth[normal] = 0.6
    played = _scripted_rollouts(monkeypatch, worth)
    assert ask("hard", g, 0, budget=Budget(rollouts=200, drop=1.0))["card"] == normal
    assert max(played.values()) < 40


def test_racing_still_finds_a_move_clearly_better_than_normals(monkeypatch):
    g = position([["Y3", "Y7", "G5", "R5"], ["B1", "B3"], ["G4", "G3"], ["R1", "R4"]], "Y5")
    normal = ask("normal", g, 0)["card"]
    better = next(c for c in ("Y3", "Y7", "G5", "R5") if c != normal)
    worth = dict.fromkeys(("Y3", "Y7", "G5", "R5"), 0.2)
    worth[normal] = 0.4
    worth[better] = 0.55
    _scripted_rollouts(monkeypatch, worth)
    assert ask("hard", g, 0, budget=Budget(rollouts=200, drop=1.0))["card"] == better


def test_the_rollouts_public_memory_follows_draws_wilds_and_trades():
    from games.bots.search import PublicMemory

    # Seat 1 holds nothing playable on the Green 5: it draws on its turn.
    g = position(
        [["G1", "G3", "R4"], ["R1", "R3", "B4", "Y9"], ["B1", "B3"], ["Y1", "Y3", "Y4"]],
        "G5",
        turn=1,
        draw=["B7", "B9", "R6"],
    )
    mem = SeatMemory.build(g.view(0), [])
    pm = PublicMemory(mem, 4)
    pm.follow(g.act(1, {"type": "draw"}), g.color)
    assert pm.voids[1] == {"G", "W"}
    assert not mem.voids[1]  # the decision's own memory is left as it was
    # A Wild's colour is remembered; a penalty draw forgets what the seat lacked.
    pm.follow([{"type": "play", "seat": 2, "card": "W", "color": "B"}], "G")
    assert pm.chose[2] == ["B"]
    pm.follow([{"type": "draw", "seat": 1, "count": 2, "reason": "penalty"}], "B")
    assert not pm.voids[1]
    # A partner that cannot answer a Wild Team Play lacks the colour named and Wilds.
    pm.follow(
        [
            {"type": "play", "seat": 0, "card": "WTP", "color": "R"},
            {"type": "draw", "seat": 0, "count": 2, "reason": "team_play"},
        ],
        "B",
    )
    assert pm.voids[2] == {"R", "W"}


def test_the_rollouts_normal_plays_into_a_colour_the_next_seat_is_seen_to_lack():
    from games.bots.policies import policy_for_game
    from games.bots.search import PublicMemory

    # Seat 0 may play Yellow 3 or Blue 5 on the Yellow 5. Plain Normal plays its lone
    # Yellow (it sheds the colour it holds least of); told that seat 1, next, was seen to
    # lack Blue, it turns play to Blue.
    g = position([["Y3", "B5", "B7", "R1"], ["R3", "R4"], ["G4", "G3"], ["R6", "R8"]], "Y5")
    assert policy_for_game(g, 0) == {"type": "play", "card": "Y3"}
    mem = SeatMemory.build(g.view(0), [])
    mem.voids[1].update(("B", "W"))
    assert policy_for_game(g, 0, PublicMemory(mem, 4)) == {"type": "play", "card": "B5"}


def test_a_budget_names_how_the_rollouts_see_the_table():
    import pytest

    assert "model=public" in repr(Budget(actions=100, model="public"))
    with pytest.raises(ValueError):
        Budget(actions=100, model="psychic")


# The position where the shedding weights play the Blue 9 and Normal's the Red 1
# (test_normal.py). With a threshold no sample can clear, the base move stands.
SHEDS_B9 = dict(
    hands=[["R1", "B9", "B2", "Y3"], ["G1", "G3", "G4"], ["Y4", "Y6", "Y7"], ["G6", "G7", "G8"]],
    top="R9",
    draw=["R2", "Y2", "G2", "B3"],
)
NEVER = dict(rollouts=4, horizon=8, z=1e6)


def _rollout_weights(monkeypatch):
    """The set of (team, weights) the rollouts' Normal is asked to play with."""
    import games.bots.search as search
    from games.bots.policies import NORMAL

    seen = set()
    real = search.policy_for_game

    def spy(game, seat, public=None, weights=NORMAL):
        seen.add((seat % 2, weights))
        return real(game, seat, public, weights)

    monkeypatch.setattr(search, "policy_for_game", spy)
    return seen


def test_hards_base_move_and_its_teams_rollouts_take_the_budgets_weights(monkeypatch):
    from games.bots.policies import NORMAL, SHEDDING

    g = position(SHEDS_B9["hands"], SHEDS_B9["top"], draw=SHEDS_B9["draw"])
    assert ask("hard", g, 0, budget=Budget(**NEVER))["card"] == "R1"
    assert ask("hard", g, 0, budget=Budget(**NEVER, weights="shedding"))["card"] == "B9"
    # In the rollouts seat 0's team (seats 0 and 2) plays the budget's weights, the
    # opponents Normal's.
    seen = _rollout_weights(monkeypatch)
    ask("hard", g, 0, budget=Budget(**NEVER, weights="shedding"))
    assert seen == {(0, SHEDDING), (1, NORMAL)}
    assert "weights=shedding" in repr(Budget(actions=100, weights="shedding"))
    with pytest.raises(ValueError):
        Budget(actions=100, weights="lucky")


def test_exploring_rollouts_play_some_random_turns_the_same_for_every_candidate():
    from games.bots.search import rollout

    def played(explore, seed=7):
        g = Game.new(Options(players=8), 3)
        g.seed = seed
        value, steps = rollout(g, 0, 40, explore=explore)
        return g.to_dict(), value, steps

    plain = played(0.0)
    assert played(0.0, seed=8)[0]["hands"] == plain[0]["hands"]  # Normal alone: no chance
    explored = played(0.3)
    assert explored[0]["hands"] != plain[0]["hands"]
    assert played(0.3) == explored  # the same world seed, the same random turns
    assert played(0.3, seed=8)[0]["hands"] != explored[0]["hands"]
    assert "explore=0.3" in repr(Budget(actions=100, explore=0.3))
    with pytest.raises(ValueError):
        Budget(actions=100, explore=1.5)


def test_with_the_wilds_left_to_normal_the_search_never_spends_one(monkeypatch):
    # The rollouts say the Wild is far better; Normal keeps it for need.
    g = position([["Y3", "Y7", "W", "R1"], ["B1", "B3"], ["G4", "G3"], ["R6", "R4"]], "Y5")
    assert ask("normal", g, 0)["card"] != "W"
    worth = {"Y3": 0.3, "Y7": 0.3, "W": 0.9}
    _scripted_rollouts(monkeypatch, worth)
    assert ask("hard", g, 0, budget=Budget(rollouts=50))["card"] == "W"
    assert ask("hard", g, 0, budget=Budget(rollouts=50, wilds=False))["card"] != "W"


def test_with_the_wilds_left_to_normal_its_wild_and_colour_stand(monkeypatch):
    # Only Wilds are playable: Normal names the colour it holds most of (Red), and the
    # search may not change that however the rollouts come out.
    g = position([["W", "WTD4", "R1", "R2"], ["B1", "B3"], ["G4", "G3"], ["R6", "R4"]], "Y5")
    normal = ask("normal", g, 0)
    played = _scripted_rollouts(monkeypatch, {"W": 0.1, "WTD4": 0.9})
    assert ask("hard", g, 0, budget=Budget(rollouts=50, wilds=False)) == normal
    assert not played  # nothing was searched
    assert ask("hard", g, 0, budget=Budget(rollouts=50)) != normal


def test_hards_own_team_can_play_normals_weights_in_the_rollouts(monkeypatch):
    from games.bots.policies import NORMAL

    # The base move still follows the budget's weights (the Blue 9), but with
    # own_rollouts="normal" every seat of the rollouts plays Normal's.
    g = position(SHEDS_B9["hands"], SHEDS_B9["top"], draw=SHEDS_B9["draw"])
    seen = _rollout_weights(monkeypatch)
    budget = Budget(**NEVER, weights="shedding", own_rollouts="normal")
    assert ask("hard", g, 0, budget=budget)["card"] == "B9"
    assert seen == {(0, NORMAL), (1, NORMAL)}
    assert "own_rollouts=normal" in repr(Budget(actions=100, own_rollouts="normal"))
    with pytest.raises(ValueError):
        Budget(actions=100, own_rollouts="theirs")


def test_kinds_of_decision_left_out_of_the_search_take_the_base_move(monkeypatch):
    # The rollouts say the Blue 9 is far better; Normal sheds the Red 1. Turns left out of
    # the search, the base move stands and nothing is played out.
    g = position(SHEDS_B9["hands"], SHEDS_B9["top"], draw=SHEDS_B9["draw"])
    assert ask("normal", g, 0)["card"] == "R1"
    played = _scripted_rollouts(monkeypatch, {"R1": 0.1, "B9": 0.9})
    assert ask("hard", g, 0, budget=Budget(rollouts=30))["card"] == "B9"
    played.clear()
    team_only = Budget(rollouts=30, searched=("setup", "swap", "give"))
    assert ask("hard", g, 0, budget=team_only)["card"] == "R1"
    assert not played
    # ... and the base move is the budget's weights' (shedding: the 9 points).
    team_only = Budget(rollouts=30, searched=("give",), weights="shedding")
    assert ask("hard", g, 0, budget=team_only)["card"] == "B9"
    assert not played
    assert "searched=setup,swap,give" in repr(
        Budget(actions=100, searched=("setup", "swap", "give"))
    )
    assert "searched" not in repr(Budget(actions=100))
    for kinds in ((), ("turn", "bluff")):
        with pytest.raises(ValueError):
            Budget(actions=100, searched=kinds)
