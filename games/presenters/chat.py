"""The table chat as a reader sees it (docs/chat.md): who may read which room, the panel,
and one rendered line for a push.

Two rooms. The players' room is read by the people seated at the table (`Seat.user`) while
the game runs, and by everyone who may follow the table once it is over; the spectators'
room is read by the spectators only, never by a player. Every line is rendered from its
stored text with Django's autoescape: nothing a person typed is ever marked safe.
"""

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import User
from games.models import ChatMessage, ChatMute, ChatSetting, Game

PLAYERS = ChatMessage.Room.PLAYERS
SPECTATORS = ChatMessage.Room.SPECTATORS
MAX_LENGTH = ChatMessage._meta.get_field("text").max_length
QUICK_PHRASES = ["Good game", "Well played", "Good luck", "Thanks", "Oops", "Nice one"]
ROOM_LABELS = {PLAYERS: "Players", SPECTATORS: "Spectators"}


def is_over(game: Game) -> bool:
    return game.status in (Game.Status.FINISHED, Game.Status.ABORTED)


def readable_rooms(game: Game, seated: bool) -> list[ChatMessage.Room]:
    """The rooms a reader may read: a seated person the players' room only; a spectator
    their own room, and the players' room too once the game is over."""
    if seated:
        return [PLAYERS]
    return [PLAYERS, SPECTATORS] if is_over(game) else [SPECTATORS]


def writable_room(seated: bool) -> ChatMessage.Room:
    return PLAYERS if seated else SPECTATORS


def is_off(user_id: int) -> bool:
    """Whether this person turned the chat off for themselves."""
    return ChatSetting.objects.filter(user_id=user_id, muted=True).exists()


def is_muted(user_id: int) -> bool:
    """Whether a moderator muted this person in chat."""
    return ChatMute.objects.filter(user_id=user_id).exists()


def message_context(message: ChatMessage, reader_id: int | None = None) -> dict[str, Any]:
    return {
        "m": message,
        "author": message.user.name,
        "mine": message.user_id == reader_id,
        "report_url": reverse("games:chat_report", args=[message.game_id, message.pk]),
    }


def message_html(message: ChatMessage, reader_id: int | None = None) -> str:
    """One line as the page shows it, for a push (`reader_id` None: the line is the same for
    everyone; the page itself marks the reader's own lines and drops their report button)."""
    return render_to_string("games/chat.html#message", message_context(message, reader_id))


def recent(game: Game, room: str, limit: int | None = None) -> list[ChatMessage]:
    """The newest `limit` visible lines of a room, oldest first."""
    limit = limit or settings.CHAT_HISTORY
    rows = (
        ChatMessage.objects.filter(game=game, room=room, hidden_at__isnull=True)
        .select_related("user")
        .order_by("-id")[:limit]
    )
    return list(reversed(rows))


def starts_open(game: Game, seat: int | None, user: User) -> bool:
    """Whether the table page opens with its chat box unfolded: only when someone else could
    read it (a spectator always has the other watchers' room; a seated person needs another
    person at the table) and it already holds a line the reader may see. An empty box folded
    leaves its room to the move log; the first line from someone else opens it (chat.js)."""
    if seat is None:
        others = True
    else:
        others = len(game.bot_seats) + 1 < game.players
    if not others or is_off(user.pk):
        return False
    rooms = readable_rooms(game, seat is not None)
    return ChatMessage.objects.filter(game=game, room__in=rooms, hidden_at__isnull=True).exists()


def panel_context(
    game: Game, seat: int | None, user: User, *, note: str = "", error: str = ""
) -> dict[str, Any]:
    """Everything the chat panel shows `user` (at `seat`, None for a spectator)."""
    seated = seat is not None
    off = is_off(user.pk)
    rooms: list[dict[str, Any]] = []
    if not off:
        for room in readable_rooms(game, seated):
            rooms.append(
                {
                    "room": room,
                    "label": ROOM_LABELS[room],
                    "mine": room == writable_room(seated),
                    "lines": [message_context(m, user.pk) for m in recent(game, room)],
                }
            )
    return {
        "game": game,
        "seated": seated,
        "off": off,
        "rooms": rooms,
        "room": writable_room(seated),
        "room_label": ROOM_LABELS[writable_room(seated)],
        "muted": is_muted(user.pk),
        "over": is_over(game),
        "phrases": QUICK_PHRASES,
        "max_length": MAX_LENGTH,
        "note": note,
        "error": error,
        "spectators_allowed": game.spectators and not game.private,
    }
