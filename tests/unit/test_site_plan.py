"""The incremental plan: what changed, and which unchanged pages a change touches."""

from __future__ import annotations

from datetime import UTC, datetime

from shared.schema import Page, parse_front_matter
from shared.site.links import inbound
from shared.site.plan import Manifest, PageState, affected, diff, page_hash


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


def test_diff_finds_new_edited_and_gone_pages() -> None:
    """New and re-hashed pages are changed; pages missing now are gone."""
    previous = {"a": state("A", h="1"), "b": state("B", h="2"), "c": state("C", h="3")}
    changed, gone = diff({"a": "1", "b": "9", "d": "4"}, previous)
    assert changed == {"b", "d"}
    assert gone == {"c"}


def test_an_edit_that_keeps_title_and_links_touches_nobody() -> None:
    """Changing only the body text of a page re-renders that page alone."""
    previous = {"a": state("A", "b"), "b": state("B", "a")}
    links = {"a": ("b",), "b": ("a",)}
    assert affected({"a"}, previous, links, {"a": "A", "b": "B"}, inbound(links)) == set()


def test_a_renamed_page_touches_pages_linking_to_it_and_its_targets() -> None:
    """A new title shows in inbound link text and in its targets' backlinks."""
    previous = {"a": state("A", "c"), "b": state("B", "a"), "c": state("C"), "d": state("D")}
    links = {"a": ("c",), "b": ("a",), "c": (), "d": ()}
    titles = {"a": "A2", "b": "B", "c": "C", "d": "D"}
    assert affected({"a"}, previous, links, titles, inbound(links)) == {"b", "c"}


def test_changed_links_touch_the_targets_gained_and_lost() -> None:
    """Only the backlinks of targets added or removed change."""
    previous = {"a": state("A", "b", "c"), "b": state("B"), "c": state("C"), "d": state("D")}
    links = {"a": ("c", "d"), "b": (), "c": (), "d": ()}
    titles = {"a": "A", "b": "B", "c": "C", "d": "D"}
    assert affected({"a"}, previous, links, titles, inbound(links)) == {"b", "d"}


def test_a_removed_page_touches_pages_that_still_link_to_it() -> None:
    """Pages linking to a page that left the site render again (their link is broken now)."""
    previous = {"a": state("A", "b"), "b": state("B", "c"), "c": state("C")}
    links = {"a": ("b",), "c": ()}
    titles = {"a": "A", "c": "C"}
    assert affected({"b"}, previous, links, titles, inbound(links)) == {"a", "c"}


def test_a_new_page_fixes_the_links_that_were_broken() -> None:
    """Pages whose link pointed at a missing page render again when it appears."""
    previous = {"a": state("A", "new"), "b": state("B")}
    links = {"a": ("new",), "b": (), "new": ("b",)}
    titles = {"a": "A", "b": "B", "new": "N"}
    assert affected({"new"}, previous, links, titles, inbound(links)) == {"a", "b"}


def test_manifest_round_trips_and_rejects_other_shapes() -> None:
    """A manifest survives JSON; an unknown format or a damaged one means a full build."""
    manifest = Manifest("b1", "t", "k", "/site", {"a": state("A", "b")}, {"index.html": "x"})
    data = manifest.to_json()
    assert Manifest.from_json(data) == manifest
    assert Manifest.from_json(None) is None
    assert Manifest.from_json({**data, "format": 999}) is None
    assert Manifest.from_json({**data, "pages": {"a": {"v": 1}}}) is None
    assert Manifest.from_json({**data, "pages": []}) is None
