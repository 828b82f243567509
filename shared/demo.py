"""The demo wiki bundled with the package: loaded by ``make run`` into an empty store."""

from __future__ import annotations

from pathlib import Path

from shared.config import get_settings
from shared.providers.factory import embedder_for
from shared.services.importer import import_directory
from shared.store import open_store

DEMO_DIR = Path(__file__).parent / "demo"


def load_demo_if_empty() -> int:
    """Import the demo pages when the store has none; returns how many were created."""
    settings = get_settings()
    store = open_store(settings)
    if store.pages.list():
        return 0
    return import_directory(DEMO_DIR, store, embedder_for(settings)).created
