"""How many people are watching a table: a counter per game in the cache (Redis in
production, so every Daphne process shares it), moved by the spectators' sockets.

A person counts once however many tabs they watch in: each (game, user) has its own count
of sockets, and the table's count moves only when a person's first socket opens or their
last one closes. Every step is an atomic INCR or DECR, so sockets opening and closing at
once in several processes keep the counts right."""

from django.core.cache import cache


def _key(game_id: int) -> str:
    return f"spectators:{game_id}"


def _socket_key(game_id: int, user_id: int) -> str:
    return f"spectators:{game_id}:{user_id}"


# A person's socket count is left at 0 rather than deleted (a delete could race a new tab's
# INCR); it expires a week after their first socket, far longer than anyone watches.
PERSON_TIMEOUT = 7 * 24 * 3600


def _up(key: str, timeout: int | None = None) -> int:
    cache.add(key, 0, timeout=timeout)  # SET NX, then an atomic INCR
    return cache.incr(key)


def _down(key: str) -> int | None:
    try:
        value = cache.decr(key)
    except ValueError:  # the cache lost the counter (a restart): nobody to count down
        return None
    if value < 0:
        cache.set(key, 0, timeout=None)
        return None
    return value


def joined(game_id: int, user_id: int) -> int:
    """A socket of `user_id` opened; returns the table's count."""
    if _up(_socket_key(game_id, user_id), PERSON_TIMEOUT) == 1:
        return _up(_key(game_id))
    return count(game_id)


def left(game_id: int, user_id: int) -> int:
    """A socket of `user_id` closed; returns the table's count."""
    if _down(_socket_key(game_id, user_id)) == 0:
        return _down(_key(game_id)) or 0
    return count(game_id)


def count(game_id: int) -> int:
    return max(0, cache.get(_key(game_id)) or 0)
