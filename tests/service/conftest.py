"""The service tier: what a function does with a body, without HTTP and without servers.

``call(name, body)`` runs the function's own handler (``functions/<name>/main.py``: parse
the body with its request model, call its service) wired by ``shared.bootstrap`` to a
temporary SQLite store and the deterministic ``HashingEmbedder``, and answers
``(status, body)`` as the HTTP edge would map them. Validation tables live here;
the edge (tests/functions) checks each route and status once, on both stores.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import Wiring, install, reset, reset_limits
from shared.config import get_settings
from shared.errors import BibliotecaError
from shared.http import RequestContext
from shared.store.sqlite import SqliteStore
from tests.fixtures.embedder import HashingEmbedder

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
HANDLERS = {
    "wiki_create": "_create",
    "wiki_update": "_update",
    "ask": "_ask",
    "archive": "_archive",
    "index_code": "_index",
    "rebuild": "_rebuild",
    "feedback": "_feedback",
    "wiki_history": "_history",
}
Call = Callable[[str, Any], tuple[int, dict[str, Any]]]


@cache
def handler(name: str) -> Callable[[Any, RequestContext], tuple[int, dict[str, Any]]]:
    """The function's own handler, loaded from its main.py (functions are not a package)."""
    spec = importlib.util.spec_from_file_location(f"fn_{name}", FUNCTIONS / name / "main.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: Callable[[Any, RequestContext], tuple[int, dict[str, Any]]]
    found = getattr(module, HANDLERS[name])
    return found


@pytest.fixture
def store(env: dict[str, str], tmp_path: Path) -> Iterator[SqliteStore]:
    """A temporary SQLite store, wired with the deterministic embedder for this test."""
    settings = get_settings()
    reset_limits()  # the per-client budgets are per process: each test starts with its own
    opened = SqliteStore(tmp_path / "service")
    install(Wiring(settings, store=opened, embedder=HashingEmbedder()))
    yield opened
    reset()


@pytest.fixture
def call(store: SqliteStore) -> Call:
    """``call(name, body) -> (status, body)``, with write credentials."""
    settings = get_settings()
    context = RequestContext(
        settings=settings, authorized=True, client_id="tier", origin=None, actor="tier"
    )

    def run(name: str, body: Any) -> tuple[int, dict[str, Any]]:
        try:
            return handler(name)(body, context)
        except BibliotecaError as exc:  # as shared.http maps it
            return exc.status, exc.body()

    return run
