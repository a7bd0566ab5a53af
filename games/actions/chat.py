"""The table chat's writes (docs/chat.md): a line sent, a person's own "chat off". A report
and the moderators' hide, show, mute and unmute are moderation's (games.moderation.chat).

A line is checked (who may write in which room, a moderator's mute, the text, the rate),
stored once per sender's key, and pushed after the commit to the groups allowed to read its
room: the players' room to each seat's own group (and, once the game is over, the spectators'
public group too); the spectators' room to the public group only. A socket whose person
turned the chat off drops chat pushes (games.consumers). Sending and reporting never touch
the game row or its events: chatting never waits on a move's lock.

Each function raises ChatRefused with a message fit to show and the HTTP status it means.
"""

import logging
import unicodedata
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction

from accounts import ratelimit
from accounts import text as person_text
from accounts.models import User
from games import push
from games.models import ChatMessage, ChatSetting, Game, Seat
from games.presenters import chat as chat_rooms

log = logging.getLogger(__name__)

MAX_KEY = 40
RATE_SCOPE = "chat"


class ChatRefused(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _person(user: User | AnonymousUser) -> User:
    """`user` if logged in; refuses anyone else."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        raise ChatRefused("Log in to chat.", 403)
    return user


def reader(game_id: int, user: User | AnonymousUser) -> tuple[Game, int | None]:
    """(game, seat number or None) for a person who may follow this table's chat; refuses
    anyone else as the table page does (docs/security.md, "Who may follow a table")."""
    user = _person(user)
    game = Game.objects.exclude(status=Game.Status.OPEN).filter(pk=game_id).first()
    if game is None:
        raise ChatRefused("There is no such table.", 404)
    seat = Seat.objects.filter(game=game, user=user).values_list("number", flat=True).first()
    if seat is None and not (game.spectators and not game.private):
        raise ChatRefused("You are not at this table.", 403)
    return game, seat


def clean_text(text: object) -> str:
    """The line as stored: spaces at its ends dropped, line breaks and tabs made spaces.
    Refuses an empty line, one over the limit, and control characters (a NUL is a 500 in
    PostgreSQL; the others only hide what a line says)."""
    if not isinstance(text, str):
        raise ChatRefused("A chat message is text.")
    text = text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ").strip()
    if not text:
        raise ChatRefused("Write something first: an empty message is not sent.")
    limit = chat_rooms.MAX_LENGTH  # the column's max_length, which Django types as optional
    if limit is not None and len(text) > limit:
        raise ChatRefused(
            f"That message is too long: at most {limit} characters (it has {len(text)})."
        )
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise ChatRefused("That message has characters a chat line cannot hold.")
    return text


def clean_key(key: object) -> str:
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY or not key.isprintable():
        raise ChatRefused(f"Every chat message needs its key (up to {MAX_KEY} characters).")
    return key


def groups_for(game: Game, room: str) -> list[str]:
    """The groups allowed to read a line of `room` now."""
    spectators = push.public_group(game.pk) if game.spectators and not game.private else None
    if room == chat_rooms.SPECTATORS:
        return [spectators] if spectators else []
    groups = [
        push.seat_group(game.pk, number)
        for number in Seat.objects.filter(game=game, user__isnull=False).values_list(
            "number", flat=True
        )
    ]
    if spectators and chat_rooms.is_over(game):
        groups.append(spectators)
    return groups


def deliver(groups: list[str], message: dict[str, Any]) -> None:
    layer = push.layer()
    if layer is None or not groups:
        return
    try:
        push.deliver(layer, [(group, message) for group in groups])
    except Exception:
        # The line is stored: a page that missed the push reads it on its next resync.
        log.exception("could not push %s to %s", message["type"], groups)


def send(
    game_id: int, user: User | AnonymousUser, text: object, key: object
) -> tuple[ChatMessage, bool]:
    """Stores `user`'s line at the table and pushes it after the commit; returns
    (message, created). A key sent again returns the line it stored the first time, and
    pushes nothing."""
    text, key = clean_text(text), clean_key(key)
    hidden = person_text.refusal(text, "That message")
    if hidden:
        raise ChatRefused(hidden)
    user = _person(user)
    game, seat = reader(game_id, user)
    if chat_rooms.is_off(user.pk):
        raise ChatRefused("You turned the chat off: turn it on to send messages.", 409)
    if chat_rooms.is_muted(user.pk):
        raise ChatRefused("A moderator has muted you in chat.", 403)
    earlier = ChatMessage.objects.filter(game=game, user=user, key=key).first()
    if earlier is not None:
        return earlier, False
    limit, window = settings.CHAT_RATE_LIMIT, settings.CHAT_RATE_WINDOW
    ident = f"{user.pk}:{game.pk}"
    if ratelimit.hit(RATE_SCOPE, ident, window) > limit:
        wait = max(1, ratelimit.retry_after(RATE_SCOPE, ident))
        raise ChatRefused(
            f"Too many messages: at most {limit} in {window} seconds. Wait {wait} s.", 429
        )
    room = chat_rooms.writable_room(seat is not None)
    try:
        with transaction.atomic():
            message = ChatMessage.objects.create(
                game=game, user=user, room=room, text=text, key=key
            )
            groups = groups_for(game, room)
            push_message = {
                "type": "chat.message",
                "id": message.pk,
                "room": room,
                "author": user.pk,
                "html": chat_rooms.message_html(message),
            }
            transaction.on_commit(partial(deliver, groups, push_message))
    except IntegrityError:  # the same key, sent twice at once: the other one stored it
        return ChatMessage.objects.get(game=game, user=user, key=key), False
    return message, True


def set_off(user: User, off: bool) -> None:
    """A person's own choice: no chat panel and no chat pushes at any table while `off`.
    Their open sockets are told after the commit (games.consumers drops chat pushes)."""
    with transaction.atomic():
        ChatSetting.objects.update_or_create(user=user, defaults={"muted": bool(off)})
        transaction.on_commit(
            partial(deliver, [push.user_group(user.pk)], {"type": "chat.setting", "off": bool(off)})
        )
