"""Choosing providers from the settings. The heavy parts (the local model, the HTTP pool)
are built once per process, lazily; the Gemini wrappers around them are cheap per call."""

from __future__ import annotations

import threading

import httpx

from shared.config import Settings
from shared.ports import Answerer, Embedder, Generator
from shared.providers.answerers import LocalAnswerer, ModelAnswerer
from shared.providers.gemini_client import DEFAULT_DEADLINE_S, GeminiClient
from shared.providers.gemini_embedder import DIMENSIONS, GeminiEmbedder
from shared.providers.gemini_generator import GeminiGenerator
from shared.providers.local_embedder import shared_local_embedder

_http: httpx.Client | None = None
_lock = threading.Lock()


def http_client() -> httpx.Client:
    """One pooled HTTP client per process (connections to the API are reused)."""
    global _http
    with _lock:
        if _http is None:
            _http = httpx.Client(timeout=DEFAULT_DEADLINE_S, follow_redirects=False)
        return _http


def gemini_client(settings: Settings) -> GeminiClient:
    """A client for the Gemini API; ``NotConfigured`` naming GOOGLE_AI_API_KEY if it is unset."""
    return GeminiClient(
        api_key=settings.require_gemini_key(),
        base_url=settings.gemini_base_url,
        http=http_client(),
    )


def embedder_for(settings: Settings) -> Embedder:
    """The configured embedder (``BIBLIOTECA_EMBEDDER``)."""
    if settings.embedder == "gemini":
        return GeminiEmbedder(gemini_client(settings), settings.gemini_embed_model)
    return shared_local_embedder()


def embedder_name(settings: Settings) -> str:
    """The name the configured embedder records with its vectors, without building it."""
    if settings.embedder == "gemini":
        model = settings.gemini_embed_model.removeprefix("models/")
        return f"gemini:{model}@{DIMENSIONS}"
    return shared_local_embedder().name


def generator_for(settings: Settings) -> Generator | None:
    """The configured language model (``BIBLIOTECA_LLM=gemini``), or None when offline."""
    if settings.llm == "gemini":
        return GeminiGenerator(gemini_client(settings), settings.gemini_model)
    return None


def answerer_for(settings: Settings) -> Answerer:
    """Who writes ``ask``'s answers: the model when one is configured, else extractive."""
    generator = generator_for(settings)
    return LocalAnswerer() if generator is None else ModelAnswerer(generator)
