"""The curator report's loop sections: stale pages and the gaps (open, closed, wanted).

Neither may fail a rebuild: a gap analysis that cannot run (no embedder given, a model
that is not configured, a store that does not answer) is reported as unavailable, why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from shared import clock
from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import Embedder, Store
from shared.records import stale_notice
from shared.schema import Page
from shared.services.gaps import (
    DEFAULT_SINCE,
    REPORT_HITS,
    REPORT_SIGNALS,
    GapReportJson,
    find_gaps,
)

_log = get_logger("rebuild")


class StalePage(TypedDict):
    """A published page citing code that is gone."""

    slug: str
    title: str
    missing: list[dict[str, str | None]]  # each path and its suggestion
    checked_at: str


class Unavailable(TypedDict):
    available: bool  # False
    why: str


class GapsSection(GapReportJson):
    """The gap report, marked available (first, as the report shows it)."""

    available: bool


class LoopSections(TypedDict):
    stale: list[StalePage]
    gaps: GapsSection | Unavailable


def stale_pages(published: Mapping[str, Page]) -> list[StalePage]:
    """Published pages citing code that is gone: the paths and suggestions, by slug."""
    return [
        {
            "slug": page.slug,
            "title": page.title,
            "missing": stale_notice(page.freshness),
            "checked_at": page.freshness.checked_at.isoformat(),
        }
        for slug, page in sorted(published.items())
        if page.freshness is not None and page.freshness.state == "stale"
    ]


def gaps_section(store: Store, embedder: Embedder | None) -> GapsSection | Unavailable:
    """The gaps of the last 7 days, or why they are not shown."""
    if embedder is None:
        return {"available": False, "why": "no embedder was given to this build"}
    try:
        since = clock.now() - DEFAULT_SINCE
        report = find_gaps(
            store, embedder, since=since, max_signals=REPORT_SIGNALS, max_hits=REPORT_HITS
        )
        return {"available": True, **report.body()}
    except BibliotecaError as exc:
        _log.warning("gaps not reported: %s", exc.message)
        return {"available": False, "why": exc.message}


def loop_sections(
    published: Mapping[str, Page], store: Store, embedder: Embedder | None
) -> LoopSections:
    return {"stale": stale_pages(published), "gaps": gaps_section(store, embedder)}
