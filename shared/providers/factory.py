"""Choosing providers from the settings; each is built once per process, lazily."""

from __future__ import annotations

from shared.config import Settings
from shared.errors import NotConfigured
from shared.ports import Embedder
from shared.providers.local_embedder import shared_local_embedder


def embedder_for(settings: Settings) -> Embedder:
    """The configured embedder (``BIBLIOTECA_EMBEDDER``)."""
    if settings.embedder == "local":
        return shared_local_embedder()
    raise NotConfigured("BIBLIOTECA_EMBEDDER=gemini is not available in this build")
