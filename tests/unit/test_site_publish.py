"""Local publishing: whole generations swapped by one rename, never a half-built site."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared.errors import NotConfigured
from shared.ports import Output, Publication, StalePublication
from shared.publish.local import LocalPublisher
from shared.site.paths import MARKER, UnsafePath


def publish(
    site: Path,
    build_id: str,
    files: dict[str, bytes],
    *,
    full: bool = True,
    keep: tuple[str, ...] = (),
    delete: tuple[str, ...] = (),
) -> LocalPublisher:
    publisher = LocalPublisher(str(site))
    writes = [Output(path, data) for path, data in files.items()]
    publisher.publish(Publication(build_id, full, writes, keep, delete))
    publisher.cleanup()
    return publisher


def test_the_site_path_is_a_link_to_a_complete_generation(tmp_path: Path) -> None:
    """After a build the site path links to a folder holding every file and the marker."""
    site = tmp_path / "site"
    publisher = publish(site, "b1", {"index.html": b"i", "a/index.html": b"a"})
    assert site.is_symlink()
    assert (site / "a" / "index.html").read_bytes() == b"a"
    assert (site / MARKER).is_file()
    assert publisher.current_build() == "b1"


def test_an_incremental_build_reuses_unchanged_pages_and_swaps(tmp_path: Path) -> None:
    """A kept page is the same pooled folder as before; the old generation stays readable."""
    site = tmp_path / "site"
    publish(site, "b1", {"index.html": b"i1", "a/index.html": b"a", "b/index.html": b"b"})
    old_target = site.resolve()
    publish(
        site,
        "b2",
        {"index.html": b"i2"},
        full=False,
        keep=("a/index.html",),
        delete=("b/index.html",),
    )
    assert (site / "index.html").read_bytes() == b"i2"
    assert (site / "a" / "index.html").read_bytes() == b"a"
    assert not (site / "b").exists()
    assert os.readlink(site / "a") == os.readlink(old_target / "a")
    # A reader that resolved the old generation can still finish reading it.
    assert (old_target / "b" / "index.html").read_bytes() == b"b"


def test_a_kept_file_missing_from_the_site_means_a_stale_publication(tmp_path: Path) -> None:
    """If the published site lacks a file the manifest says is there, nothing is swapped."""
    site = tmp_path / "site"
    publish(site, "b1", {"index.html": b"i1"})
    with pytest.raises(StalePublication):
        publish(site, "b2", {"index.html": b"i2"}, full=False, keep=("gone/index.html",))
    assert (site / "index.html").read_bytes() == b"i1"
    assert not (site.parent / ".site.builds" / "b2").exists()


def test_old_generations_and_crash_leftovers_are_cleaned(tmp_path: Path) -> None:
    """Only the current and the previous generations remain after a build's cleanup."""
    site = tmp_path / "site"
    builds = tmp_path / ".site.builds"
    for n in range(1, 4):
        publish(site, f"b{n}", {"index.html": str(n).encode()})
    (builds / "crashed-half-build").mkdir()
    (builds / "crashed-half-build" / "x.html").write_bytes(b"x")
    publish(site, "b4", {"index.html": b"4"})
    assert sorted(p.name for p in builds.iterdir()) == ["b3", "b4"]


def test_only_folders_used_by_the_two_newest_generations_stay_pooled(tmp_path: Path) -> None:
    """Each build may change a page; the pool keeps the versions still linked, no more."""
    site = tmp_path / "site"
    publish(site, "b1", {"index.html": b"i", "a/index.html": b"a1", "b/index.html": b"b"})
    for n in range(2, 5):
        publish(
            site,
            f"b{n}",
            {"a/index.html": f"a{n}".encode()},
            full=False,
            keep=("index.html", "b/index.html"),
        )
    pool = tmp_path / ".site.builds" / ".pages"
    linked = {
        os.readlink(g / p) for g in (site.resolve(), tmp_path / ".site.builds" / "b3") for p in "ab"
    }
    assert {f"../.pages/{name}" for name in os.listdir(pool)} == linked
    assert len(linked) == 3  # b shared, a in two versions
    assert (site / "a" / "index.html").read_bytes() == b"a4"


def test_folders_with_more_than_a_page_stay_real_folders(tmp_path: Path) -> None:
    """static/ and type/<t>/ are real folders; a page whose slug is 'static' fits beside them."""
    site = tmp_path / "site"
    files = {
        "static/widget.js": b"js",
        "static/index.html": b"page named static",
        "type/concept/index.html": b"listing",
        "concept/index.html": b"page",
    }
    publish(site, "b1", files)
    assert not (site / "static").is_symlink()
    assert not (site / "type").is_symlink()
    assert (site / "concept").is_symlink()
    assert {p: (site / p).read_bytes() for p in files} == files
    publish(site, "b2", {}, full=False, keep=tuple(files))
    assert {p: (site / p).read_bytes() for p in files} == files


def test_a_site_built_before_the_pool_is_carried_over(tmp_path: Path) -> None:
    """Kept pages of a generation with real page folders are pooled on the next build."""
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "a" / "index.html").write_bytes(b"old a")
    (site / MARKER).write_text('{"build_id": "old"}')
    publish(site, "b1", {"index.html": b"i"}, full=False, keep=("a/index.html",))
    assert (site / "a").is_symlink()
    assert (site / "a" / "index.html").read_bytes() == b"old a"


def test_an_empty_site_folder_is_replaced(tmp_path: Path) -> None:
    """An empty folder at the site path (e.g. made by hand) becomes the link."""
    site = tmp_path / "site"
    site.mkdir()
    publish(site, "b1", {"index.html": b"i"})
    assert site.is_symlink()


def test_a_foreign_folder_is_never_replaced(tmp_path: Path) -> None:
    """A non-empty folder that biblioteca did not build is refused, naming the variable."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "precious.txt").write_text("mine")
    with pytest.raises(NotConfigured, match="BIBLIOTECA_SITE_DIR"):
        publish(site, "b1", {"index.html": b"i"})
    assert (site / "precious.txt").read_text() == "mine"


def test_an_older_site_folder_of_ours_is_adopted(tmp_path: Path) -> None:
    """A real folder with our marker (an older layout) is moved aside, then replaced."""
    site = tmp_path / "site"
    site.mkdir()
    (site / MARKER).write_text('{"build_id": "old"}')
    publish(site, "b1", {"index.html": b"i"})
    assert site.is_symlink()
    assert (site / "index.html").read_bytes() == b"i"


def test_outputs_outside_the_root_are_refused(tmp_path: Path) -> None:
    """A write path that climbs out is refused and nothing is published."""
    site = tmp_path / "site"
    with pytest.raises(UnsafePath):
        publish(site, "b1", {"../escape.html": b"x"})
    assert not (tmp_path / "escape.html").exists()
    assert not site.exists()


def test_a_bad_build_id_is_refused(tmp_path: Path) -> None:
    """The build id names a folder: it must be a plain name."""
    with pytest.raises(ValueError, match="build id"):
        publish(tmp_path / "site", "../x", {"index.html": b"i"})
