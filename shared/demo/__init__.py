"""The demo wiki bundled with the package (its pages in ``pages/``): loaded by ``make run``
into an empty store."""

from __future__ import annotations

from pathlib import Path

from shared.ports import Embedder, Store
from shared.services.importer import import_directory

DEMO_DIR = Path(__file__).parent / "pages"


def load_demo_if_empty(store: Store, embedder: Embedder) -> int:
    """Import the demo pages when the store has none; returns how many were created."""
    if store.pages.list():
        return 0
    return import_directory(DEMO_DIR, store, embedder).created
