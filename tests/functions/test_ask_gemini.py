"""ask with the Gemini providers (a local fake API), reindex_required and `biblioteca reindex`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import open_store, reset, reset_limits
from shared.cli import main as cli
from shared.config import get_settings
from tests.fixtures.gemini import FakeGemini, Scripted

Client = Callable[[str], Any]
KEY = "AIzaFAKE-function-key-0123456789"
PAGE = {
    "slug": "runbook—pool",
    "content": "# Pool\n\nLa variable `DB_POOL_SIZE` fija las conexiones abiertas del pool.",
    "front_matter": {"title": "Pool", "type": "runbook"},
}
QUESTION = {"question": "¿Qué fija la variable DB_POOL_SIZE del pool?"}


@pytest.fixture(autouse=True)
def fresh_limits() -> None:
    reset_limits()


def use_gemini(monkeypatch: pytest.MonkeyPatch, gemini: FakeGemini, *, embedder: bool) -> None:
    monkeypatch.setenv("GOOGLE_AI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    if embedder:
        monkeypatch.setenv("BIBLIOTECA_EMBEDDER", "gemini")
    get_settings.cache_clear()
    reset()


def test_gemini_answer_over_local_index(
    store_env: str,
    client: Client,
    auth: dict[str, str],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """BIBLIOTECA_LLM=gemini: the model gets numbered, delimited sources; its text is the answer."""
    caplog.set_level(logging.DEBUG)
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    use_gemini(monkeypatch, gemini, embedder=False)
    reply = client("ask").post("/", json=QUESTION)
    body = reply.get_json()
    assert reply.status_code == 200, body
    assert body["answer"] == gemini.answer
    assert body["model"] == "gemini-fake"
    assert body["sources"][0]["slug"] == "runbook—pool"
    sent = gemini.requests[-1].body
    prompt = sent["contents"][0]["parts"][0]["text"]
    assert '<source n="1" page="runbook—pool"' in prompt
    assert "<question>" in prompt
    assert "ONLY the numbered sources" in sent["systemInstruction"]["parts"][0]["text"]
    assert KEY not in caplog.text


def test_gemini_outage_is_503_and_nonsense_is_502(
    env: dict[str, str], client: Client, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Upstream failures keep the error tree's statuses through HTTP."""
    use_gemini(monkeypatch, gemini, embedder=False)
    tutor = {"question": "¿Qué es un pool?", "mode": "tutor"}
    gemini.script(Scripted(status=400, body={"error": {"code": 400, "message": "bad"}}))
    assert client("ask").post("/", json=tutor).get_json()["code"] == "upstream_error"
    gemini.script(Scripted(body=b"not json"))
    reply = client("ask").post("/", json=tutor)
    assert (reply.status_code, reply.get_json()["code"]) == (502, "upstream_error")
    gemini.script(*[Scripted(status=503, body={"error": {"code": 503}})] * 4)
    reply = client("ask").post("/", json=tutor)
    assert (reply.status_code, reply.get_json()["code"]) == (503, "upstream_unavailable")


def test_other_embedder_needs_reindex_then_reindex_fixes_it(
    store_env: str,
    client: Client,
    auth: dict[str, str],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Pages embedded locally, embedder switched to gemini: 503 reindex_required until reindex."""
    assert client("wiki_create").post("/", json=PAGE, headers=auth).status_code == 201
    use_gemini(monkeypatch, gemini, embedder=True)
    reply = client("ask").post("/", json=QUESTION)
    assert reply.status_code == 503
    assert reply.get_json()["code"] == "reindex_required"
    assert "biblioteca reindex" in reply.get_json()["error"]

    assert cli(["reindex", "--json"]) == 0
    report = last_json(capsys.readouterr().out)
    assert report["reindexed"] == 1
    assert report["embedder"] == "gemini:gemini-embedding-001@768"
    store = open_store(get_settings())
    assert store.pages.get("runbook—pool").version == 1  # content unchanged: same version
    assert hybrid_embedders(store) == {"gemini:gemini-embedding-001@768"}

    reply = client("ask").post("/", json=QUESTION)
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["sources"][0]["slug"] == "runbook—pool"
    assert cli(["reindex", "--json"]) == 0
    assert last_json(capsys.readouterr().out)["unchanged"] == 1


def hybrid_embedders(store: Any) -> set[str]:
    return set(store.chunks.embedders())


def last_json(out: str) -> Any:
    """The command's --json report: the last indented object (log lines come before it)."""
    return json.loads(out[out.rindex("\n{\n") + 1 :] if not out.startswith("{\n") else out)
