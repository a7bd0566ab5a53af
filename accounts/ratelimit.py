"""Fixed-window rate limits kept in the cache (Redis when configured)."""

import hashlib
import math
import time

from django.core.cache import cache


def _key(scope, ident):
    digest = hashlib.sha256(str(ident).lower().encode()).hexdigest()[:32]
    return f"rl:{scope}:{digest}"


def count(scope, ident):
    return cache.get(_key(scope, ident), 0)


def _start_window(key, window):
    # The window's end is kept beside the count, so that a refusal can say when to come back
    # (the cache API cannot tell how long a key has left).
    cache.set(f"{key}:end", time.time() + window, timeout=window)


def hit(scope, ident, window):
    """Counts one attempt and returns the attempts so far in this window."""
    key = _key(scope, ident)
    # add() only sets a missing key, so the window starts at the first attempt.
    if cache.add(key, 0, timeout=window):
        _start_window(key, window)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add() and incr()
        cache.set(key, 1, timeout=window)
        _start_window(key, window)
        return 1


def give_back(scope, ident):
    """Uncounts one attempt of the running window (none running: nothing to give back)."""
    key = _key(scope, ident)
    try:
        if cache.get(key, 0) > 0:
            cache.decr(key)
    except ValueError:  # expired meanwhile: its window is over anyway
        pass


def retry_after(scope, ident):
    """Seconds until the running window ends (0 when none is running)."""
    key = _key(scope, ident)
    # One round trip: the Bot API asks on every request, for its X-RateLimit-Reset header.
    found = cache.get_many([key, f"{key}:end"])
    end = found.get(f"{key}:end")
    if end is None or not found.get(key):
        return 0
    return max(0, math.ceil(end - time.time()))


def reset(scope, ident):
    key = _key(scope, ident)
    cache.delete_many([key, f"{key}:end"])


def in_words(seconds):
    """A wait as a person reads it, rounded up: "1 minute", "5 minutes", "3 hours"."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 90:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{math.ceil(minutes / 60)} hours"


def client_ip(request):
    # Behind a proxy, set it to overwrite REMOTE_ADDR; we never trust
    # X-Forwarded-For from the client itself.
    return request.META.get("REMOTE_ADDR", "unknown")
