"""ask keeps each help-mode answer's trace under the answer_id it returns."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from shared.bootstrap import Wiring, install
from shared.config import get_settings
from shared.http import RequestContext
from shared.records import AnswerTrace
from shared.store.sqlite import SqliteStore
from shared.store.sqlite.feedback import SWEEP_BATCH
from tests.fixtures.embedder import HashingEmbedder
from tests.service.conftest import Call, handler

DAY = timedelta(days=1)

PAGE = {
    "slug": "runbook—pool",
    "content": "# Pool de conexiones\n\nLa variable `DB_POOL_SIZE` fija cuántas conexiones "
    "abiertas mantiene el servicio con la base de datos.",
    "front_matter": {"title": "Pool de conexiones", "type": "runbook", "status": "active"},
}


def test_a_help_answer_carries_an_answer_id_whose_trace_names_page_versions(
    call: Call, store: SqliteStore
) -> None:
    """The trace holds the question, the answer, each source with its version, and the model."""
    assert call("wiki_create", PAGE)[0] == 201
    status, reply = call(
        "ask", {"question": "¿Cuántas conexiones abiertas mantiene el pool de conexiones?"}
    )
    assert status == 200, reply

    trace = store.traces.get(reply["answer_id"])

    assert trace is not None
    assert trace.question == "¿Cuántas conexiones abiertas mantiene el pool de conexiones?"
    assert trace.answer == reply["answer"]
    assert trace.model == reply["model"]
    assert trace.confidence == reply["confidence"]
    assert [(s.slug, s.version) for s in trace.sources] == [("runbook—pool", 1)]
    assert trace.sources[0].score == reply["sources"][0]["score"]
    assert trace.expires_at - trace.created_at == timedelta(days=90)


def test_answer_ids_are_distinct_and_tutor_answers_have_none(call: Call) -> None:
    """Every help answer gets its own id; a tutor answer has no trace to rate."""
    first = call("ask", {"question": "hola"})[1]
    second = call("ask", {"question": "hola"})[1]
    tutor = call("ask", {"question": "hola", "mode": "tutor"})[1]
    assert first["answer_id"] != second["answer_id"]
    assert len(first["answer_id"]) == 32
    assert "answer_id" not in tutor


def test_the_retention_follows_biblioteca_trace_days(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_TRACE_DAYS sets how long a trace is kept."""
    monkeypatch.setenv("BIBLIOTECA_TRACE_DAYS", "30")
    get_settings.cache_clear()
    install(Wiring(get_settings(), store=store, embedder=HashingEmbedder()))
    context = RequestContext(settings=get_settings(), authorized=False, client_id="c", origin=None)

    _, reply = handler("ask")({"question": "hola"}, context)

    trace = store.traces.get(reply["answer_id"])
    assert trace is not None
    assert trace.expires_at - trace.created_at == timedelta(days=30)


def test_a_trace_that_cannot_be_kept_does_not_cost_the_answer(
    call: Call,
    store: SqliteStore,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A failing trace write is logged; the answer still goes out with its answer_id."""

    def broken(trace: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store.traces, "save", broken)
    with caplog.at_level(logging.ERROR):
        status, reply = call("ask", {"question": "hola"})
    assert status == 200
    assert reply["answer_id"]
    assert "could not keep the trace" in caplog.text


def test_saving_a_trace_sweeps_a_bounded_number_of_expired_ones(store: SqliteStore) -> None:
    """SQLite has no TTL: each save deletes at most SWEEP_BATCH expired traces."""
    past = datetime.now(UTC) - timedelta(days=1)
    with store.db.write() as conn:
        conn.executemany(
            "INSERT INTO answer_traces (answer_id, expires_at, data) VALUES (?, ?, '{}')",
            [(f"old{i}", past.isoformat()) for i in range(SWEEP_BATCH + 50)],
        )
    now = datetime.now(UTC)

    store.traces.save(AnswerTrace("new", "q", "a", (), "m", "high", "ask", now, now + DAY))

    def count() -> int:
        return int(
            store.db.connection().execute("SELECT COUNT(*) FROM answer_traces").fetchone()[0]
        )

    assert count() == 50 + 1
    store.traces.save(AnswerTrace("new2", "q", "a", (), "m", "high", "ask", now, now + DAY))
    assert count() == 2
