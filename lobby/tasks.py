"""Celery tasks of the lobby: Find a game's sweep (docs/matchmaking.md), sent by beat every
SEARCH_SWEEP_SECONDS. Each new or changed search also runs the matcher as it commits; this
is the safety net (a run missed, the bots' wait ended, pages gone)."""

from celery import shared_task

from lobby import matchmaking


@shared_task(ignore_result=True)
def sweep_searches() -> int:
    """Closes the searches nobody holds any longer and seats whoever can be seated;
    returns how many tables it started. Safe to run twice or late: each run locks what it
    seats."""
    return len(matchmaking.sweep())
