"""Local publishing: whole generations swapped by one rename, never a half-built site."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared.errors import NotConfigured
from shared.ports import StalePublication
from shared.publish.local import LocalPublisher
from shared.records import Output, Publication
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
    """Only the current generation, the previous one and a spare remain after a cleanup."""
    site = tmp_path / "site"
    builds = tmp_path / ".site.builds"
    for n in range(1, 4):
        publish(site, f"b{n}", {"index.html": str(n).encode()})
    (builds / "crashed-half-build").mkdir()
    (builds / "crashed-half-build" / "x.html").write_bytes(b"x")
    publish(site, "b4", {"index.html": b"4"})
    assert sorted(p.name for p in builds.iterdir() if p.name[0] != ".") == ["b2", "b3", "b4"]
    assert sorted(p.name for p in (builds / ".listings").iterdir()) == [
        "b2.json",
        "b3.json",
        "b4.json",
    ]


def test_only_folders_used_by_the_kept_generations_stay_pooled(tmp_path: Path) -> None:
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
    builds = tmp_path / ".site.builds"
    linked = {os.readlink(builds / g / p) for g in ("b2", "b3", "b4") for p in "ab"}
    assert {f"../.pages/{name}" for name in os.listdir(pool)} == linked
    assert len(linked) == 4  # b shared, a in three versions
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


def _pages(n: int, version: int = 1) -> dict[str, bytes]:
    return {f"p{i:04d}/index.html": f"{i}.{version}".encode() for i in range(n)}


def _edit(site: Path, build_id: str, n: int, changed: dict[str, bytes]) -> None:
    keep = tuple(p for p in [*_pages(n), "index.html"] if p not in changed)
    publish(site, build_id, changed, full=False, keep=keep)


# Two sizes: the links one edit costs stay a few whatever the site's size.
@pytest.mark.parametrize("n", [100, 400])
def test_an_incremental_publish_changes_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    """Once a spare generation exists, one edit costs a few links, not one per page."""
    site = tmp_path / "site"
    publish(site, "b1", {**_pages(n), "index.html": b"i"})
    for k in range(2, 5):
        _edit(site, f"b{k}", n, {f"p{k:04d}/index.html": f"edit {k}".encode()})
    calls: list[str] = []
    real_symlink = os.symlink

    def counted(*args: object, **kwargs: object) -> None:
        calls.append(str(args[1]))
        real_symlink(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("shared.publish.local.os.symlink", counted)
    _edit(site, "b5", n, {"p0007/index.html": b"edit 5", "index.html": b"i5"})
    # The recycled spare (b2) differed from b4 in pages 3 and 4; this build changes 7.
    assert len(calls) <= 4 + 1  # + the link that is swapped in
    assert (site / "p0007" / "index.html").read_bytes() == b"edit 5"
    assert (site / "p0004" / "index.html").read_bytes() == b"edit 4"
    assert (site / "p0002" / "index.html").read_bytes() == b"edit 2"
    assert (site / "p0010" / "index.html").read_bytes() == b"10.1"
    assert (site / "index.html").read_bytes() == b"i5"
    assert site.resolve().name == "b5"
    assert not (tmp_path / ".site.builds" / "b2").exists()  # it became b5


def test_a_recycled_generation_is_the_same_as_a_fresh_one(tmp_path: Path) -> None:
    """Pages added, removed, changed, turned into a real folder: every build's site is
    exactly its files, whether its generation was made anew or recycled."""
    site = tmp_path / "site"
    files: dict[str, bytes] = {"index.html": b"i", "a/index.html": b"a", "b/index.html": b"b"}
    publish(site, "b01", files)
    steps: list[dict[str, bytes | None]] = [
        {"c/index.html": b"c"},
        {"a/index.html": b"a2", "b/index.html": None},
        {"b/index.html": b"b again", "static/w.js": b"js"},
        {"c/index.html": None, "c/other.txt": b"c is a folder now"},
        {"a/index.html": b"a3", "static/w.js": b"js2"},
        {"c/other.txt": None, "c/index.html": b"c is a page again"},
        {"d/index.html": b"d"},
    ]
    for k, step in enumerate(steps, start=2):
        writes = {p: d for p, d in step.items() if d is not None}
        deletes = tuple(p for p, d in step.items() if d is None)
        files = {**{p: d for p, d in files.items() if p not in deletes}, **writes}
        keep = tuple(p for p in files if p not in writes)
        publish(site, f"b{k:02d}", writes, full=False, keep=keep, delete=deletes)
        on_disk = {
            Path(folder, name).relative_to(site).as_posix()
            for folder, _, names in os.walk(site, followlinks=True)
            for name in names
        } - {MARKER}
        assert on_disk == set(files), k
        assert {p: (site / p).read_bytes() for p in files} == files


def test_a_build_dying_while_recycling_leaves_the_site_and_converges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    publish(site, "b1", {**_pages(20), "index.html": b"i"})
    for k in range(2, 5):
        _edit(site, f"b{k}", 20, {f"p{k:04d}/index.html": b"x"})

    def dies(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr("shared.publish.local.os.symlink", dies)
        with pytest.raises(OSError, match="No space"):
            _edit(site, "b5", 20, {"p0009/index.html": b"lost"})
    assert site.resolve().name == "b4"
    assert (site / "p0004" / "index.html").read_bytes() == b"x"
    _edit(site, "b6", 20, {"p0009/index.html": b"kept"})
    assert (site / "p0009" / "index.html").read_bytes() == b"kept"
    assert (site / "p0003" / "index.html").read_bytes() == b"x"
    builds = tmp_path / ".site.builds"
    assert sorted(p.name for p in builds.iterdir() if p.name[0] != ".") == ["b3", "b4", "b6"]
