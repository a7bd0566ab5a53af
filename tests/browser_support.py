"""Shared set-up for browser tests: Playwright drives Debian's /usr/bin/chromium."""

import os
import shutil
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# How long a browser test waits for something it can see (an element, an event number on the
# page, a socket message, a row in the database): generous, since on a busy machine (a full
# run beside other work, load 8-12 on 2 cores) a push or a page load can take seconds. A wait
# ends as soon as its condition holds, so a long one costs nothing when all is well. No
# browser test waits a fixed time: what must not happen is checked once something shows
# that its moment has passed.
PATIENCE_MS = 30_000


def require_chromium():
    if not shutil.which(CHROMIUM):
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
    # Playwright's sync API runs an event loop in this thread; the test's own
    # ORM calls are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect

    expect.set_options(timeout=PATIENCE_MS)


def wait_until(check, what, timeout_ms=PATIENCE_MS):
    """Polls `check()` (the database, say) until it returns something true, and returns it;
    fails naming `what` after `timeout_ms`."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def chromium_browser():
    """Debian's Chromium under Playwright, for one test (conftests import this fixture)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
