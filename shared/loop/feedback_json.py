"""Answer traces and feedback as JSON-ready dicts, and back: the one layout both stores
keep (as JSON text, as the event log does) and the one ``biblioteca feedback --json`` and
the curator report show.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypedDict

from shared.records import AnswerTrace, FeedbackReason, FeedbackRecord, Rating, TracedSource


class TracedSourceJson(TypedDict):
    slug: str
    score: float
    version: int | None


class TraceJson(TypedDict):
    """An answer's trace as kept (older records may lack a key: read with defaults)."""

    answer_id: str
    question: str
    answer: str
    sources: list[TracedSourceJson]
    model: str
    confidence: str
    origin: str
    created_at: str
    expires_at: str
    thread: list[str]
    standalone: str | None


class FeedbackJson(TypedDict):
    """A vote as kept and shown, its answer's trace inside."""

    id: str
    rating: Rating
    reason: FeedbackReason | None
    comment: str | None
    answer_id: str | None
    slug: str | None
    question: str | None
    origin: str
    at: str
    trace: TraceJson | None


def trace_dict(trace: AnswerTrace) -> TraceJson:
    return {
        "answer_id": trace.answer_id,
        "question": trace.question,
        "answer": trace.answer,
        "sources": [
            {"slug": s.slug, "score": s.score, "version": s.version} for s in trace.sources
        ],
        "model": trace.model,
        "confidence": trace.confidence,
        "origin": trace.origin,
        "created_at": trace.created_at.isoformat(),
        "expires_at": trace.expires_at.isoformat(),
        "thread": list(trace.thread),
        "standalone": trace.standalone,
    }


def trace_of(data: TraceJson) -> AnswerTrace:
    return AnswerTrace(
        answer_id=str(data["answer_id"]),
        question=str(data.get("question", "")),
        answer=str(data.get("answer", "")),
        sources=tuple(
            TracedSource(
                slug=str(s["slug"]),
                score=float(s.get("score", 0.0)),
                version=None if (version := s.get("version")) is None else int(version),
            )
            for s in data.get("sources") or []
        ),
        model=str(data.get("model", "")),
        confidence=str(data.get("confidence", "")),
        origin=str(data.get("origin", "ask")),
        created_at=moment(data["created_at"]),
        expires_at=moment(data["expires_at"]),
        thread=tuple(str(q) for q in data.get("thread") or ()),
        standalone=None if data.get("standalone") is None else str(data["standalone"]),
    )


def feedback_dict(item: FeedbackRecord) -> FeedbackJson:
    return {
        "id": item.id,
        "rating": item.rating,
        "reason": item.reason,
        "comment": item.comment,
        "answer_id": item.answer_id,
        "slug": item.slug,
        "question": item.question,
        "origin": item.origin,
        "at": item.at.isoformat(),
        "trace": None if item.trace is None else trace_dict(item.trace),
    }


def feedback_of(data: FeedbackJson) -> FeedbackRecord:
    trace = data.get("trace")
    return FeedbackRecord(
        id=str(data["id"]),
        rating=data["rating"],
        reason=data.get("reason"),
        comment=data.get("comment"),
        answer_id=data.get("answer_id"),
        slug=data.get("slug"),
        question=data.get("question"),
        origin=str(data.get("origin", "http")),
        at=moment(data["at"]),
        trace=None if not trace else trace_of(trace),
    )


def moment(text: str) -> datetime:
    """An ISO text as an aware UTC datetime (naive texts are UTC)."""
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_text(value: datetime) -> str:
    """A moment as sortable ISO text in UTC (the SQLite columns compare it as text)."""
    return value.astimezone(UTC).isoformat(timespec="microseconds")
