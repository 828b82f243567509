"""Feedback as curators read it: grouped by page, worst first, each vote with its trace.

An answer's vote goes to the page its answer ranked first (the page most responsible for
it); a report on a page to that page; a vote on an answer that cited nothing to the
"no page" group (the wiki had nothing: a gap). Shared by ``biblioteca feedback``, the
curator report and ``biblioteca status``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TypedDict

from shared import clock
from shared.logs import get_logger
from shared.loop.feedback_json import FeedbackJson, feedback_dict
from shared.ports import Store
from shared.records import FeedbackRecord

NO_PAGE = ""  # the group of votes on answers that cited no page
REPORT_WINDOW = timedelta(days=30)  # what the curator report lists
_log = get_logger("feedback")


class PageVotes(TypedDict):
    """The votes about one page (``slug`` None: about no page), newest first."""

    slug: str | None
    down: int
    up: int
    latest: str
    items: list[FeedbackJson]


def page_of(item: FeedbackRecord) -> str:
    """The page a vote is about (see the module docstring)."""
    if item.slug:
        return item.slug
    if item.trace is not None and item.trace.sources:
        return item.trace.sources[0].slug
    return NO_PAGE


def by_page(items: Iterable[FeedbackRecord]) -> list[PageVotes]:
    """Groups ``{slug, down, up, latest, items}``: most 👎 first, then the latest vote."""
    groups: dict[str, list[FeedbackRecord]] = {}
    for item in items:
        groups.setdefault(page_of(item), []).append(item)
    out: list[PageVotes] = []
    for slug, votes in groups.items():
        votes.sort(key=lambda v: v.at, reverse=True)
        out.append(
            {
                "slug": slug or None,
                "down": sum(v.rating == "down" for v in votes),
                "up": sum(v.rating == "up" for v in votes),
                "latest": votes[0].at.isoformat(),
                "items": [feedback_dict(v) for v in votes],
            }
        )
    out.sort(key=lambda g: (g["down"], g["latest"]), reverse=True)
    return out


def recent(store: Store, window: timedelta, now: datetime | None = None) -> list[FeedbackRecord]:
    """Votes of the last ``window``."""
    return store.feedback.list(since=(now or clock.now()) - window)


def report_section(store: Store) -> list[PageVotes]:
    """The curator report's feedback (last 30 days); a store failure is logged, not fatal."""
    try:
        return by_page(recent(store, REPORT_WINDOW))
    except Exception:  # the report is worth more than one of its sections
        _log.exception("the curator report could not read the feedback")
        return []
