"""An answer's trace: what produced it, kept so feedback on it reaches the page versions.

Keeping it never costs the answer: a failure is logged and the answer goes out (its
``answer_id`` then finds no trace, and feedback on it is a 404 like an expired one).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta

from shared import clock
from shared.logs import get_logger
from shared.ports import Store
from shared.records import AnswerTrace, Passage, TracedSource

_log = get_logger("traces")


def new_answer_id() -> str:
    """An unguessable id: a caller cannot vote on, or read, answers given to others."""
    return uuid.uuid4().hex


def keep_trace(
    store: Store,
    *,
    answer_id: str,
    question: str,
    answer: str,
    passages: Sequence[Passage],
    model: str,
    confidence: str,
    origin: str,
    days: int,
    thread: Sequence[str] = (),
    standalone: str | None = None,
) -> None:
    """Save the trace of one help-mode answer for ``days``; log (never raise) a failure."""
    now = clock.now()
    trace = AnswerTrace(
        answer_id=answer_id,
        question=question,
        answer=answer,
        sources=tuple(TracedSource(slug=p.slug, score=round(p.relevance, 4)) for p in passages),
        model=model,
        confidence=confidence,
        origin=origin,
        created_at=now,
        expires_at=now + timedelta(days=days),
        thread=tuple(thread),
        standalone=standalone,
    )
    try:
        store.traces.save(trace)
    except Exception:  # the answer is worth more than its trace
        _log.exception("could not keep the trace of answer %s", answer_id)
