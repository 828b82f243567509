"""One line on stderr naming the store a command uses, and a warning when it is empty.

A newcomer who runs a command from another folder, or forgets ``BIBLIOTECA_DATA_DIR``,
gets a new empty store silently; this says where the store is before anything else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from shared.config import Settings
from shared.errors import BibliotecaError

# Commands that only write pages, for which an empty store is the normal start.
_FILLING = {"import", "index-code"}
# Commands that keep running when the store cannot be read (each request says why).
_SERVERS = {"serve", "mcp"}


def describe(settings: Settings) -> str:
    """``SQLite at /path/biblioteca.sqlite3`` or ``Firestore project p (emulator at h)``."""
    if settings.store == "firestore":
        project = settings.google_cloud_project or "(GOOGLE_CLOUD_PROJECT not set)"
        emulator = os.environ.get("FIRESTORE_EMULATOR_HOST", "").strip()
        return f"Firestore project {project}" + (f" (emulator at {emulator})" if emulator else "")
    from shared.store.sqlite import FILENAME

    return f"SQLite at {(settings.data_dir / FILENAME).resolve()}"


def announce(
    command: str,
    args: Any,
    settings: Settings,
    open_store: Callable[[], Any],
    why: str = "",
) -> None:
    """Print the store, its page count and why it is this one; warn when it holds no page."""
    where = describe(settings)
    because = f"; {why}" if why else ""
    try:
        count = open_store().pages.count()
    except BibliotecaError as exc:
        if command not in _SERVERS:
            raise  # the command would fail on it too: said once, by ``main``
        # A server starts anyway and answers each request with the store's error.
        print(
            f"biblioteca: store: {where} (not readable: {exc.message}){because}",
            file=sys.stderr,
        )
        return
    noun = "page" if count == 1 else "pages"
    print(f"biblioteca: store: {where} ({count} {noun}){because}", file=sys.stderr)
    if count == 0 and command not in _FILLING and not getattr(args, "demo", False):
        print(
            "biblioteca: warning: the store is empty: import pages first "
            "(biblioteca import DOCS_DIR --type guide), or set BIBLIOTECA_DATA_DIR "
            "(or BIBLIOTECA_STORE/GOOGLE_CLOUD_PROJECT) to the store you meant",
            file=sys.stderr,
        )
