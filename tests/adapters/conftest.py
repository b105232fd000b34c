"""A real headless Chromium for the browser tests (Debian's `chromium`, installed by
tasks.py), with every URL the page requests recorded."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, sync_playwright


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("this test needs Chromium: `python3 tasks.py test` installs it with apt")
    return found


@pytest.fixture
def browser_page() -> Iterator[tuple[Page, list[str]]]:
    """A page of a real headless Chromium, and the URLs it requested."""
    requested: list[str] = []
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page()
        page.on("request", lambda request: requested.append(request.url))
        try:
            yield page, requested
        finally:
            browser.close()
