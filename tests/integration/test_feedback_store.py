"""AnswerTraces and FeedbackStore on both stores: traces with page versions, expiry, and
feedback that a repeat replaces."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from shared.records import AnswerTrace, FeedbackRecord, PageRecord, TracedSource


def _page(slug: str, version: int) -> PageRecord:
    now = datetime.now(UTC)
    return PageRecord(
        slug=slug,
        front_matter={"title": slug, "type": "guide", "status": "active"},
        content="# x\n\ntexto",
        version=version,
        created_at=now,
        updated_at=now,
    )


def _trace(answer_id: str, *slugs: str, days: float = 30) -> AnswerTrace:
    now = datetime.now(UTC)
    return AnswerTrace(
        answer_id=answer_id,
        question="¿Qué controla DB_POOL_SIZE?",
        answer="El tamaño del pool [1].",
        sources=tuple(TracedSource(slug=s, score=0.5) for s in slugs),
        model="local:extractive",
        confidence="high",
        origin="ask",
        created_at=now,
        expires_at=now + timedelta(days=days),
    )


def test_a_trace_keeps_each_cited_page_version_as_stored_when_saved(store: Any) -> None:
    """The trace names the version each source had when the answer was given (None: gone)."""
    store.pages.create(_page("guide—pool", 1), [])
    store.pages.update(_page("guide—pool", 2), None, expected_version=1)
    store.traces.save(_trace("a1", "guide—pool", "guide—gone"))
    store.pages.update(_page("guide—pool", 3), None, expected_version=2)

    kept = store.traces.get("a1")

    assert kept is not None
    assert [(s.slug, s.version) for s in kept.sources] == [
        ("guide—pool", 2),
        ("guide—gone", None),
    ]
    assert kept.question == "¿Qué controla DB_POOL_SIZE?"
    assert kept.model == "local:extractive"
    assert store.traces.get("unknown") is None


def test_an_expired_trace_is_never_returned(store: Any) -> None:
    """Past expires_at a trace reads as unknown, before any sweep or TTL deletes it."""
    store.traces.save(_trace("old", days=-1))
    store.traces.save(_trace("new", days=30))
    assert store.traces.get("old") is None
    assert store.traces.get("new") is not None


def _vote(id_: str, at: datetime, rating: str = "down", trace: AnswerTrace | None = None) -> Any:
    return FeedbackRecord(
        id=id_,
        rating=rating,  # type: ignore[arg-type]
        reason="outdated" if rating == "down" else None,
        comment="ya no existe",
        answer_id=None if trace is None else trace.answer_id,
        slug=None if trace is not None else "guide—pool",
        question=None,
        origin="http",
        at=at,
        trace=trace,
    )


def test_feedback_lists_newest_first_since_a_moment_and_a_repeat_replaces(store: Any) -> None:
    """Same id: the vote is replaced (counted once); ``since`` keeps recent items only."""
    now = datetime.now(UTC)
    trace = _trace("a1", "guide—pool")
    store.feedback.record(_vote("f1", now - timedelta(days=10)))
    store.feedback.record(_vote("f2", now - timedelta(days=1), "up", trace))
    store.feedback.record(_vote("f2", now, "down", trace))  # the same client changes its mind

    every = store.feedback.list()
    recent = store.feedback.list(since=now - timedelta(days=7))

    assert [f.id for f in every] == ["f2", "f1"]
    assert [(f.id, f.rating) for f in recent] == [("f2", "down")]
    assert recent[0].trace is not None
    assert recent[0].trace.sources[0].slug == "guide—pool"
    assert recent[0].reason == "outdated"
    assert recent[0].at.tzinfo is not None


def test_firestore_keeps_expires_at_as_a_timestamp_for_the_ttl_policy(
    store: Any, store_env: str
) -> None:
    """Firestore's TTL deletes only documents whose expires_at is a timestamp."""
    if store_env != "firestore":
        return  # SQLite sweeps on save (tests/service/test_ask_trace.py)
    trace = _trace("ttl", days=30)
    store.traces.save(trace)
    raw = store.db.collection("answer_traces").document("ttl").get().to_dict()
    assert isinstance(raw["expires_at"], datetime)
    assert raw["expires_at"] == trace.expires_at


def test_a_vote_past_its_days_is_never_listed(store: Any) -> None:
    """Votes are kept BIBLIOTECA_TRACE_DAYS, like traces: past them, not listed, whatever
    ``since`` asks for, even before the sweep (SQLite) or the TTL policy (Firestore)."""
    store.feedback.retention_days = 30
    now = datetime.now(UTC)
    store.feedback.record(_vote("viejo", now - timedelta(days=31)))
    store.feedback.record(_vote("nuevo", now - timedelta(days=29)))
    assert [f.id for f in store.feedback.list()] == ["nuevo"]
    assert [f.id for f in store.feedback.list(since=now - timedelta(days=400))] == ["nuevo"]


def test_sqlite_each_vote_sweeps_a_bounded_batch_of_expired_ones(
    store: Any, store_env: str
) -> None:
    """250 votes past their days: each new vote deletes at most SWEEP_BATCH of them."""
    if store_env != "sqlite":
        return  # Firestore: the TTL policy on expire_at (the next test)
    from shared.store.sqlite import feedback as sqlite_feedback

    old = (datetime.now(UTC) - timedelta(days=store.feedback.retention_days + 1)).isoformat()
    with store.db.write() as conn:
        conn.executemany(
            "INSERT INTO feedback (id, at, data) VALUES (?, ?, '{}')",
            [(f"old-{i}", old) for i in range(250)],
        )
    count = "SELECT COUNT(*) FROM feedback"
    store.feedback.record(_vote("f1", datetime.now(UTC)))
    assert store.db.connection().execute(count).fetchone()[0] == 251 - sqlite_feedback.SWEEP_BATCH
    for i in range(2, 5):
        store.feedback.record(_vote(f"f{i}", datetime.now(UTC)))
    assert store.db.connection().execute(count).fetchone()[0] == 4  # only the kept ones


def test_firestore_each_vote_carries_its_ttl_field(store: Any, store_env: str) -> None:
    """expire_at is the vote's time plus the retention, a timestamp the TTL policy reads."""
    if store_env != "firestore":
        return  # SQLite sweeps on each vote (the test above)
    store.feedback.retention_days = 45
    at = datetime.now(UTC)
    store.feedback.record(_vote("ttl", at))
    raw = store.db.collection("feedback").document("ttl").get().to_dict()
    assert isinstance(raw["expire_at"], datetime)
    assert raw["expire_at"] - raw["at"] == timedelta(days=45)
