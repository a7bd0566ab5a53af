"""How many people are watching a table: a counter per game in the cache (Redis in
production, so every Daphne process shares it), moved by the spectators' sockets."""

from django.core.cache import cache


def _key(game_id):
    return f"spectators:{game_id}"


def joined(game_id):
    cache.add(_key(game_id), 0, timeout=None)  # SET NX, then an atomic INCR
    return cache.incr(_key(game_id))


def left(game_id):
    try:
        value = cache.decr(_key(game_id))
    except ValueError:  # the cache lost the counter (a restart): nobody to count down
        return 0
    if value < 0:
        cache.set(_key(game_id), 0, timeout=None)
        return 0
    return value


def count(game_id):
    return max(0, cache.get(_key(game_id)) or 0)
