"""A slow model cannot hold every thread of `biblioteca serve`: model calls have a bounded
number of slots, a call past them is a fast 503, and other functions keep being answered."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import httpx

from tests.fixtures.openai import FakeOpenAI
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ServerFactory

THREADS = 4  # so 2 model slots
SLOW_S = 5.0


def _ask(url: str, results: list[tuple[int, float]]) -> None:
    """One anonymous question; (status, when its answer came back)."""
    try:
        reply = httpx.post(
            f"{url}/ask", json={"question": "¿qué es un pool?", "mode": "tutor"}, timeout=40
        )
        results.append((reply.status_code, time.monotonic()))
    except httpx.HTTPError:
        results.append((0, time.monotonic()))


def test_slow_model_calls_leave_threads_for_everything_else(
    env: dict[str, str], serve: ServerFactory, openai_server: FakeOpenAI
) -> None:
    """2 × threads anonymous questions to a model that takes 5 s: two hold the two model
    slots; the others are a 503, and a write and the OpenAPI document are answered, all
    before the slow ones are (before: every thread waited on the model)."""
    slow = replace(openai_server.default({}), delay_s=SLOW_S)  # a whole answer, late
    openai_server.script(*(slow for _ in range(2 * THREADS)))
    url = serve(
        {
            "THREADS": str(THREADS),
            "BIBLIOTECA_LLM": "openai",
            "BIBLIOTECA_LLM_BASE_URL": openai_server.url,
            "BIBLIOTECA_LLM_MODEL": "m",
        }
    )
    headers = {"Authorization": f"Bearer {TOKEN}"}

    def write(title: str) -> httpx.Response:
        page = {
            "content": "# Hilos\n\nUna página escrita mientras el modelo tarda.",
            "front_matter": {"title": title, "type": "guide"},
        }
        return httpx.post(f"{url}/wiki_create", json=page, headers=headers, timeout=30)

    assert write("Antes").status_code == 201  # the embedder is loaded before the clock runs
    results: list[tuple[int, float]] = []
    askers = [threading.Thread(target=_ask, args=(url, results)) for _ in range(2 * THREADS)]
    for asker in askers:
        asker.start()
    try:
        time.sleep(1.5)  # every question is in: two hold the slots, the rest were refused
        assert httpx.get(f"{url}/openapi.json", timeout=30).status_code == 200
        written = write("Hilos libres")
        assert written.status_code == 201, written.text
        written_at = time.monotonic()
    finally:
        for asker in askers:
            asker.join(timeout=40)
    refused = [at for status, at in results if status == 503]
    answered = [at for status, at in results if status == 200]
    assert len(answered) == 2, results
    assert len(refused) == 2 * THREADS - 2, results
    assert max(refused) < min(answered)
    assert written_at < min(answered)
