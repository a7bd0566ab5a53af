"""Fault tests that watch a page in Chromium through their fault: the processes come from
tests/faults/support.py (shared with tests/faults/), the browser from tests/e2e/conftest.py.

These tests need PostgreSQL and Redis (DATABASE_URL, REDIS_URL) and Debian's Chromium; they
skip only when one of those is absent. `.ci/run` provides them all.
"""

from tests.browser_support import PATIENCE_MS
from tests.faults import support
from tests.faults.support import own_redis, secret_key, stack  # noqa: F401 (fixtures)


def page_for(browser, base_url, user, context=None):
    """A page logged in as `user` (a new browser context unless `context` is given)."""
    if context is None:
        context = browser.new_context(viewport={"width": 1100, "height": 850})
        context.add_cookies(
            [{"name": "sessionid", "value": support.session_cookie(user), "url": base_url}]
        )
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    return page
