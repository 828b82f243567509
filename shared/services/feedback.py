"""Feedback on answers and pages: checked against what exists, kept once per client.

A vote names an answer (its trace must still be kept) or a page (it must be published,
unless the caller may write). A repeat from one client on one answer (or page) replaces
the earlier vote under the same id, so it counts once. Nothing here touches ranking:
votes are for curators (``biblioteca feedback``, the report) and the gaps analysis.
"""

from __future__ import annotations

import hashlib

from shared import clock
from shared.api.models import FeedbackRequest, FeedbackResponse
from shared.errors import NotFound
from shared.ports import Store
from shared.records import FeedbackRecord
from shared.services.wiki import read_page


def feedback_id(client_id: str, target: str) -> str:
    """One id per client and answer (or page); the client's address is not kept as such."""
    return hashlib.sha256(f"{client_id}\x00{target}".encode()).hexdigest()[:32]


def record_feedback(
    request: FeedbackRequest,
    store: Store,
    *,
    client_id: str,
    authorized: bool,
    origin: str = "http",
) -> FeedbackResponse:
    """Record one checked request; ``NotFound`` at ``answer_id`` or ``slug`` when unknown."""
    trace = None
    if request.answer_id is not None:
        trace = store.traces.get(request.answer_id)
        if trace is None:
            raise NotFound(
                f"no answer with answer_id '{request.answer_id}' (or its trace expired)",
                field="answer_id",
            )
    if request.slug is not None:
        read_page(request.slug, store, unpublished=authorized)
    target = f"answer:{request.answer_id}" if request.answer_id else f"page:{request.slug}"
    item = FeedbackRecord(
        id=feedback_id(client_id, target),
        rating=request.rating,
        reason=request.reason,
        comment=request.comment,
        answer_id=request.answer_id,
        slug=request.slug,
        question=request.question or (trace.question if trace else None),
        origin=origin,
        at=clock.now(),
        trace=trace,
    )
    store.feedback.record(item)
    return FeedbackResponse(recorded=True, id=item.id)
