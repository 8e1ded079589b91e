"""Headless Chromium for the page tests, through Playwright (no browser download: the system's
Chromium). ``page(url)`` yields a page that records console errors, page errors and every
request; requests to anything but the page's own file and its side folder (``report-data-*``
beside it) are aborted and recorded.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The Chromium binary itself (Debian's /usr/bin/chromium is a wrapper script)."""
    for candidate in ("/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser"):
        if Path(candidate).is_file():
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


def skip_without_browser() -> pytest.MarkDecorator:
    """Skip (with a message) where Chromium or Playwright is not installed."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return pytest.mark.skip(reason="playwright is not installed (pip install -e '.[test]')")
    if chromium_path() is None:
        return pytest.mark.skip(reason="no Chromium installed (apt-get install chromium)")
    return pytest.mark.browser


@dataclass
class Watched:
    """A page plus what it did."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    side_files: list[str] = field(default_factory=list)
    """The report's side files it read (``report-data-*/name``), in order."""


@contextmanager
def chromium() -> Iterator[Any]:
    """One headless Chromium for several pages (a module's tests share it: a launch takes
    seconds on a busy machine)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def page(url: str, width: int = 1300, height: int = 900, browser: Any = None) -> Iterator[Watched]:
    """Open ``url`` (a file:// URL) in headless Chromium (``browser``, or one launched for
    this page) with a ``width`` x ``height`` window and yield the watched page."""
    if browser is None:
        with chromium() as launched, page(url, width, height, launched) as w:
            yield w
        return
    own = url.split("#")[0]
    pg = browser.new_page(viewport={"width": width, "height": height})
    try:
        w = Watched(pg)
        pg.on("console", lambda m: w.console_errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: w.console_errors.append(str(e)))

        side = own.rsplit("/", 1)[0] + "/report-data-"

        def route(r: Any) -> None:
            if r.request.url.split("#")[0] == own:
                r.continue_()
            elif r.request.url.startswith(side):
                w.side_files.append("report-data-" + r.request.url[len(side) :])
                r.continue_()
            else:
                w.outside_requests.append(r.request.url)
                r.abort()

        pg.route("**/*", route)
        pg.goto(url)
        yield w
    finally:
        pg.close()
