"""archive with BIBLIOTECA_LLM=gemini: the triage model (a fake local API), HTTP, both stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import reset
from shared.config import get_settings
from tests.fixtures.gemini import FakeGemini, Scripted
from tests.functions.test_archive import answer, question, sources

Client = Callable[[str], Any]
KEY = "AIzaFAKE-archive-key-0123456789"


@pytest.fixture
def archive(
    store_env: str,
    client: Client,
    auth: dict[str, str],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., Any]:
    """POST /archive with the Gemini triage configured against the fake API."""
    del store_env
    monkeypatch.setenv("GOOGLE_AI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    get_settings.cache_clear()
    reset()

    def post(q: str, a: str, **extra: Any) -> Any:
        body = {"question": q, "answer": a, "sources": sources(), **extra}
        reply = client("archive").post("/", json=body, headers=auth)
        assert reply.status_code == 200, reply.get_json()
        return reply.get_json()

    return post


def triage_calls(gemini: FakeGemini) -> list[Any]:
    return [r for r in gemini.requests if r.path.endswith(":generateContent")]


def test_the_model_says_yes(archive: Callable[..., Any], gemini: FakeGemini) -> None:
    """A strict JSON yes archives; the model saw the strict prompt and the question."""
    gemini.answer = '{"archive": true, "reason": "complete and grounded"}'
    q = question()
    decision = archive(q, answer())
    assert (decision["archived"], decision["reason"]) == (True, "archived")
    sent = triage_calls(gemini)[0].body
    assert "strict archivist" in sent["systemInstruction"]["parts"][0]["text"]
    assert q in sent["contents"][0]["parts"][0]["text"]


@pytest.mark.parametrize(
    "reply",
    [
        '{"archive": false, "reason": "leaves the second part open"}',
        "Sí, es una buena respuesta.",
        '{"archive": "true", "reason": "ok"}',
    ],
)
def test_a_no_or_an_unparseable_reply_is_triage_model(
    archive: Callable[..., Any], gemini: FakeGemini, reply: str
) -> None:
    """The model's no, prose, or a wrongly typed field: archived false, triage:model."""
    gemini.answer = reply
    decision = archive(question(), answer())
    assert (decision["archived"], decision["reason"]) == (False, "triage:model")


def test_a_model_outage_means_no_not_an_error(
    archive: Callable[..., Any], gemini: FakeGemini
) -> None:
    """Doubt means no: an unavailable model is a 200 with triage:model."""
    gemini.script(*[Scripted(status=503, body={"error": {"code": 503}})] * 6)
    decision = archive(question(), answer())
    assert (decision["archived"], decision["reason"]) == (False, "triage:model")


def test_cheap_refusals_never_call_the_model(
    archive: Callable[..., Any], gemini: FakeGemini
) -> None:
    """Local rules and the duplicate check decide before any model call."""
    gemini.answer = '{"archive": true, "reason": "ok"}'
    assert archive(question(), "Corto.")["reason"] == "triage:short"
    assert archive("¿Hay docs sobre CORS?", answer())["reason"] == "pre-filter:meta-question"
    assert triage_calls(gemini) == []
    q, a = question(), answer()
    assert archive(q, a)["reason"] == "archived"
    assert archive(q, a)["reason"] == "duplicate"
    assert len(triage_calls(gemini)) == 1
