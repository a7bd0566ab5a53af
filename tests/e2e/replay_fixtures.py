"""Fixtures for the replay browser test (kept apart from tests/e2e/conftest.py)."""

import pytest

from tests.browser_support import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, require_chromium


# Registered under its own name, so that a test that imports it and takes `replay_page`
# does not shadow the import.
@pytest.fixture(name="replay_page")
def replay_page_fixture():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(PATIENCE_MS)
        yield page
        browser.close()
