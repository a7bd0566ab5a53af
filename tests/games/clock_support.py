"""Helpers for the clock, deadline, presence and reminder tests."""

import uuid
from datetime import UTC, datetime, timedelta

import time_machine

from games import store
from games.actions import decisions
from games.models import Game, GameEvent

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


def at(seconds=0, **delta):
    return START + timedelta(seconds=seconds, **delta)


def travel(moment):
    """Freezes the clock at `moment` (no ticking: every now() inside is the same)."""
    return time_machine.travel(moment, tick=False)


def move_as_person(game, seat):
    """The seat makes the plain move itself, before its clock runs out."""
    game.refresh_from_db()
    action = store.load_state(game).auto_action(seat)
    return decisions.apply_decision(
        game.pk, seat, action, GameEvent.Actor.PERSON, idempotency_key=uuid.uuid4().hex
    )


def timeout_events(game, seat=None):
    rows = GameEvent.objects.filter(game=game, actor=GameEvent.Actor.TIMEOUT).order_by("seq")
    return list(rows if seat is None else rows.filter(seat=seat))


def fresh(game):
    return Game.objects.get(pk=game.pk)


def clock_of(game, seat):
    return fresh(game).clocks.get(str(seat))


def due_of(game, seat):
    return datetime.fromisoformat(clock_of(game, seat)["due"])
