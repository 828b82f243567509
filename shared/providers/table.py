"""The model providers, one table per kind: a new provider is one entry here.

``BIBLIOTECA_EMBEDDER`` names an entry of ``EMBEDDERS``, ``BIBLIOTECA_LLM`` one of
``GENERATORS`` (``shared.config`` spells the same names as its types; a unit test keeps
the two equal). Each entry says the name its output is recorded under — known without
building anything, so unchanged chunks keep their vectors and a metadata-only write needs
no key — and how to build it. A provider's module is imported only when it is built: a
function configured for the local models never loads httpx or the Gemini client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shared.config import Settings
from shared.ports import Embedder, Generator

if TYPE_CHECKING:
    import httpx

    from shared.providers.gemini_client import GeminiClient

Http = Callable[[], "httpx.Client"]  # the process's one HTTP client, built on first use


@dataclass(frozen=True, slots=True)
class EmbedderProvider:
    name: str  # the value of BIBLIOTECA_EMBEDDER
    recorded_as: Callable[[Settings], str]  # the name its vectors are stored under
    build: Callable[[Settings, Http], Embedder]


@dataclass(frozen=True, slots=True)
class GeneratorProvider:
    name: str  # the value of BIBLIOTECA_LLM
    answerer: Callable[[Settings], str]  # who writes the answers, for their provenance
    build: Callable[[Settings, Http], Generator | None]  # None: the offline answerer


def _gemini_client(settings: Settings, http: Http) -> GeminiClient:
    """A Gemini API client; ``NotConfigured`` naming GOOGLE_AI_API_KEY when it is unset."""
    from shared.providers.gemini_client import GeminiClient

    return GeminiClient(
        api_key=settings.require_gemini_key(), base_url=settings.gemini_base_url, http=http()
    )


def _local_embedder_name(settings: Settings) -> str:
    from shared.providers.local_embedder import LocalEmbedder

    return LocalEmbedder.name


def _local_embedder(settings: Settings, http: Http) -> Embedder:
    from shared.providers.local_embedder import shared_local_embedder

    return shared_local_embedder(settings.model_cache_dir)


def _gemini_embedder_name(settings: Settings) -> str:
    from shared.providers.gemini_embedder import DIMENSIONS

    return f"gemini:{settings.gemini_embed_model.removeprefix('models/')}@{DIMENSIONS}"


def _gemini_embedder(settings: Settings, http: Http) -> Embedder:
    from shared.providers.gemini_embedder import GeminiEmbedder

    return GeminiEmbedder(_gemini_client(settings, http), settings.gemini_embed_model)


def _local_answerer(settings: Settings) -> str:
    from shared.providers.answerers import LOCAL_MODEL

    return LOCAL_MODEL


def _no_generator(settings: Settings, http: Http) -> Generator | None:
    return None


def _gemini_generator(settings: Settings, http: Http) -> Generator:
    from shared.providers.gemini_generator import GeminiGenerator
    from shared.providers.model_slots import Bounded, shared_slots

    gemini = GeminiGenerator(_gemini_client(settings, http), settings.gemini_model)
    return Bounded(gemini, shared_slots(), "the Gemini API")


def _openai_generator(settings: Settings, http: Http) -> Generator:
    from shared.providers.model_http import ModelHttp
    from shared.providers.model_slots import Bounded, shared_slots
    from shared.providers.openai_generator import OpenAIDialect, OpenAIGenerator

    base_url, model = settings.require_llm_endpoint()
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    generator = OpenAIGenerator(ModelHttp(OpenAIDialect(key), base_url, http()), model)
    return Bounded(generator, shared_slots(), "the language model server")


EMBEDDERS: dict[str, EmbedderProvider] = {
    p.name: p
    for p in (
        EmbedderProvider("local", _local_embedder_name, _local_embedder),
        EmbedderProvider("gemini", _gemini_embedder_name, _gemini_embedder),
    )
}
GENERATORS: dict[str, GeneratorProvider] = {
    p.name: p
    for p in (
        GeneratorProvider("local", _local_answerer, _no_generator),
        GeneratorProvider(
            "gemini",
            lambda s: f"gemini:{s.gemini_model.removeprefix('models/')}",
            _gemini_generator,
        ),
        GeneratorProvider(
            "openai", lambda s: f"openai:{s.llm_model or 'unconfigured'}", _openai_generator
        ),
    )
}
