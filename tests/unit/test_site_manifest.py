"""The build manifest: a page's hash, and the manifest's round trip through JSON."""

from __future__ import annotations

from datetime import UTC, datetime

from shared.schema import Page, parse_front_matter
from shared.site.manifest import Manifest, PageState, page_hash


def state(title: str, *links: str, h: str = "h") -> PageState:
    return PageState(version=1, hash=h, title=title, links=links, out="o", lang="es", summary="")


def make_page(content: str = "x", title: str = "T", version: int = 1) -> Page:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return Page(
        slug="concept—x",
        front_matter=parse_front_matter({"title": title, "type": "concept"}),
        content=content,
        version=version,
        created_at=when,
        updated_at=when,
    )


def test_page_hash_changes_with_content_front_matter_and_version() -> None:
    """The hash sees every shown part of a page, and only those."""
    base = page_hash(make_page())
    assert page_hash(make_page()) == base
    assert page_hash(make_page(content="y")) != base
    assert page_hash(make_page(title="U")) != base
    assert page_hash(make_page(version=2)) != base


def test_manifest_round_trips_and_rejects_other_shapes() -> None:
    """A manifest survives JSON; an unknown format or a damaged one means a full build."""
    manifest = Manifest("b1", "t", "k", "/site", {"a": state("A", "b")}, {"index.html": "x"})
    data = manifest.to_json()
    assert Manifest.from_json(data) == manifest
    assert Manifest.from_json(None) is None
    assert Manifest.from_json({**data, "format": 999}) is None
    assert Manifest.from_json({**data, "pages": {"a": {"v": 1}}}) is None
    assert Manifest.from_json({**data, "pages": []}) is None
