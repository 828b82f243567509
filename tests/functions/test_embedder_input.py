"""Embedders read only what their model reads: a 512 KiB chunk costs what an 8 KiB one does."""

from __future__ import annotations

import tracemalloc

import httpx

from shared.providers.gemini_client import GeminiClient
from shared.providers.gemini_embedder import GeminiEmbedder
from shared.providers.local_embedder import shared_local_embedder
from tests.fixtures.gemini import FakeGemini

LINE = "resultado = calcular(entrada, opciones)  # un comentario que ocupa sitio\n"


def code_block(size: int) -> str:
    """A fenced code block of ``size`` characters: the chunker never cuts one."""
    body = (LINE * (size // len(LINE) + 1))[: size - 8]
    return f"```\n{body}\n```"


def test_the_local_embedder_memory_does_not_grow_with_an_oversized_text() -> None:
    """Peak memory embedding one 512 KiB code block is that of an 8 KiB one (it was ~60x)."""
    embedder = shared_local_embedder()
    embedder.embed_documents(["carga el modelo antes de medir"])

    def peak(size: int) -> int:
        text = code_block(size)
        tracemalloc.start()
        try:
            vectors = embedder.embed_documents([text])
            assert vectors.shape == (1, 512)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(512 * 1024) < 1.5 * peak(8 * 1024)


def test_the_gemini_embedder_sends_at_most_what_the_model_reads(gemini: FakeGemini) -> None:
    """A 512 KiB text travels as at most 2,048 tokens' worth (6,144 chars), in both calls."""
    with httpx.Client(timeout=30) as http:
        client = GeminiClient(api_key="AIzaFAKE-key-0123", base_url=gemini.url, http=http)
        embedder = GeminiEmbedder(client, "gemini-embedding-001")
        text = code_block(512 * 1024)
        embedder.embed_documents([text, "corto"])
        embedder.embed_query(text)
    batch, single = gemini.requests
    sent = [r["content"]["parts"][0]["text"] for r in batch.body["requests"]]
    sent.append(single.body["content"]["parts"][0]["text"])
    assert [len(t) for t in sent] == [6144, len("corto"), 6144]
    assert sent[0] == text[:6144]
