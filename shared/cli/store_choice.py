"""Which store a command uses: one rule for every command, applied by ``main`` first.

1. ``BIBLIOTECA_DATA_DIR`` or ``BIBLIOTECA_STORE`` set: the store they name.
2. Otherwise, a live ``biblioteca serve`` started from this folder (``make run``, whose
   demo lives in ``.biblioteca/demo``): the store it serves, found through its note in
   ``./.biblioteca/serve.json`` (``shared/cli/serve_state.py``).
3. Otherwise the default store, ``./.biblioteca``.

The store line on stderr says which rule picked it. A command that may write, run on a
store a live serve serves, then asks that serve to rebuild its site: the same incremental
rebuild a write it served itself triggers, so ``import`` or ``accept`` reach the site.
``serve`` itself never follows another serve: it serves what its own variables name.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from shared.cli import serve_state
from shared.config import get_settings

# The variables whose presence means the caller chose the store.
_CHOOSING = ("BIBLIOTECA_DATA_DIR", "BIBLIOTECA_STORE")
# Commands that never change what the site shows: no rebuild after them. Any other
# command (one added later included) asks for one; an incremental build of an unchanged
# store rebuilds nothing.
_READS = frozenset(
    {"ask", "diff", "drafts", "freshness", "gaps", "history", "show", "status", "mcp"}
)
# Commands that decide their store themselves.
_OWN_STORE = frozenset({"serve"})


@dataclass(frozen=True)
class Choice:
    """The store a command uses and why, and the live serve that serves it (if any)."""

    why: str
    served: serve_state.Served | None = None


def choose(command: str) -> Choice:
    """Apply the rule: set the environment of a followed serve's store, say why."""
    named = [name for name in _CHOOSING if os.environ.get(name, "").strip()]
    if command in _OWN_STORE:
        return Choice("")  # serve's note says what it serves, --demo included
    if named:
        return Choice("named by " + " and ".join(named), _serving_it())
    followed = serve_state.served_at(serve_state.DEFAULT_DIR / serve_state.STATE)
    if followed is None:
        return Choice("the default: no biblioteca serve is running from this folder")
    for name, value in followed.environ.items():
        os.environ[name] = value
    get_settings.cache_clear()
    return Choice(
        f"the running serve's, at {followed.url} (pid {followed.pid}); "
        "set BIBLIOTECA_DATA_DIR to use another",
        followed,
    )


def _serving_it() -> serve_state.Served | None:
    """The live serve of the store the variables name (its own note), if any."""
    from shared.cli.store_note import describe

    settings = get_settings()
    served = serve_state.served_at(serve_state.state_path(settings))
    return served if served is not None and served.store == describe(settings) else None


def after(command: str, choice: Choice, status: int) -> None:
    """After a command that may have written to a served store: ask for its rebuild."""
    if choice.served is None or command in _READS or command in _OWN_STORE:
        return
    if status not in (0, 1):  # 1: some items failed, the others were written
        return
    why_not = serve_state.ask_rebuild(choice.served)
    if why_not is None:
        print(
            f"biblioteca: the serve at {choice.served.url} rebuilds its site (about two seconds)",
            file=sys.stderr,
        )
    else:
        print(
            f"biblioteca: the serve at {choice.served.url} was not asked to rebuild: "
            f"{why_not}; run biblioteca rebuild",
            file=sys.stderr,
        )
