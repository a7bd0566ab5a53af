"""The override check: where Hard leaves Normal's move, both moves scored on the true position."""

from bench.research.overridecheck import kind_of, main, playout, report
from games.engine import Game, Options


def test_departures_are_named_by_kind():
    turn = {"decision": "turn"}
    play = lambda card, color=None: {"type": "play", "card": card, "color": color}  # noqa: E731
    assert kind_of(turn, play("R3"), play("W", "G")) == "wild spent"
    assert kind_of(turn, play("W", "R"), play("R3")) == "wild kept"
    assert kind_of(turn, play("W", "R"), play("W", "G")) == "wild colour"
    assert kind_of(turn, play("R3"), play("RD2")) == "draw 2"
    assert kind_of(turn, play("R3"), play("B3")) == "number"
    assert kind_of({"decision": "forced"}, play("W", "R"), play("W", "B")) == "drawn wild colour"
    assert kind_of({"decision": "swap"}, {}, {}) == "swap"


def test_a_playout_scores_the_round_for_the_movers_team():
    # Seat 0 plays its last card while its partner (seat 2) is out: its team has won.
    g = Game.from_position(
        Options(players=4),
        hands=[["Y3"], ["B1", "B3"], [], ["R1", "R4"]],
        draw_pile=["G1", "G2", "G3"],
        discard=["Y5"],
        turn=0,
    )
    assert playout(g.to_dict(), 0, {"type": "play", "card": "Y3"}, 1) == 1.0
    # Here the Yellow 3 lets seat 1, whose partner is out, play its last card: a loss.
    g = Game.from_position(
        Options(players=4),
        hands=[["Y3", "R9"], ["Y1"], ["B2"], []],
        draw_pile=["G1", "G2", "G3"],
        discard=["Y5"],
        turn=0,
    )
    assert playout(g.to_dict(), 0, {"type": "play", "card": "Y3"}, 1) == 0.0


def test_the_report_sums_the_gain_per_game():
    lines = report({"number": [4, 0.2, 0.02], "wild spent": [2, -0.1, 0.01]}, 10)
    assert lines[0].startswith("number: 4 departures, +0.0500 each, +0.0200 a game")
    assert lines[-1].startswith("all: 6 departures, +0.0100 a game")


def test_it_runs_end_to_end(capsys):
    main(["--games", "1", "--playouts", "2", "--actions", "300"])
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("budget Budget(actions=300")
    assert out[-1].startswith("all: ")
