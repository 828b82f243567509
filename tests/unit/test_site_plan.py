"""The incremental plan: what changed, which unchanged pages a change touches, and the
frozen plan a build follows (rendered, re-framed, read again, deleted)."""

from __future__ import annotations

from shared.site.links import inbound
from shared.site.manifest import PageState
from shared.site.plan import SiteNow, affected, diff, plan


def state(title: str, *links: str, h: str = "h") -> PageState:
    return PageState(version=1, hash=h, title=title, links=links, out="o", lang="es", summary="")


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


def now(
    links: dict[str, tuple[str, ...]],
    titles: dict[str, str],
    *,
    hashes: dict[str, str] | None = None,
    chrome: dict[str, str] | None = None,
    unread: frozenset[str] = frozenset(),
) -> SiteNow:
    return SiteNow(
        hashes=hashes if hashes is not None else dict.fromkeys(titles, "h"),
        links=links,
        titles=titles,
        inbound=inbound(links),
        chrome=chrome if chrome is not None else dict.fromkeys(titles, ""),
        unread=unread,
    )


def test_a_full_plan_renders_every_page_and_deletes_nothing() -> None:
    """A full build renders every live page and publishes the whole site (no deletes)."""
    before = {"concept—a": state("A"), "concept—gone": state("G")}
    site = now({"concept—a": (), "concept—b": ()}, {"concept—a": "A", "concept—b": "B"})
    planned = plan(before, site, full=True)
    assert planned.render == {"concept—a", "concept—b"}
    assert (planned.gone, planned.delete) == ({"concept—gone"}, ())


def test_a_body_edit_renders_that_page_alone() -> None:
    """An edit that keeps title and links touches no other page."""
    before = {"a": state("A", "b"), "b": state("B", "a")}
    site = now({"a": ("b",), "b": ("a",)}, {"a": "A", "b": "B"}, hashes={"a": "new", "b": "h"})
    planned = plan(before, site, full=False)
    assert (planned.changed, planned.affected, planned.reframed) == ({"a"}, set(), set())


def test_a_rename_renders_the_pages_showing_it_and_reads_the_unread_ones() -> None:
    """Pages linking to a renamed page render again; those the build took from the
    manifest without reading are read first."""
    before = {"a": state("A"), "b": state("B", "a"), "c": state("C", "a")}
    links = {"a": (), "b": ("a",), "c": ("a",)}
    titles = {"a": "A2", "b": "B", "c": "C"}
    hashes = {"a": "new", "b": "h", "c": "h"}
    site = now(links, titles, hashes=hashes, unread=frozenset({"c"}))
    planned = plan(before, site, full=False)
    assert (planned.changed, planned.affected) == ({"a"}, {"b", "c"})
    assert planned.read_again == {"c"}


def test_a_gone_page_is_deleted_and_its_linkers_render_again() -> None:
    """A page no longer published has its three files deleted; a page linking to it renders."""
    before = {"concept—a": state("A", "concept—b"), "concept—b": state("B")}
    site = now({"concept—a": ("concept—b",)}, {"concept—a": "A"})
    planned = plan(before, site, full=False)
    assert planned.gone == {"concept—b"}
    assert planned.affected == {"concept—a"}
    assert planned.delete == (
        "concept—b/index.html",
        "concept—b/index.md",
        "concept—b/search.js",
    )


def test_a_page_whose_chrome_changed_is_reframed() -> None:
    """Breadcrumbs or previous/next that changed re-render a page nothing else touched."""
    before = {"a": state("A"), "b": state("B")}
    site = now({"a": (), "b": ()}, {"a": "A", "b": "B"}, chrome={"a": "", "b": "moved"})
    planned = plan(before, site, full=False)
    assert (planned.changed, planned.affected, planned.reframed) == (set(), set(), {"b"})
    assert planned.render == {"b"}
