"""Debian's chromium driven by Playwright for the Workbench's browser tests (never
Playwright's own browser download): importing this skips the test module, with the reason,
where chromium or the playwright package is missing (``.ci/run`` installs both)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip(
        f"browser test skipped: {CHROMIUM} is missing (apt-get install chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser test skipped: pip install playwright"
)


@contextmanager
def browser_page() -> Iterator[Any]:
    """A fresh page of a headless chromium, closed afterwards."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page()
            page.set_default_timeout(15_000)
            yield page
        finally:
            browser.close()


@contextmanager
def signed_in(server: str, token: str, start: str = "/workbench/login") -> Iterator[Any]:
    """A page signed in to the Workbench with the person's ``token`` from ``start``."""
    with browser_page() as page:
        page.goto(f"{server}{start}")
        page.get_by_label("Workbench token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/workbench")
        yield page
