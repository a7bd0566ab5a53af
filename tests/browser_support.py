"""Shared set-up for browser tests: Playwright drives Debian's /usr/bin/chromium."""

import os
import shutil

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def require_chromium():
    if not shutil.which(CHROMIUM):
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
    # Playwright's sync API runs an event loop in this thread; the test's own
    # ORM calls are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def chromium_browser():
    """Debian's Chromium under Playwright, for one test (conftests import this fixture)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
