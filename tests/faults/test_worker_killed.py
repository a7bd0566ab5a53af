"""A Celery worker killed (SIGKILL) in the middle of a bot move, of a deadline firing and of
a reminder email, then started again: exactly one move, at most one email.

The kill comes from inside the worker, at an exact point (tests/faults/points.py, armed
once by a file), so that it lands between the write and the commit, or between the commit
and the broker's acknowledgement, every time. Nothing in this process runs a task: the
worker (and beat, where a sweep is the way back) are real subprocesses on Redis and
PostgreSQL.
"""

import email
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import store
from games.models import EmailOutbox, Game, GameEvent
from tests.conftest import make_started_game, make_user
from tests.faults.support import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Broker redelivery of an unacknowledged task comes this long after the worker died
# (config/celery.py; 600 s in production, where beat's sweeps come first).
FAST_REDELIVERY = {"CELERY_VISIBILITY_TIMEOUT": "2"}


def _events(game, **filters):
    return list(GameEvent.objects.filter(game=game, **filters).order_by("seq"))


def _consistent(game):
    """Events numbered 1..n without a gap, and the snapshot is what they replay to."""
    game.refresh_from_db()
    seqs = [e.seq for e in _events(game)]
    assert seqs == list(range(1, game.last_seq + 1)), seqs
    assert game.snapshot.seq == game.last_seq
    assert store.replay(game).to_dict() == game.snapshot.state


def _three_people_and_a_bot():
    """Turn by turn (no clock runs out during the test): after the deal every seat must
    choose a setup card; the people never do, so the one bot's move is the only work."""
    people = [make_user(name) for name in ("ana", "bo", "cy")]
    return make_started_game(people, bots=["easy"], pace=Game.Pace.TURN_BASED, turn_hours=24)


def test_a_worker_killed_between_a_bot_moves_write_and_its_commit_makes_it_once(stack):
    fault = stack.fault("decision.written:bot")
    stack.worker(env=FAST_REDELIVERY, fault=fault)

    game = _three_people_and_a_bot()

    # The worker chose the bot's card, wrote the event and the snapshot, and died.
    stack.wait_dead("worker")
    assert not fault.arm.exists() and "decision.written bot" in fault.fired
    game.refresh_from_db()
    assert game.last_seq == 1 and _events(game, actor="bot") == []  # PostgreSQL rolled it back
    assert 3 in game.waiting_on

    # Restarted: the task that was never acknowledged comes back from the broker (there is
    # no beat here, and nobody else sends the bot's move) and the move is made once.
    stack.worker(env=FAST_REDELIVERY, fault=fault)
    wait_until(
        lambda: _events(game, actor="bot"),
        60,
        "the bot's move after the restart",
        lambda: stack.log("worker")[-3000:],
    )
    time.sleep(2)  # room for a wrong second move
    (move,) = _events(game, actor="bot")
    assert (move.seat, move.seq, move.idempotency_key) == (3, 2, "bot-3-1")
    _consistent(game)


def test_a_worker_killed_after_a_bot_moves_commit_but_before_its_ack_does_not_move_twice(stack):
    fault = stack.fault("decision.committed:bot")
    stack.worker(env=FAST_REDELIVERY, fault=fault)

    game = _three_people_and_a_bot()

    stack.wait_dead("worker")
    assert not fault.arm.exists()
    (move,) = _events(game, actor="bot")  # committed before the kill

    # The broker hands the unacknowledged task to the new worker, which runs it again...
    # (Celery's line for a routine task's result is at DEBUG, so this worker logs at DEBUG.)
    stack.worker(env={**FAST_REDELIVERY, "LOG_LEVEL": "DEBUG"}, fault=fault)
    wait_until(
        lambda: "'stale'" in stack.log("worker").split("----- start")[-1],
        60,
        "the redelivered bot task to run again",
        lambda: stack.log("worker")[-3000:],
    )
    assert "games.tasks.play_bot" in stack.log("worker").split("----- start")[-1]
    # ...and finds the position gone: still one move.
    assert [(e.seat, e.idempotency_key) for e in _events(game, actor="bot")] == [(3, "bot-3-1")]
    assert _events(game, actor="bot")[0].pk == move.pk
    _consistent(game)


def test_a_pool_process_killed_mid_bot_move_gets_its_task_back_at_once(stack):
    """The prefork pool: the process running the task dies (the OOM killer, say) while the
    worker lives on. task_reject_on_worker_lost puts the task back at once (no visibility
    timeout to wait out here: the production 600 s), and the bot moves once."""
    fault = stack.fault("decision.written:bot")
    stack.worker(pool="prefork", fault=fault)

    game = _three_people_and_a_bot()

    wait_until(lambda: not fault.arm.exists(), 30, "the pool process to die mid-move")
    wait_until(
        lambda: _events(game, actor="bot"),
        30,
        "the bot's move, run again",
        lambda: stack.log("worker")[-3000:],
    )
    time.sleep(1)
    (move,) = _events(game, actor="bot")
    assert move.idempotency_key == "bot-3-1"
    assert "WorkerLostError" in stack.log("worker") or "signal 9" in stack.log("worker")
    assert stack.procs["worker"].poll() is None  # the worker itself lived on
    _consistent(game)


def test_a_bot_move_whose_database_connection_dies_is_retried_and_made_once(stack):
    """Not a kill: PostgreSQL ends the worker's connection between the bot move's write and
    its commit. The task is told the move was not saved, retries a second later on a new
    connection, and the bot moves once (no beat, no restart: the retry alone)."""
    fault = stack.fault("decision.written:bot", action="disconnect")
    stack.worker(fault=fault)

    game = _three_people_and_a_bot()

    wait_until(
        lambda: _events(game, actor="bot"),
        30,
        "the bot's move, retried",
        lambda: stack.log("worker")[-3000:],
    )
    time.sleep(1.5)
    assert not fault.arm.exists()
    (move,) = _events(game, actor="bot")
    assert move.idempotency_key == "bot-3-1"
    log = stack.log("worker")
    assert "decision not saved" in log and "retry" in log.lower()
    assert stack.procs["worker"].poll() is None
    _consistent(game)


def _due_now(game, seats=None):
    """Makes the running clocks of `seats` (all by default) due now, as if their time had run
    out (instead of waiting out a real move timer)."""
    now = timezone.now()
    game.refresh_from_db()
    clocks = {
        k: {**c, "due": now.isoformat()} if seats is None or int(k) in seats else c
        for k, c in game.clocks.items()
    }
    Game.objects.filter(pk=game.pk).update(clocks=clocks, deadline_at=now, wake_at=now)


def test_a_worker_killed_in_the_middle_of_a_time_out_fires_it_once_after_the_restart(stack):
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    fault = stack.fault("decision.written:timeout")
    stack.worker(fault=fault)
    stack.beat(env={"CLOCK_SWEEP_SECONDS": "1"})
    game = make_started_game(people, pace=Game.Pace.REALTIME, move_seconds=30)
    assert sorted(game.clocks) == ["0", "1", "2", "3"]  # everyone chooses a setup card

    _due_now(game)
    stack.wait_dead("worker")
    assert not fault.arm.exists()
    game.refresh_from_db()
    # The first time-out was written (the event, the seat's time-out count) and rolled back.
    assert game.last_seq == 1 and game.timeouts == {} and len(game.clocks) == 4

    # Restarted: beat's sweep finds the clocks still due and fires each once.
    stack.worker(fault=fault)
    wait_until(
        lambda: len(_events(game, actor="timeout")) == 4,
        60,
        "the four time-outs",
        lambda: stack.log("worker")[-3000:],
    )
    time.sleep(2)  # several more sweeps
    timeouts = _events(game, actor="timeout")
    assert sorted(e.idempotency_key for e in timeouts) == [f"timeout-{s}-1" for s in range(4)]
    game.refresh_from_db()
    assert game.timeouts == {"0": 1, "1": 1, "2": 1, "3": 1}  # no seat counted twice
    _consistent(game)


@pytest.mark.parametrize(
    "point, reminders",
    [
        ("email.sent:reminder", 1),  # the SMTP server took it; the row was not yet marked
        ("email.claimed:reminder", 0),  # claimed, not yet sent: lost rather than sent twice
    ],
)
def test_a_worker_killed_while_sending_a_reminder_sends_it_at_most_once(
    stack, smtp_server, point, reminders
):
    port, received = smtp_server
    people = [make_user(name) for name in ("ana", "bo", "cy", "di")]
    fault = stack.fault(point)
    smtp = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_USE_TLS": "false",
        "OUTBOX_RETRY_SECONDS": "1",
        "CLOCK_SWEEP_SECONDS": "1",
    }
    stack.worker(env={**smtp, **FAST_REDELIVERY}, fault=fault)
    stack.beat(env=smtp)
    game = make_started_game(people, pace=Game.Pace.TURN_BASED, turn_hours=24)
    # The four "your turn" emails of the deal go out first (the fault is for reminders).
    wait_until(
        lambda: len(received) == 4, 30, "the your-turn emails", lambda: stack.log("worker")[-3000:]
    )

    # Half of Ana's time has gone: the sweep writes her reminder and the worker sends it.
    game.refresh_from_db()
    now = timezone.now()
    clocks = {**game.clocks, "0": {**game.clocks["0"], "remind_at": now.isoformat()}}
    Game.objects.filter(pk=game.pk).update(clocks=clocks, wake_at=now)
    stack.wait_dead("worker")
    assert not fault.arm.exists()

    # Restarted, with the outbox retry (1 s), the sweep (1 s) and the broker's redelivery
    # (2 s) all running: whatever state the row was left in, no second email.
    stack.worker(env={**smtp, **FAST_REDELIVERY}, fault=fault)
    time.sleep(6)
    subjects = [email.message_from_bytes(e.content)["Subject"] for e in received]
    sent = [s for s in subjects if s.startswith("Reminder")]
    assert len(sent) == reminders, subjects
    assert all(
        e.rcpt_tos == ["ana@example.com"]
        for e in received
        if email.message_from_bytes(e.content)["Subject"].startswith("Reminder")
    )
    row = EmailOutbox.objects.get(game=game, kind="reminder")
    assert (row.seat, row.seq, row.skipped) == (0, 1, "sending")  # the sender died with it
    assert row.sent_at is not None
    game.refresh_from_db()
    assert game.clocks["0"]["reminded"] is True
    assert timezone.now() - row.created_at < timedelta(minutes=1)
