"""Grouping feedback for curators: which page a vote is about, and the order of pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shared.records import AnswerTrace, FeedbackRecord, TracedSource
from shared.services.feedback_digest import by_page, page_of

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _trace(*slugs: str) -> AnswerTrace:
    sources = tuple(TracedSource(s, 0.5, 1) for s in slugs)
    return AnswerTrace("a", "q", "a", sources, "m", "high", "ask", NOW, NOW)


def _vote(
    rating: str = "down", *, slug: str | None = None, trace: AnswerTrace | None = None, ago: int = 0
) -> FeedbackRecord:
    return FeedbackRecord(
        id=f"{rating}{slug}{ago}",
        rating=rating,  # type: ignore[arg-type]
        reason=None,
        comment=None,
        answer_id=None if trace is None else trace.answer_id,
        slug=slug,
        question=None,
        origin="http",
        at=NOW - timedelta(hours=ago),
        trace=trace,
    )


def test_a_vote_is_about_its_slug_else_the_answers_first_source_else_no_page() -> None:
    """Report on a page → that page; answer → its top-ranked source; nothing cited → ''."""
    assert page_of(_vote(slug="guide—a", trace=_trace("guide—b"))) == "guide—a"
    assert page_of(_vote(trace=_trace("guide—b", "guide—c"))) == "guide—b"
    assert page_of(_vote(trace=_trace())) == ""


def test_pages_with_more_down_votes_come_first_then_the_most_recent() -> None:
    """Order: count of 👎 descending, ties by the latest vote; 👍 counted apart."""
    groups = by_page(
        [
            _vote(slug="guide—a", ago=1),
            _vote(slug="guide—b", ago=5),
            _vote(slug="guide—b", ago=6),
            _vote("up", slug="guide—c", ago=0),
            _vote(slug="guide—d", ago=0),
        ]
    )
    assert [(g["slug"], g["down"], g["up"]) for g in groups] == [
        ("guide—b", 2, 0),
        ("guide—d", 1, 0),
        ("guide—a", 1, 0),
        ("guide—c", 0, 1),
    ]
