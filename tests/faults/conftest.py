"""The fault tests' fixtures live in tests/faults/support.py, which tests/e2e/faults/ (the
fault tests that watch a page in Chromium) shares."""

from tests.faults.support import own_redis, secret_key, stack  # noqa: F401 (fixtures)
