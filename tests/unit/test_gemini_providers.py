"""The Gemini embedder and generator against a local server speaking Gemini's JSON."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from shared.errors import NotConfigured, Unavailable, UpstreamError
from shared.providers.answerers import ModelAnswerer
from shared.providers.gemini_client import GeminiClient, retry_delay
from shared.providers.gemini_embedder import GeminiEmbedder
from shared.providers.gemini_generator import GeminiGenerator
from shared.records import Passage
from tests.fixtures.gemini import FakeGemini, Scripted

KEY = "AIzaFAKE-key-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_key_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Every test here also checks that no captured log line carries the key."""
    caplog.set_level(logging.DEBUG)
    yield
    assert KEY not in caplog.text


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:
        yield client


def client_for(
    fake: FakeGemini, http: httpx.Client, *, deadline_s: float = 10.0, sleeps: list[float]
) -> GeminiClient:
    return GeminiClient(
        api_key=KEY,
        base_url=fake.url,
        http=http,
        deadline_s=deadline_s,
        sleep=sleeps.append,
        jitter=lambda: 0.0,
    )


def retry_body(delay: str) -> dict[str, object]:
    return {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ],
        }
    }


def test_query_embedding_is_a_unit_vector_sent_with_the_key_in_a_header(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """embedContent: RETRIEVAL_QUERY, 768 dims, key only in x-goog-api-key, unit result."""
    embedder = GeminiEmbedder(client_for(gemini, http, sleeps=[]), "gemini-embedding-001")
    vector = embedder.embed_query("¿Cómo subo archivos?")
    assert vector.shape == (768,)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    seen = gemini.requests[0]
    assert seen.path == "/v1beta/models/gemini-embedding-001:embedContent"
    assert KEY not in seen.path
    assert seen.headers["x-goog-api-key"] == KEY
    assert seen.body["taskType"] == "RETRIEVAL_QUERY"
    assert seen.body["outputDimensionality"] == 768
    assert embedder.name == "gemini:gemini-embedding-001@768"


def test_documents_are_embedded_in_batches_of_at_most_100(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """250 texts -> batchEmbedContents calls of 100, 100 and 50, as RETRIEVAL_DOCUMENT."""
    embedder = GeminiEmbedder(client_for(gemini, http, sleeps=[]), "gemini-embedding-001")
    matrix = embedder.embed_documents([f"texto número {i}" for i in range(250)])
    assert matrix.shape == (250, 768)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    sizes = [len(r.body["requests"]) for r in gemini.requests]
    assert sizes == [100, 100, 50]
    assert all(r.path.endswith(":batchEmbedContents") for r in gemini.requests)
    assert {q["taskType"] for r in gemini.requests for q in r.body["requests"]} == {
        "RETRIEVAL_DOCUMENT"
    }


def test_429_with_retry_delay_waits_that_long_then_succeeds(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """A 429 whose RetryInfo says 2s is retried after 2 s (it fits the deadline)."""
    gemini.script(Scripted(status=429, body=retry_body("2s")))
    sleeps: list[float] = []
    generator = GeminiGenerator(client_for(gemini, http, sleeps=sleeps), "gemini-2.5-flash")
    generation = generator.generate("system", "prompt")
    assert generation.finish == "stop"
    assert generation.text.endswith("[1].")
    assert sleeps == [2.0]
    assert len(gemini.requests) == 2


def test_429_whose_retry_delay_exceeds_the_deadline_fails_at_once(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """A retryDelay longer than the time left is not waited for: 503 upstream_unavailable."""
    gemini.script(Scripted(status=429, body=retry_body("60s")))
    sleeps: list[float] = []
    generator = GeminiGenerator(
        client_for(gemini, http, deadline_s=5, sleeps=sleeps), "gemini-2.5-flash"
    )
    with pytest.raises(Unavailable) as caught:
        generator.generate("system", "prompt")
    assert caught.value.status == 503
    assert sleeps == []
    assert len(gemini.requests) == 1


def test_503_then_success_is_retried_with_backoff(gemini: FakeGemini, http: httpx.Client) -> None:
    """A 503 is retried after a jittered exponential pause."""
    gemini.script(Scripted(status=503, body={"error": {"code": 503, "message": "overloaded"}}))
    sleeps: list[float] = []
    generator = GeminiGenerator(client_for(gemini, http, sleeps=sleeps), "gemini-2.5-flash")
    assert generator.generate("system", "prompt").finish == "stop"
    assert len(gemini.requests) == 2
    assert sleeps == [0.25]  # 0.5 s base * (0.5 + jitter 0)


def test_persistent_503_gives_up_after_the_attempts(gemini: FakeGemini, http: httpx.Client) -> None:
    """Four 503s in a row: 503 upstream_unavailable, no fifth attempt."""
    gemini.script(*[Scripted(status=503, body={"error": {"message": "down"}})] * 5)
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    with pytest.raises(Unavailable):
        generator.generate("system", "prompt")
    assert len(gemini.requests) == 4


def test_400_is_not_retried_and_is_a_502(gemini: FakeGemini, http: httpx.Client) -> None:
    """A 400 is the request's fault: one attempt, 502 upstream_error with the API's message."""
    gemini.script(Scripted(status=400, body={"error": {"code": 400, "message": "bad field x"}}))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    with pytest.raises(UpstreamError) as caught:
        generator.generate("system", "prompt")
    assert caught.value.status == 502
    assert "bad field x" in caught.value.quoted
    assert len(gemini.requests) == 1


def test_a_refused_key_is_not_configured_naming_the_variable(
    gemini: FakeGemini, http: httpx.Client
) -> None:
    """API_KEY_INVALID: 503 not_configured naming GOOGLE_AI_API_KEY, without the key itself."""
    body = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
            ],
        }
    }
    gemini.script(Scripted(status=400, body=body))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    with pytest.raises(NotConfigured) as caught:
        generator.generate("system", "prompt")
    assert "GOOGLE_AI_API_KEY" in caught.value.message
    assert KEY not in caught.value.message


def test_a_blocked_prompt_becomes_a_plain_answer(gemini: FakeGemini, http: httpx.Client) -> None:
    """promptFeedback.blockReason: no crash; the answerer says the model declined."""
    gemini.script(Scripted(body={"promptFeedback": {"blockReason": "SAFETY"}}))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    passage = Passage(1, "guide—x", "X", "Intro", "texto", 0.5)
    answer = ModelAnswerer(generator).answer("How do I do X?", [passage], mode="help")
    assert answer.finish == "blocked"
    assert "declined" in answer.text


@pytest.mark.parametrize(
    ("reason", "finish", "text"),
    [
        ("MAX_TOKENS", "max_tokens", "Una respuesta a medi"),
        ("SAFETY", "safety", None),
        ("RECITATION", "recitation", None),
    ],
)
def test_finish_reasons_are_reported_not_raised(
    gemini: FakeGemini, http: httpx.Client, reason: str, finish: str, text: str | None
) -> None:
    """MAX_TOKENS keeps the partial text; SAFETY and RECITATION without content are notes."""
    candidate: dict[str, object] = {"finishReason": reason}
    if text is not None:
        candidate["content"] = {"role": "model", "parts": [{"text": text}]}
    gemini.script(Scripted(body={"candidates": [candidate]}))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    answer = ModelAnswerer(generator).answer("¿Qué es X?", [], mode="tutor")
    assert answer.finish == finish
    if text is not None:
        assert answer.text.startswith(text)
    assert "(" in answer.text or "modelo" in answer.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"candidates": [{"content": {"parts": [{"text": "hola"',  # cut JSON
        b"<html>502 Bad Gateway</html>",  # not JSON at all
        {"candidates": []},  # no candidate
        {"candidates": [{"content": {"parts": [{"text": 42}]}, "finishReason": "STOP"}]},
        {"unexpected": True},
    ],
    ids=["cut-json", "html", "no-candidate", "text-not-string", "unknown-shape"],
)
def test_malformed_replies_are_502(gemini: FakeGemini, http: httpx.Client, body: object) -> None:
    """A 200 whose body is not a generateContent reply is a 502 upstream_error."""
    gemini.script(Scripted(body=body))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    with pytest.raises(UpstreamError):
        generator.generate("system", "prompt")


def test_a_truncated_body_is_a_502(gemini: FakeGemini, http: httpx.Client) -> None:
    """The connection closes before the announced Content-Length: 502, not a hang."""
    gemini.script(Scripted(body=b'{"candidates": []', length=400))
    generator = GeminiGenerator(client_for(gemini, http, sleeps=[]), "gemini-2.5-flash")
    with pytest.raises(UpstreamError):
        generator.generate("system", "prompt")


def test_an_embedding_of_the_wrong_size_is_a_502(gemini: FakeGemini, http: httpx.Client) -> None:
    """Fewer than 768 numbers is nonsense, not a vector to store."""
    gemini.script(Scripted(body={"embedding": {"values": [0.1, 0.2]}}))
    embedder = GeminiEmbedder(client_for(gemini, http, sleeps=[]), "gemini-embedding-001")
    with pytest.raises(UpstreamError):
        embedder.embed_query("hola")


def test_a_slow_drip_hits_the_overall_deadline(gemini: FakeGemini, http: httpx.Client) -> None:
    """A server sending one byte every 50 ms never trips a read timeout; the deadline does."""
    gemini.script(Scripted(body={"candidates": [], "padding": "x" * 200}, drip_s=0.05))
    generator = GeminiGenerator(
        client_for(gemini, http, deadline_s=0.6, sleeps=[]), "gemini-2.5-flash"
    )
    started = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        generator.generate("system", "prompt")
    assert time.monotonic() - started < 3.0
    assert "in time" in caught.value.message


def test_an_unreachable_api_is_503(http: httpx.Client) -> None:
    """Nothing listening: 503 upstream_unavailable, from the transport error."""
    client = GeminiClient(
        api_key=KEY, base_url="http://127.0.0.1:9", http=http, sleep=lambda s: None
    )
    with pytest.raises(Unavailable) as caught:
        GeminiGenerator(client, "gemini-2.5-flash").generate("system", "prompt")
    assert isinstance(caught.value.__cause__, httpx.TransportError)


def test_retry_delay_reads_only_retry_info() -> None:
    """retryDelay comes from the RetryInfo detail, in seconds; anything else is None."""
    assert retry_delay(retry_body("26s")) == 26.0
    assert retry_delay(retry_body("0.5s")) == 0.5
    assert retry_delay({"error": {"details": [{"@type": "x.Help"}]}}) is None
    assert retry_delay("not a dict") is None
