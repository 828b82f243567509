"""Browser-tier fixtures: Debian's chromium driven by Playwright, and the servers it visits.

One browser for the tier (a cheap context per test); never ``playwright install``: the tests
use /usr/bin/chromium and skip (fail under CI=true) when it or Playwright is missing.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.browser.stub_ask import StubAsk
from tests.conftest import skip_or_fail

CHROMIUM = os.environ.get("BIBLIOTECA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, shared by the browser tests (closed after them)."""
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        skip_or_fail(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("playwright is not installed (pip install -r requirements-dev.txt)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context and page per test; page errors fail the test."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield tab
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="package")
def static_site() -> Iterator[Callable[[Path], str]]:
    """``static_site(folder) -> url``: a built site served by a plain static server, which
    follows the page folders' symbolic links into the pool as nginx does; one server per
    folder, all stopped after the tier."""
    running: dict[Path, tuple[ThreadingHTTPServer, threading.Thread]] = {}

    def serve(folder: Path) -> str:
        if folder not in running:
            handler = functools.partial(_Quiet, directory=str(folder))
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            running[folder] = (server, thread)
        return f"http://127.0.0.1:{running[folder][0].server_address[1]}/"

    try:
        yield serve
    finally:
        for server, thread in running.values():
            server.shutdown()
            server.server_close()
            thread.join()


@pytest.fixture(scope="package")
def stub_server() -> Iterator[StubAsk]:
    server = StubAsk().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def stub(stub_server: StubAsk) -> StubAsk:
    """The scripted ``/ask`` server, with an empty queue and request log."""
    stub_server.reset()
    return stub_server
