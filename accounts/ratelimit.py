"""Fixed-window rate limits kept in the cache (Redis when configured)."""

import hashlib

from django.core.cache import cache


def _key(scope, ident):
    digest = hashlib.sha256(str(ident).lower().encode()).hexdigest()[:32]
    return f"rl:{scope}:{digest}"


def count(scope, ident):
    return cache.get(_key(scope, ident), 0)


def hit(scope, ident, window):
    """Counts one attempt and returns the attempts so far in this window."""
    key = _key(scope, ident)
    # add() only sets a missing key, so the window starts at the first attempt.
    cache.add(key, 0, timeout=window)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add() and incr()
        cache.set(key, 1, timeout=window)
        return 1


def reset(scope, ident):
    cache.delete(_key(scope, ident))


def client_ip(request):
    # Behind a proxy, set it to overwrite REMOTE_ADDR; we never trust
    # X-Forwarded-For from the client itself.
    return request.META.get("REMOTE_ADDR", "unknown")
