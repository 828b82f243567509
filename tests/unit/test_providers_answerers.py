"""Answerers, the provider factory, the local embedder and the rate limit."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from shared.bootstrap import build_embedder, embedder_name, wiring
from shared.config import load_settings
from shared.errors import NotConfigured, RateLimited
from shared.providers.answerers import LocalAnswerer, ModelAnswerer
from shared.providers.local_embedder import shared_local_embedder
from shared.records import Generation, Passage
from shared.services.rate_limit import SlidingWindow

PASSAGE = Passage(1, "runbook—pool", "Pool", "Ajustes", "El pool abre diez conexiones.", 0.5)


@dataclass
class RecordingGenerator:
    """A Generator that returns a fixed reply and keeps what it was asked."""

    reply: Generation
    name: str = "fake-model"
    calls: list[tuple[str, str]] = field(default_factory=list)

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        self.calls.append((system, prompt))
        return self.reply


def test_model_answerer_is_not_called_without_sources() -> None:
    """Help mode with nothing relevant: the plain 'not found' answer, no model call."""
    generator = RecordingGenerator(Generation(text="x", model="m"))
    answer = ModelAnswerer(generator).answer("¿Qué es X?", [], mode="help")
    assert generator.calls == []
    assert "No encontré" in answer.text


def test_model_answerer_uses_the_tutor_prompt_without_sources() -> None:
    """Tutor mode: the tutor system prompt and only the question."""
    generator = RecordingGenerator(Generation(text="Explicación", model="m"))
    answer = ModelAnswerer(generator).answer("¿Qué es REST?", [PASSAGE], mode="tutor")
    system, prompt = generator.calls[0]
    assert "tutor" in system
    assert "<source" not in prompt
    assert answer.text == "Explicación"


def test_local_answerer_is_honest_about_its_model_and_tutor_mode() -> None:
    """model is local-extractive; tutor mode says a model is needed."""
    local = LocalAnswerer()
    assert local.model == "local-extractive"
    assert "[1]" in local.answer("¿Cuántas conexiones abre el pool?", [PASSAGE], mode="help").text
    assert "BIBLIOTECA_LLM" in local.answer("What is REST?", [], mode="tutor").text


def test_the_wiring_needs_the_key_only_for_gemini() -> None:
    """local needs nothing; gemini without GOOGLE_AI_API_KEY is NotConfigured naming it."""
    assert isinstance(wiring(load_settings({})).answerer(), LocalAnswerer)
    with pytest.raises(NotConfigured, match="GOOGLE_AI_API_KEY"):
        wiring(load_settings({"BIBLIOTECA_LLM": "gemini"})).answerer()
    with pytest.raises(NotConfigured, match="GOOGLE_AI_API_KEY"):
        build_embedder(load_settings({"BIBLIOTECA_EMBEDDER": "gemini"}))
    settings = load_settings({"BIBLIOTECA_EMBEDDER": "gemini", "GOOGLE_AI_API_KEY": "k" * 20})
    assert embedder_name(settings) == build_embedder(settings).name
    assert wiring(settings).embedder.name == build_embedder(settings).name


def test_the_lazy_embedder_asks_for_its_key_only_when_it_embeds() -> None:
    """The wired embedder has its name at once; the missing key surfaces on the first text."""
    embedder = wiring(load_settings({"BIBLIOTECA_EMBEDDER": "gemini"})).embedder
    assert embedder.name.startswith("gemini:")
    with pytest.raises(NotConfigured, match="GOOGLE_AI_API_KEY"):
        embedder.embed_query("hola")


@pytest.mark.slow
def test_local_embedder_separates_related_from_unrelated_across_languages() -> None:
    """USE-multilingual: unit 512-d vectors; a translation is closer than an unrelated text."""
    embedder = shared_local_embedder()
    question = embedder.embed_query("How do I upload a file?")
    related, unrelated = embedder.embed_documents(
        ["Cómo subir un archivo al servidor", "La receta tradicional de la paella"]
    )
    assert question.shape == (512,)
    assert abs(float(np.linalg.norm(question)) - 1.0) < 1e-5
    assert float(question @ related) > float(question @ unrelated) + 0.2


def test_sliding_window_limits_each_client_and_says_when_to_retry() -> None:
    """Two per minute: the third is refused with Retry-After; another client is free."""
    now = [1000.0]
    window = SlidingWindow(2, 60, clock=lambda: now[0])
    window.check("a")
    now[0] += 10
    window.check("a")
    with pytest.raises(RateLimited) as caught:
        window.check("a")
    assert caught.value.retry_after == 50
    window.check("b")
    now[0] += 50
    window.check("a")  # the first hit left the window


def test_the_provider_tables_name_exactly_the_values_the_settings_accept() -> None:
    """A provider is one table entry: BIBLIOTECA_LLM and BIBLIOTECA_EMBEDDER accept exactly
    the names of shared.providers.table, and each entry knows its recorded name unbuilt."""
    from typing import get_args

    from shared.config import Settings
    from shared.providers.table import EMBEDDERS, GENERATORS

    assert set(get_args(Settings.model_fields["llm"].annotation)) == set(GENERATORS)
    assert set(get_args(Settings.model_fields["embedder"].annotation)) == set(EMBEDDERS)
    settings = load_settings({"BIBLIOTECA_LLM_MODEL": "m"})
    assert [GENERATORS[n].answerer(settings) for n in ("gemini", "openai")] == [
        "gemini:gemini-2.5-flash",
        "openai:m",
    ]
