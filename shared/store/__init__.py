"""Opening the configured store: SQLite (embedded, default) or Firestore."""

from __future__ import annotations

import threading

from shared.config import Settings
from shared.ports import Store

_opened: dict[tuple[str, str], Store] = {}
_lock = threading.Lock()


def open_store(settings: Settings) -> Store:
    """The store the settings name, opened once per process (clients are built lazily)."""
    key = (settings.store, settings.google_cloud_project or str(settings.data_dir.resolve()))
    with _lock:
        store = _opened.get(key)
        if store is None:
            store = _build(settings)
            _opened[key] = store
        return store


def forget_stores() -> None:
    """Drop the opened stores (tests that change the environment call this)."""
    with _lock:
        _opened.clear()


def _build(settings: Settings) -> Store:
    if settings.store == "firestore":
        from shared.store.firestore import FirestoreStore

        return FirestoreStore(project=settings.require_project())
    from shared.store.sqlite import SqliteStore

    return SqliteStore(settings.data_dir)
