"""The private curator report a build writes beside the site: its report, the drafts, the
open proposals, the feedback and the loop's sections (gaps, stale pages).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import Embedder, ReportWriter, Store
from shared.services import feedback_digest, review
from shared.services.report_loop import loop_sections
from shared.services.review_views import ProposalRow
from shared.services.site_build.report import BuildReport
from shared.services.site_build.sorting import Sorted
from shared.services.site_build.timer import Timer
from shared.site import renderer

_log = get_logger("rebuild")


def write_report(
    writer: ReportWriter,
    data: Mapping[str, Any],
    store: Store,
    embedder: Embedder | None,
    pages: Sorted,
    timer: Timer,
) -> None:
    """The private curator report: ``data`` (``summary``) and what the loop adds to it;
    failing to write it is logged, not fatal."""
    out = dict(data)
    with timer.phase("curator_report"):  # the gaps: what anonymous traffic grows
        out["feedback"] = feedback_digest.report_section(store)
        out.update(loop_sections(pages.published, store, embedder))
    html, text = renderer.render_report(out)
    location = writer.location
    try:
        writer.write({"index.html": html.encode(), "report.json": text.encode()})
    except OSError as exc:
        _log.error("the curator report could not be written to %s: %s", location, exc)
    except BibliotecaError as exc:  # a bucket that refused or did not answer
        _log.error(
            "the curator report could not be written to %s: %s",
            location,
            exc.message,
            extra={"code": exc.code},
        )


def summary(
    report: BuildReport,
    pages: Sorted,
    store: Store,
    *,
    build_id: str,
    built_at: str,
    site: str,
    published: int,
) -> dict[str, Any]:
    """The report's first part: the build's report, its drafts and the open proposals."""
    return {
        "build_id": build_id,
        "built_at": built_at,
        "site": site,
        "status": report.status,
        "built": report.built,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "published": published,
        "failed": [failure.to_json() for failure in report.failed],
        "broken_links": report.broken_links,
        "drafts": pages.drafts,
        "proposals": _open_proposals(store),
    }


def _open_proposals(store: Store) -> list[ProposalRow]:
    """The agents' proposals waiting for a curator, for the report (none if unreadable:
    the report is still worth writing)."""
    try:
        return [review.proposal_row(p) for p in store.proposals.list(status="open")]
    except BibliotecaError as exc:
        _log.warning("the open proposals could not be read for the report: %s", exc.message)
        return []
