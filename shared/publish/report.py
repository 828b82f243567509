"""Where the private curator report goes: a folder or ``gs://bucket/prefix``.

Either way never inside the public site; a local report and a bucket site (or the
other way round) cannot overlap. Writing a folder replaces each file atomically.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from shared.errors import NotConfigured
from shared.publish.gcs import is_gcs, parse_location, write_private
from shared.publish.local import LocalPublisher
from shared.site.paths import inside

VARIABLE = "BIBLIOTECA_REPORT_DIR"


def check_report_location(site_location: str, report: str) -> None:
    """Refuse a report inside the public site (its prefix, folder or generations)."""
    if is_gcs(report):
        parse_location(report, VARIABLE)  # a malformed location fails before the build
    if is_gcs(report) != is_gcs(site_location):
        return  # a folder and a bucket never overlap
    if is_gcs(report):
        inside_site = _bucket_inside(site_location, report)
    else:
        inside_site = _folder_inside(site_location, Path(report))
    if inside_site:
        raise NotConfigured(
            f"{VARIABLE} {report} is inside the public site "
            f"(BIBLIOTECA_SITE_DIR {site_location}): the curator report is private, "
            "choose a location outside it"
        )


def _bucket_inside(site_location: str, report: str) -> bool:
    report_bucket, report_prefix = parse_location(report, VARIABLE)
    site_bucket, site_prefix = parse_location(site_location)
    # Prefixes end in "/" (or are "" for the whole bucket), so "docs/" never
    # matches "docs-private/".
    return report_bucket == site_bucket and report_prefix.startswith(site_prefix)


def _folder_inside(site_location: str, report: Path) -> bool:
    publisher = LocalPublisher(site_location)
    public = {publisher.site, publisher.builds, publisher.site.resolve()}
    return any(
        candidate == base or candidate.is_relative_to(base)
        for candidate in {report.absolute(), report.resolve()}
        for base in public
    )


def write_report(location: str, files: Mapping[str, bytes]) -> None:
    """Write the report's files: uploaded to a bucket, or each replaced atomically."""
    if is_gcs(location):
        write_private(location, files, VARIABLE)
        return
    folder = Path(location)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        target = inside(folder, name)
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)


class CuratorReport:
    """``ReportWriter`` at ``location`` (a folder or a bucket), kept out of ``site_location``."""

    def __init__(self, location: str, site_location: str) -> None:
        self.location = location
        self._site_location = site_location

    def check(self) -> None:
        check_report_location(self._site_location, self.location)

    def write(self, files: Mapping[str, bytes]) -> None:
        write_report(self.location, files)
