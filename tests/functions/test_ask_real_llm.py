"""``ask`` end to end with a real language model: llama.cpp's server (``xllamacpp``) serving
Gemma 3 270M, both installed from the registry, behind ``BIBLIOTECA_LLM=openai`` and a
real ``biblioteca serve`` (the ``llm_server`` fixture, tests/fixtures/llm.py).

A 270M model answers loosely: these tests check the path, not the prose — what the
service does with whatever the model writes (the stream's order, citations kept only
when they name a source, the follow-up read before it is searched, the triage verdict
parsed or refused), and that the model was really the one asked.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from shared.api.models import AskRequest, Turn
from shared.providers.answerers import LOCAL_MODEL
from shared.providers.model_http import ModelHttp
from shared.providers.openai_generator import OpenAIDialect, OpenAIGenerator
from shared.providers.sse import events
from shared.services.ask import standalone_question
from tests.fixtures.llm import LlmServer
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ServerFactory

pytestmark = pytest.mark.llm_server
PAGE = {
    "content": "# Pool\n\nLa variable `DB_POOL_SIZE` fija las conexiones abiertas del pool. "
    "Su valor por defecto es diez.\n\n## Reintentos\n\nLa variable `DB_RETRIES` fija cuántas "
    "veces se reintenta una consulta fallida.",
    "front_matter": {"title": "Pool de conexiones", "type": "runbook"},
}
_CITATION = re.compile(r"\[(\d{1,3})\]")
TIMEOUT = httpx.Timeout(120.0)


@pytest.fixture
def served(env: dict[str, str], serve: ServerFactory, llm_server: LlmServer) -> tuple[str, str]:
    """A ``biblioteca serve`` answering with the real model, and the page it holds."""
    url = serve(llm_server.env)
    created = httpx.post(
        f"{url}/wiki_create",
        json=PAGE,
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=TIMEOUT,
    )
    assert created.status_code == 201, created.text
    return url, str(created.json()["slug"])


def test_a_real_model_answers_whole_and_streamed_through_serve(
    served: tuple[str, str], llm_server: LlmServer
) -> None:
    """The model's answer comes back whole and as a stream (sources, deltas, done, in that
    order), attributed to the model, every kept citation naming a source."""
    url, slug = served
    question = {"question": "¿Qué fija DB_POOL_SIZE?"}
    whole = httpx.post(f"{url}/ask", json=question, timeout=TIMEOUT)
    assert whole.status_code == 200, whole.text
    body = whole.json()
    assert body["model"] != LOCAL_MODEL  # what the model server says it is
    assert body["answer"].strip()
    assert body["sources"][0]["slug"] == slug
    assert all(1 <= int(n) <= len(body["sources"]) for n in _CITATION.findall(body["answer"]))
    streamed = httpx.post(f"{url}/ask", json={**question, "stream": True}, timeout=TIMEOUT)
    got = [(name, json.loads(data)) for name, data in events(streamed.text.splitlines())]
    names = [name for name, _ in got]
    assert (names[0], names[-1]) == ("sources", "done"), names
    assert "delta" in names
    assert got[0][1]["sources"][0]["slug"] == slug


def test_a_follow_up_is_condensed_by_the_real_model_before_it_is_searched(
    served: tuple[str, str], llm_server: LlmServer
) -> None:
    """With a history the model rewrites the follow-up (the service keeps its reply only
    when it is usable), and the answer is found for what it asks."""
    url, slug = served
    history = [{"question": "¿Qué fija DB_POOL_SIZE?", "answer": "Las conexiones del pool."}]
    reply = httpx.post(
        f"{url}/ask",
        json={"question": "¿Y cuál es su valor por defecto?", "history": history},
        timeout=TIMEOUT,
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["sources"][0]["slug"] == slug
    calls = ModelHttp(OpenAIDialect(None), llm_server.base_url, httpx.Client(timeout=TIMEOUT))
    generator = OpenAIGenerator(calls, llm_server.model)
    request = AskRequest(
        question="¿Y cuál es su valor por defecto?",
        history=[Turn(question=t["question"], answer=t["answer"]) for t in history],
    )
    rewritten = standalone_question(request, generator)
    assert rewritten.strip()
    assert rewritten != request.question  # the model's rewrite, or the offline rule's


def test_the_real_model_triages_an_answer_for_the_archive(
    served: tuple[str, str], llm_server: LlmServer
) -> None:
    """An answer that passes the local rules reaches the model's triage; its verdict is
    parsed (archived) or, doubtful or unparseable, a refusal named triage:model."""
    url, slug = served
    answer = (
        "La variable `DB_POOL_SIZE` fija las conexiones abiertas del pool de la base de "
        "datos, y su valor por defecto es diez [1]. Si el servicio abre más conexiones de "
        "las que el servidor admite, baja ese valor; si las peticiones esperan una conexión "
        "libre, súbelo poco a poco y mide. La variable `DB_RETRIES` fija cuántas veces se "
        "reintenta una consulta que falló [2]: con un valor alto, un fallo de la base de "
        "datos tarda más en verse, con uno bajo un corte breve hace fallar la petición. "
        "Ambas se leen al arrancar el servicio, así que un cambio pide reiniciarlo."
    )
    reply = httpx.post(
        f"{url}/archive",
        json={
            "question": "¿Cómo ajusto el pool de conexiones y los reintentos?",
            "answer": answer,
            "sources": [slug, "runbook—otro"],
        },
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=TIMEOUT,
    )
    assert reply.status_code == 200, reply.text
    reason = reply.json()["reason"]
    assert reason == "archived" or reason.startswith("triage:model"), reply.json()
