"""The rebuild's report: what one run built, kept, removed and left out, in the contract's
shape (API.md, ``rebuild``), and the outcome line ``biblioteca status`` reads back.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from shared.api.models import BrokenLink, FailedPage, RebuildReport, StaleLease
from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import Store
from shared.records import Lease, Output
from shared.site import paths, refs
from shared.site.manifest import PageState

BuildStatus = Literal["ok", "failed", "rebuild_in_progress"]
OK: Final = "ok"
FAILED: Final = "failed"
IN_PROGRESS: Final = "rebuild_in_progress"
_log = get_logger("rebuild")


@dataclass(frozen=True, slots=True)
class PageFailure:
    """A page left out of the site: it fails the schema (``field`` names where in its front
    matter), or its body could not be rendered (``field`` is ``content``)."""

    slug: str
    field: str
    error: str

    def to_json(self) -> dict[str, str]:
        """The contract's ``failed[]`` item (also how the manifest holds it)."""
        return {"slug": self.slug, "field": self.field, "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageFailure:
        return cls(str(data["slug"]), str(data["field"]), str(data["error"]))


@dataclass
class BuildReport:
    """The contract's report; ``error`` is set when the build could not run at all."""

    status: BuildStatus = OK
    built: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[PageFailure] = field(default_factory=list)
    broken_links: list[dict[str, str]] = field(default_factory=list)
    duration_ms: int = 0
    full: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    error: BibliotecaError | None = None
    stale_lease: Lease | None = None  # the expired, unreleased lease this run took over

    @property
    def http_status(self) -> int:
        if self.status == IN_PROGRESS:
            return 409
        if self.error is not None:
            return self.error.status
        return 500 if self.status == FAILED else 200

    def response(self) -> RebuildReport:
        """The ``rebuild`` body: the report, with the error body's fields beside it when
        the build could not run at all."""
        stale = None
        if self.stale_lease is not None:
            expired = datetime.fromtimestamp(self.stale_lease.expires_at, UTC)
            stale = StaleLease(
                owner=self.stale_lease.owner, expired_at=expired.isoformat(timespec="seconds")
            )
        error = self.error
        return RebuildReport(
            status=self.status,
            built=self.built,
            unchanged=self.unchanged,
            removed=self.removed,
            failed=[FailedPage(slug=f.slug, field=f.field, error=f.error) for f in self.failed],
            broken_links=[BrokenLink.model_validate(link) for link in self.broken_links],
            duration_ms=self.duration_ms,
            full=self.full,
            timings_ms=self.timings_ms,
            stale_lease=stale,
            error=None if error is None else error.message,
            code=None if error is None else error.code,
            field=None if error is None else error.field,
        )


def log_outcome(report: BuildReport) -> None:
    """The outcome line the deployment's log-based metric counts (``event`` and
    ``outcome``; deploy/rebuild-alert.sh): at ERROR when the run failed, so it also reads
    as one."""
    _log.log(
        logging.ERROR if report.status == FAILED else logging.INFO,
        "rebuild %s: built %d, unchanged %d, removed %d, failed %d, broken links %d",
        report.status,
        report.built,
        report.unchanged,
        report.removed,
        len(report.failed),
        len(report.broken_links),
        extra={
            "event": "rebuild_outcome",
            "outcome": report.status,
            "duration_ms": report.duration_ms,
            "full": report.full,
        },
    )


def record_outcome(store: Store, report: BuildReport) -> None:
    """Remember how a run ended, so ``biblioteca status`` shows a failed one loudly (a
    failure that only reaches a log can go unseen for days); a run that found the lease
    taken did not run. Failing to record is logged, never the build's answer."""
    if report.status == IN_PROGRESS:
        return
    outcome = {
        "status": report.status,
        "built": report.built,
        "failed": len(report.failed),
        "broken_links": len(report.broken_links),
        "duration_ms": report.duration_ms,
        "full": report.full,
        "error": report.error.message if report.error is not None else None,
        "code": report.error.code if report.error is not None else None,
    }
    try:
        store.events.record("rebuild_outcome", outcome)
    except Exception:  # the store may be why the build failed
        _log.exception("the rebuild's outcome could not be recorded")


def broken_links(
    states: Mapping[str, PageState], others: Sequence[Output], files: Collection[str]
) -> list[dict[str, str]]:
    """Every dead address of the built HTML (``shared.site.refs``): the pages' scans as
    written (this build or an earlier one), the listings' and index's scanned now."""
    slug_of = {paths.page_path(slug): slug for slug in states}
    scanned = {paths.page_path(slug): state.refs for slug, state in states.items()}
    for output in others:
        if output.path.endswith(".html"):
            scanned[output.path] = refs.scan(output.data.decode())
    published = set(files) | set(slug_of)
    published |= {paths.markdown_path(slug) for slug in states}
    return refs.broken(scanned, published, slug_of)
