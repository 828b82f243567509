"""The build's pure steps besides the plan: a failure's contract shape, and which files a
publication writes, keeps and deletes."""

from __future__ import annotations

from shared.records import Output
from shared.services.site_build.pages import RenderedPages
from shared.services.site_build.publishing import Assets, file_changes
from shared.services.site_build.report import BuildReport, PageFailure
from shared.site.manifest import content_hash
from shared.site.plan import Plan

NONE: frozenset[str] = frozenset()


def a_plan(*, full: bool = False, gone: frozenset[str] = NONE) -> Plan:
    return Plan(full=full, changed=NONE, gone=gone, affected=NONE, reframed=NONE, unread=NONE)


def test_a_failure_is_the_contracts_item_in_the_report_body() -> None:
    """``failed[]`` items are {slug, field, error}, in that order, and round-trip."""
    failure = PageFailure("concept—mala", "sources[0].ref", "bad")
    body = BuildReport(status="failed", failed=[failure]).response().body()
    assert list(body["failed"][0].items()) == [
        ("slug", "concept—mala"),
        ("field", "sources[0].ref"),
        ("error", "bad"),
    ]
    assert PageFailure.from_json(failure.to_json()) == failure


def test_files_unchanged_are_kept_changed_written_and_unbuilt_deleted() -> None:
    """Against the last build's hashes: same bytes kept, new bytes written, a file no
    longer built deleted, and the pages gone deleted with their three files."""
    last = {"index.html": "old", "sitemap.xml": content_hash(b""), "old.html": "x"}
    others = [Output("index.html", b"new"), Output("sitemap.xml", b"")]
    changes = file_changes(
        a_plan(gone=frozenset({"concept—b"})), RenderedPages(), others, Assets(), {}, last
    )
    assert [o.path for o in changes.writes] == ["index.html"]
    assert changes.keep == ["sitemap.xml"]
    assert changes.delete == [
        "concept—b/index.html",
        "concept—b/index.md",
        "concept—b/search.js",
        "old.html",
    ]


def test_a_full_publication_deletes_nothing() -> None:
    """A full build replaces the whole site: nothing to delete one by one."""
    changes = file_changes(
        a_plan(full=True, gone=frozenset({"concept—b"})),
        RenderedPages(),
        [Output("index.html", b"x")],
        Assets(),
        {},
        {},
    )
    assert (len(changes.writes), changes.delete) == (1, [])
