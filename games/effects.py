"""Work that follows a committed write: socket pushes and Celery tasks.

The actions register it here (`transaction.on_commit`), never run it inside the
transaction. A push renders each listening seat's fragments from that seat's `view()` and
`events_for()` alone (games.presenters.table) and sends each rendering only to that seat's
group; a bot account's seat with a Bot API stream open gets the seat's state
(games.presenters.bot_view) in its program group instead of HTML; a site bot's seat and a
group with no socket in it get nothing. Tasks are sent by name,
so the actions need not import the task module that imports them.
"""

import logging
import time
from functools import partial

import redis
from celery import current_app
from django.db import transaction

from games import metrics, push, store
from games.models import Game
from games.presenters import bot_view, table
from games.push import changes

log = logging.getLogger(__name__)


def task_on_commit(name, *args, **options):
    """Sends Celery task `name` with `args` once the current transaction commits.

    A broker that cannot be reached (Redis restarting) must not fail the request that
    committed the write: the move is stored, and every task sent this way has a beat sweep
    that finds its work again (stalled bots, due clocks, the email outbox).
    """
    transaction.on_commit(partial(_send_task, name, args, options))


def log_on_commit(logger, message, *args, level=logging.INFO, **fields):
    """Logs `message % args` once the current transaction commits, so that a start or a
    time-out that was rolled back says nothing; `fields` (game, user, seat: ids) go with it
    as `extra=`, fields of their own in the JSON logs (config/logs.py)."""
    transaction.on_commit(partial(logger.log, level, message, *args, extra=fields))


def _send_task(name, args, options):
    try:
        current_app.tasks[name].apply_async(args, **options)
    except Exception:
        log.exception("could not send %s%r; the beat sweep will find its work", name, args)


def game_changed_on_commit(game, seq, state):
    """Pushes the table after the commit of the event the writer has just recorded.
    Registered first by the writer: on-commit callbacks run in the order they were
    registered, and the pages should not wait for the tasks sent after it.

    Returns the TableReads the writer hands to the write (games.store.append), which fills
    them in its statement: the push then reads nothing more."""
    reads = store.TableReads(log_rows=table.PUSH_LOG_ROWS)
    transaction.on_commit(
        partial(game_changed, game.pk, game.players, seq, game, state, reads=reads)
    )
    return reads


def seat_pushes(
    game_id, *, game=None, state=None, listening=None, waiting=False, memory=None, reads=None
):
    """[(group, message)] for the game's current state: one rendering per listening seat,
    and with `waiting`, a `waiting.changed` for each person's site sockets (the header's
    count and their My games list: games.consumers.SiteConsumer), sent only to users with
    such a socket open.

    The message's `seq` is the last event the rendering includes, so a page
    that sees a number it did not expect resyncs over HTTP. `game` and `state`
    (both or neither) are the row and state the writer has just committed;
    without them both are read again. `listening(groups)`, when given, says which
    of the groups have a socket in them (None: it cannot tell); only those are
    rendered, so a seat whose player has no page open costs nothing.

    What every reader sees alike (the plates, the piles, the result) is rendered once
    for all of them, from the public view (presenters.table.PublicTable); each seat's
    rendering adds only its own part, from its own view.

    With a `memory` (games.push.changes), each rendering is cut down to what changed since
    the last push it remembers for the game; without one each push carries the whole
    table.

    `reads` (games.store.TableReads), filled by the write of the game's last event, are its
    seats and last events: then nothing is read here.
    """
    if game is None or state is None:
        game = Game.objects.select_related("snapshot").get(pk=game_id)
        state = store.load_state(game)
    if reads is None or not reads.up_to(game.last_seq):
        reads = None
    seats = store.table_seats(game_id) if reads is None else reads.seats
    holders = {s.number: s.user_id for s in seats if s.user_id}
    pages, programs, told = _listeners(game, seats, waiting)
    if listening is not None:
        # One read for every kind of group: a game nobody listens to costs nothing more.
        open_groups = listening([group for group, _ in pages + programs] + told)
        if open_groups is not None:
            pages = [(group, seat) for group, seat in pages if group in open_groups]
            programs = [(group, seat) for group, seat in programs if group in open_groups]
            told = [group for group in told if group in open_groups]
    # `holder`: the user a seat's rendering or state is for, so that a socket or stream let
    # in for the seat before it changed hands passes none of it on (games.actions.access).
    states = [
        (
            group,
            _message(
                "game.state", game, holders.get(seat), state=bot_view.seat_state(game, seat, state)
            ),
        )
        for group, seat in programs
    ]
    # The tables first: a page waits on its push, a header's count can wait a moment.
    return (
        _renderings(game, state, seats, holders, pages, memory, reads)
        + states
        + [(group, {"type": "waiting.changed"}) for group in told]
    )


def _listeners(game, seats, waiting):
    """The groups a push may go to: (group, seat) of the pages (a seat's holder, the
    spectators' group as seat None), (group, seat) of the bot accounts' streams, and with
    `waiting` the people's site sockets. A page's socket listens at its seat's group, a
    bot account's stream at its program group (its owner may have the page open too)."""
    people = [s for s in seats if s.user_id]
    pages = [(push.seat_group(game.pk, s.number), s.number) for s in people]
    if game.spectators and not game.private:
        pages.append((push.public_group(game.pk), None))
    programs = [(push.program_group(game.pk, s.number), s.number) for s in people if s.user.is_bot]
    told = [push.waiting_group(s.user_id) for s in people] if waiting else []
    return pages, programs, told


def _renderings(game, state, seats, holders, pages, memory, reads=None):
    """Each page's fragments: what every reader sees alike rendered once (PublicTable),
    then each reader's own part; with a `memory`, of it only what changed since the last
    push it remembers for the game (games.push.changes)."""
    if not pages:
        return []
    before = memory.previous(game.pk, game.last_seq) if memory is not None else None
    rows = (
        store.recent_events(game.pk, table.PUSH_LOG_ROWS, upto=game.last_seq)
        if reads is None
        else reads.rows
    )
    public = table.PublicTable(game, state, seats, rows)
    # The events the log's moves follow: a page must show every one up to it.
    log_after = public.log_after = max(
        rows[0].seq - 1 if rows else game.last_seq, game.last_seq - table.PUSH_LOG_MOVES
    )
    if before is not None:
        log_after = public.log_after = max(log_after, before.seq)
    renderings, versions = [], {}
    for group, seat in pages:
        context = table.table_context(game, seat, public=public)
        if memory is not None:
            _html, cut = table.render_pieces(context)
            versions[group] = changes.versions_of(cut)
            sent = changes.message(cut, before, group, table.ALWAYS, table.LOG)
        else:
            sent = {"html": table.render_fragments(context, versioned=False)}
        renderings.append(
            (
                group,
                _message("game.fragments", game, holders.get(seat), log_after=log_after, **sent),
            )
        )
    if memory is not None:
        memory.remember(
            game.pk, changes.Pushed.of(game.last_seq, versions, table.discard_items(public))
        )
    return renderings


def _message(kind, game, holder, **content):
    return {"type": kind, "seq": game.last_seq, "holder": holder, **content}


def game_changed(game_id, players, seq, game=None, state=None, reads=None):
    layer = push.layer()
    if layer is None:
        return
    members = {}
    started = time.perf_counter()
    try:
        pushes = seat_pushes(
            game_id,
            game=game,
            state=state,
            waiting=True,
            listening=lambda groups: push.listening(layer, groups, members),
            memory=push.memory(layer),
            reads=reads,
        )
        if pushes:
            push.deliver(layer, pushes, members or None)
            # A push that reached nobody (no page open) is not counted: it cost nothing.
            metrics.push_seconds.observe(time.perf_counter() - started)
            metrics.push_bytes.observe(
                sum(len(message.get("html", "").encode()) for _, message in pushes)
            )
    except (OSError, redis.RedisError) as exc:
        # The event is committed; a page that missed this resyncs over HTTP once its socket
        # is back (Redis lost: no traceback, it says nothing more than this).
        log.warning("could not notify game %s of event %s: %s", game_id, seq, exc)
    except Exception:
        log.exception("could not notify game %s of event %s", game_id, seq)


def session_ended(sender, request, user, **kwargs):
    """Receiver of `user_logged_out`: an open socket keeps its user otherwise (channels#1324)."""
    if user is None:
        return
    try:
        push.send(push.user_group(user.pk), {"type": "session.ended"})
    except Exception:
        log.exception("could not close the sockets of user %s", user.pk)


def access_changed(user_id):
    """Tells the open sockets of `user_id` to check whether they may still listen
    (consumers.socket_access): the account, its sessions or its seats changed."""
    try:
        push.send(push.user_group(user_id), {"type": "access.changed"})
    except Exception:
        log.exception("could not tell the sockets of user %s to check their access", user_id)


def seats_changed(game_id, numbers):
    """Tells the sockets and bot streams listening at these seats of the game to check
    whether their reader still holds the seat (games.actions.access)."""
    for number in numbers:
        try:
            for group in (push.seat_group(game_id, number), push.program_group(game_id, number)):
                push.send(group, {"type": "access.changed"})
        except Exception:
            log.exception("could not tell seat %s of game %s to check its access", number, game_id)


# Saving these fields can end a user's sessions (a new password) or right to play.
ACCESS_FIELDS = frozenset({"password", "is_active", "banned_at", "suspended_until"})


def account_saved(sender, instance, created, update_fields=None, **kwargs):
    """Receiver of the user model's post_save: a save that may have changed what the
    account's open sockets are allowed asks them to check, once the save is committed."""
    if created or (update_fields is not None and not ACCESS_FIELDS & set(update_fields)):
        return
    transaction.on_commit(partial(access_changed, instance.pk))
