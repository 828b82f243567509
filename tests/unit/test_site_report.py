"""Where the curator report may go: never inside the public site, a folder or a bucket."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.errors import NotConfigured
from shared.publish.report import check_report_location, write_report


@pytest.mark.parametrize(
    "report",
    ["site/report", "site", ".site.builds/report", "other/../site/private"],
)
def test_report_folder_inside_the_site_is_refused(tmp_path: Path, report: str) -> None:
    """The private report cannot be written into the public site or its generations."""
    with pytest.raises(NotConfigured, match="BIBLIOTECA_REPORT_DIR"):
        check_report_location(str(tmp_path / "site"), str(tmp_path / report))


def test_report_folder_beside_the_site_is_fine(tmp_path: Path) -> None:
    """The default layout (data/site and data/report) passes."""
    check_report_location(str(tmp_path / "site"), str(tmp_path / "report"))


@pytest.mark.parametrize(
    ("site", "report"),
    [
        ("gs://b/site", "gs://b/site/report"),
        ("gs://b/site", "gs://b/site"),
        ("gs://b/site/", "gs://b/site/private/"),
        ("gs://b", "gs://b/report"),
        ("gs://b/", "gs://b"),
    ],
)
def test_a_bucket_report_inside_the_site_prefix_is_refused(site: str, report: str) -> None:
    """Same bucket and a prefix at or under the site's prefix: refused, naming the variable."""
    with pytest.raises(NotConfigured, match="BIBLIOTECA_REPORT_DIR gs://"):
        check_report_location(site, report)


@pytest.mark.parametrize(
    ("site", "report"),
    [
        ("gs://b/site", "gs://b/report"),
        ("gs://b/site", "gs://b/site-private"),  # a sibling prefix, not a sub-folder
        ("gs://b/site", "gs://b"),  # the site is inside the report's prefix: no overlap
        ("gs://b", "gs://private"),
        ("gs://b", "gs://private/b"),
    ],
)
def test_a_bucket_report_outside_the_site_prefix_is_fine(site: str, report: str) -> None:
    """Another bucket, or a prefix the site's objects can never land in."""
    check_report_location(site, report)


def test_a_folder_and_a_bucket_never_clash(tmp_path: Path) -> None:
    """A gs:// site with a local report, and a local site with a gs:// report, both pass."""
    check_report_location("gs://bucket/site", str(tmp_path / "site"))
    check_report_location(str(tmp_path / "site"), "gs://bucket/site")


@pytest.mark.parametrize("report", ["gs://", "gs:///report", "gs://b/../x"])
def test_a_malformed_bucket_report_is_refused_before_the_build(tmp_path: Path, report: str) -> None:
    """No bucket or an unsafe prefix is a NotConfigured naming BIBLIOTECA_REPORT_DIR."""
    with pytest.raises(NotConfigured, match="BIBLIOTECA_REPORT_DIR"):
        check_report_location(str(tmp_path / "site"), report)


def test_report_files_are_replaced_whole(tmp_path: Path) -> None:
    """write_report leaves the files it wrote and no temporary files."""
    write_report(str(tmp_path / "r"), {"index.html": b"<p>1</p>", "report.json": b"{}"})
    write_report(str(tmp_path / "r"), {"index.html": b"<p>2</p>", "report.json": b"{}"})
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["index.html", "report.json"]
    assert (tmp_path / "r" / "index.html").read_bytes() == b"<p>2</p>"
