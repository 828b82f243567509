"""Steps the widget's browser tests share: open it with the keyboard, ask, read the panel;
and the command line they prepare their wikis with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

# The caller's store and model variables, left out so a test's wiki is its own.
_ISOLATED = ("BIBLIOTECA_", "GEMINI_", "GOOGLE_AI_", "GOOGLE_CLOUD_PROJECT", "FIRESTORE_")


def isolated_env(data_dir: Path | str) -> dict[str, str]:
    """This process's environment without store or model settings, on ``data_dir``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_ISOLATED)}
    env["BIBLIOTECA_DATA_DIR"] = str(data_dir)
    return env


def run_cli(env: dict[str, str], *args: str) -> str:
    """``biblioteca ARGS`` in a process of its own; its stdout (a failure fails the test)."""
    done = subprocess.run(
        [sys.executable, "-m", "shared", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"biblioteca {' '.join(args)} failed:\n{done.stderr[-3000:]}"
    return done.stdout


LAUNCHER = ".bib-launcher"
PANEL = ".bib-panel"
INPUT = ".bib-input"
STATUS = ".bib-status"
ANSWER = ".bib-answer .bib-markdown"
# The answer once its stream has ended: a streamed answer shows its text as it arrives
# (``.bib-live``) and its sources only when ``done`` replaces it with the checked answer.
SETTLED_ANSWER = f"{ANSWER}:not(.bib-live)"
SOURCE_LINKS = ".bib-sources-list a"
MAX_TABS = 60


def focused_class(page: Any) -> str:
    return str(page.evaluate("document.activeElement ? document.activeElement.className : ''"))


def open_with_keyboard(page: Any) -> None:
    """Tab to the launcher (it is the page's last focusable element), press Enter."""
    page.wait_for_selector(LAUNCHER)
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if "bib-launcher" in focused_class(page):
            break
    else:
        raise AssertionError(f"Tab never reached the launcher in {MAX_TABS} presses")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{PANEL}[open]")
    assert "bib-input" in focused_class(page)


def ask(page: Any, question: str) -> None:
    """Type into the focused question box and send it with Enter."""
    page.keyboard.type(question)
    page.keyboard.press("Enter")


def status_text(page: Any) -> str:
    return str(page.locator(STATUS).inner_text()).strip()


def wait_for_status(page: Any, fragment: str) -> str:
    page.wait_for_function(
        "fragment => (document.querySelector('.bib-status') || {}).textContent.includes(fragment)",
        arg=fragment,
    )
    return status_text(page)


def search_for(page: Any, query: str) -> None:
    """Type ``query`` into the focused search box, key by key as a reader does, and wait
    for the results of the whole query: each keystroke runs a search, and an earlier
    one's results may show first (the list says which query it answers)."""
    page.keyboard.type(query)
    page.wait_for_function(
        "q => document.getElementById('search-results').dataset.query === q", arg=query
    )
