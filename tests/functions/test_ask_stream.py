"""ask with "stream": true, BIBLIOTECA_LLM=openai and follow-ups, through the function."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import reset, reset_limits
from shared.config import get_settings
from shared.providers.sse import events
from tests.fixtures.gemini import FakeGemini
from tests.fixtures.openai import FakeOpenAI, Reply

Client = Callable[[str], Any]
PAGES = [
    {
        "slug": "runbook—pool",
        "content": "# Pool\n\nLa variable `DB_POOL_SIZE` fija las conexiones abiertas del pool. "
        "El valor por defecto es diez. Se cambia en el entorno del servicio.",
        "front_matter": {"title": "Pool de conexiones", "type": "runbook"},
    },
    {
        "slug": "guide—cookies",
        "content": "# Sesiones\n\nLa sesión del usuario se guarda en una cookie firmada. "
        "La cookie caduca a los treinta días.",
        "front_matter": {"title": "Sesiones con cookies", "type": "guide"},
    },
]
QUESTION = "¿Qué fija la variable DB_POOL_SIZE del pool?"


@pytest.fixture(autouse=True)
def fresh_limits() -> None:
    reset_limits()


def load(client: Client, auth: dict[str, str]) -> None:
    for page in PAGES:
        assert client("wiki_create").post("/", json=page, headers=auth).status_code == 201


def streamed(reply: Any) -> list[tuple[str, Any]]:
    text = reply.get_data(as_text=True)
    return [(name, json.loads(data)) for name, data in events(text.splitlines())]


def use_openai(monkeypatch: pytest.MonkeyPatch, url: str | None, model: str | None = "m") -> None:
    monkeypatch.setenv("BIBLIOTECA_LLM", "openai")
    for name, value in (("BIBLIOTECA_LLM_BASE_URL", url), ("BIBLIOTECA_LLM_MODEL", model)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    reset()


def test_a_streamed_answer_is_sources_then_deltas_then_the_whole_body(
    client: Client, auth: dict[str, str]
) -> None:
    """Offline: sources first, the answer sentence by sentence, done = the JSON answer."""
    load(client, auth)
    whole = client("ask").post("/", json={"question": QUESTION}).get_json()
    reply = client("ask").post("/", json={"question": QUESTION, "stream": True})
    assert reply.status_code == 200
    assert reply.mimetype == "text/event-stream"
    assert reply.headers["Cache-Control"].startswith("no-cache")
    assert reply.headers["X-Accel-Buffering"] == "no"
    got = streamed(reply)
    names = [name for name, _ in got]
    assert names[0] == "sources"
    assert names[-1] == "done"
    assert set(names[1:-1]) == {"delta"}
    assert len(names) > 3  # more than one sentence: handed over in pieces
    done = got[-1][1]
    assert "".join(d["text"] for n, d in got if n == "delta") == done["answer"]
    assert got[0][1]["sources"] == done["sources"]
    ignore = {"answer_id", "duration_ms", "timings"}
    assert {k: v for k, v in done.items() if k not in ignore} == {
        k: v for k, v in whole.items() if k not in ignore
    }


def test_a_streamed_answer_keeps_its_trace_for_feedback(
    client: Client, auth: dict[str, str]
) -> None:
    """The done body's answer_id takes feedback, as without streaming."""
    load(client, auth)
    done = streamed(client("ask").post("/", json={"question": QUESTION, "stream": True}))[-1][1]
    vote = {"answer_id": done["answer_id"], "rating": "up"}
    assert client("feedback").post("/", json=vote).status_code == 200


def test_errors_before_the_stream_are_the_usual_json(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad field, and a model that is not configured, answer JSON errors, not events."""
    reply = client("ask").post("/", json={"question": " ", "stream": True})
    assert (reply.status_code, reply.mimetype) == (400, "application/json")
    use_openai(monkeypatch, None)
    reply = client("ask").post("/", json={"question": "x", "mode": "tutor", "stream": True})
    assert (reply.status_code, reply.get_json()["code"]) == (503, "not_configured")
    assert "BIBLIOTECA_LLM_BASE_URL" in reply.get_json()["error"]
    use_openai(monkeypatch, "http://127.0.0.1:9/v1", model=None)
    reply = client("ask").post("/", json={"question": "x", "mode": "tutor"})
    assert "BIBLIOTECA_LLM_MODEL" in reply.get_json()["error"]


def test_openai_answers_with_sources_and_checked_citations(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_LLM=openai: the prompt's numbered sources; citations of no source dropped."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    openai_server.answer = "La variable fija las conexiones [1][7]. Usa `make_pool_bigger()`."
    body = client("ask").post("/", json={"question": QUESTION}).get_json()
    assert body["model"] == "fake-llm"
    assert "[7]" not in body["answer"]
    assert "[1]" in body["answer"]
    assert body["unsupported"] == ["make_pool_bigger"]
    prompt = openai_server.requests[-1].body["messages"][1]["content"]
    assert '<source n="1" page="runbook—pool"' in prompt
    assert "ONLY the numbered sources" in openai_server.requests[-1].body["messages"][0]["content"]


def test_openai_answer_citing_nothing_is_hedged(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer that cites none of its sources is low confidence and opens with the hedge."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    openai_server.answer = "Es un valor de configuración."
    body = client("ask").post("/", json={"question": QUESTION}).get_json()
    assert body["confidence"] == "low"
    assert body["answer"].startswith("La wiki no parece tratar esto directamente")


def test_openai_streams_token_by_token(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's chunks reach the caller as deltas; done holds the checked answer."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    got = streamed(client("ask").post("/", json={"question": QUESTION, "stream": True}))
    deltas = [d["text"] for n, d in got if n == "delta"]
    assert deltas == openai_server.pieces()
    assert got[-1][0] == "done"
    assert got[-1][1]["answer"] == openai_server.answer
    assert openai_server.requests[-1].body["stream"] is True


def test_openai_failures_map_to_the_contract(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Down: 503 upstream_unavailable; 4xx: 502 upstream_error — streamed or not, as JSON."""
    load(client, auth)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    use_openai(monkeypatch, f"http://127.0.0.1:{port}/v1")
    for stream in (False, True):
        reply = client("ask").post("/", json={"question": QUESTION, "stream": stream})
        assert (reply.status_code, reply.get_json()["code"]) == (503, "upstream_unavailable")
    use_openai(monkeypatch, openai_server.url)
    openai_server.script(Reply(status=400, body={"error": {"message": "bad"}}))
    reply = client("ask").post("/", json={"question": QUESTION, "stream": True})
    assert (reply.status_code, reply.get_json()["code"]) == (502, "upstream_error")


def test_a_failure_mid_stream_is_an_error_event(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once text went out, a broken upstream ends the stream with an error event."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    piece = {"choices": [{"delta": {"content": "Empieza "}, "finish_reason": None}]}
    openai_server.script(Reply(events=[piece, "not json"]))
    got = streamed(client("ask").post("/", json={"question": QUESTION, "stream": True}))
    assert [n for n, _ in got] == ["sources", "delta", "error"]
    assert got[-1][1]["code"] == "upstream_error"


def test_the_triage_judge_runs_on_the_openai_model(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """archive's model gate asks the same server; its refusal is triage:model."""
    use_openai(monkeypatch, openai_server.url)
    openai_server.answer = "not json at all"
    answer = ("La variable DB_POOL_SIZE fija las conexiones abiertas del pool [1]. " * 12).strip()
    body = {
        "question": "¿Qué fija DB_POOL_SIZE?",
        "answer": answer + " Véase también [2].",
        "sources": ["runbook—pool", "guide—cookies"],
    }
    load(client, auth)
    decision = client("archive").post("/", json=body, headers=auth).get_json()
    assert decision["reason"] == "triage:model"
    system = openai_server.requests[-1].body["messages"][0]["content"]
    assert system.startswith("You are the strict archivist")


def test_a_follow_up_is_read_with_its_history_offline(client: Client, auth: dict[str, str]) -> None:
    """ "¿y por defecto?" after a pool question finds the pool page; the trace keeps the thread."""
    load(client, auth)
    history = [{"question": QUESTION, "answer": "Fija las conexiones [1]."}]
    body = client("ask").post("/", json={"question": "¿y su valor?", "history": history}).get_json()
    assert body["sources"][0]["slug"] == "runbook—pool"
    assert body["standalone_question"].startswith("¿y su valor? (")
    assert "DB_POOL_SIZE" in body["standalone_question"]
    from shared.bootstrap import wiring

    trace = wiring().store.traces.get(body["answer_id"])
    assert trace is not None
    assert trace.question == "¿y su valor?"
    assert trace.thread == (QUESTION,)
    assert trace.standalone == body["standalone_question"]


def test_with_a_model_a_follow_up_is_condensed_first(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The condense step asks the model for the standalone question, then retrieves with it."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    openai_server.script(
        Reply(
            body={
                "choices": [
                    {
                        "message": {"content": "¿Cuánto dura la cookie de sesión?"},
                        "finish_reason": "stop",
                    }
                ]
            }
        )
    )
    history = [{"question": "¿Dónde se guarda la sesión?", "answer": "En una cookie [1]."}]
    body = (
        client("ask").post("/", json={"question": "¿y cuánto dura?", "history": history}).get_json()
    )
    condense = openai_server.requests[0].body["messages"]
    assert "<turn>" in condense[1]["content"]
    assert "¿Dónde se guarda la sesión?" in condense[1]["content"]
    assert body["standalone_question"] == "¿Cuánto dura la cookie de sesión?"
    assert body["sources"][0]["slug"] == "guide—cookies"


@pytest.mark.parametrize(
    ("history", "field"),
    [
        ([{"question": ""}], "history[0].question"),
        ([{"question": "a"}, {"question": "b", "answer": 3}], "history[1].answer"),
        ([{"question": "a"}] * 7, "history"),
        ("a", "history"),
        ([{"question": "x" * 2001}], "history[0].question"),
    ],
)
def test_history_is_checked_at_its_fields(client: Client, history: object, field: str) -> None:
    """At most 6 turns, each within the usual limits; errors name history[i].<field>."""
    reply = client("ask").post("/", json={"question": "¿y?", "history": history})
    assert (reply.status_code, reply.get_json()["field"]) == (400, field)


def test_gemini_streams_through_ask(
    client: Client, auth: dict[str, str], gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_LLM=gemini with stream: streamGenerateContent's pieces as deltas."""
    load(client, auth)
    monkeypatch.setenv("GOOGLE_AI_API_KEY", "AIzaFAKE-stream-ask-0123456789")
    monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    get_settings.cache_clear()
    reset()
    got = streamed(client("ask").post("/", json={"question": QUESTION, "stream": True}))
    assert len([n for n, _ in got if n == "delta"]) > 3
    assert got[-1][1]["answer"] == gemini.answer
    assert got[-1][1]["model"] == "gemini-fake"


def test_a_key_the_model_spells_across_two_deltas_is_redacted(
    client: Client, auth: dict[str, str], openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registered key the model streams in two chunks reaches the caller as [redacted],
    never whole or in halves (was: each delta scrubbed alone, so a split key passed)."""
    key = "sk-live-0123456789abcdef"
    load(client, auth)
    monkeypatch.setenv("BIBLIOTECA_LLM_API_KEY", key)
    use_openai(monkeypatch, openai_server.url)

    def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
        delta = {"content": text} if text else {}
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    half = len(key) // 2
    openai_server.script(
        Reply(
            events=[
                chunk(f"La clave es {key[:half]}"),
                chunk(f"{key[half:]} [1]."),
                chunk("", "stop"),
                "[DONE]",
            ]
        )
    )
    reply = client("ask").post("/", json={"question": QUESTION, "stream": True})
    text = reply.get_data(as_text=True)
    got = streamed(reply)
    deltas = "".join(d["text"] for n, d in got if n == "delta")
    assert deltas.startswith("La clave es [redacted]")
    assert key[:half] not in text
    assert key[half:] not in text
    assert [n for n, _ in got][-1] == "done"


def test_a_stream_is_logged_when_it_ends_with_how_it_ended(
    client: Client,
    auth: dict[str, str],
    openai_server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The request line of a stream is written once its last event is out: an upstream
    failing mid-answer logs ERROR with its code and the stream's whole duration (was:
    logged 200 INFO at the first byte, whatever happened after)."""
    load(client, auth)
    use_openai(monkeypatch, openai_server.url)
    openai_server.token_delay_s = 0.3
    piece = {"choices": [{"delta": {"content": "Empieza "}, "finish_reason": None}]}
    openai_server.script(Reply(events=[piece, piece, "not json"]))
    capfd.readouterr()
    reply = client("ask").post("/", json={"question": QUESTION, "stream": True}, buffered=False)
    before = _request_lines(capfd.readouterr().out)
    assert [n for n, _ in streamed(reply)][-1] == "error"
    after = _request_lines(capfd.readouterr().out)
    assert before == []
    assert len(after) == 1
    line = after[0]
    assert (line["severity"], line["code"], line["httpRequest"]["status"]) == (
        "ERROR",
        "upstream_error",
        200,
    )
    assert line["duration_ms"] >= 500


def _request_lines(out: str) -> list[dict[str, Any]]:
    lines = [json.loads(t) for t in out.splitlines() if t.startswith("{")]
    return [line for line in lines if "httpRequest" in line]
