"""A docs tree imported on both stores: origins, --sync, and the files its pages link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shared.config import get_settings
from shared.ports import SitePublisher
from shared.publish.local import LocalPublisher
from shared.records import Origin, Publication
from shared.schema import parse_front_matter
from shared.services.importer import import_directory
from shared.services.tree_identity import tree_name
from shared.services.wiki import create_validated
from tests.fixtures.crawl import crawl
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.files import write
from tests.fixtures.wiring import rebuild

PNG = b"\x89PNG\r\n\x1a\n" + b"pixels" * 10


def _import(root: Path, store: Any, **kwargs: Any) -> Any:
    return import_directory(root, store, HashingEmbedder(), default_type="guide", **kwargs)


def _status(store: Any, slug: str) -> str:
    return str(store.pages.get(slug).front_matter.get("status", "active"))


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    one, other = tmp_path / "one" / "docs", tmp_path / "other" / "docs"
    write(one, "a.md", "# A\n\nTexto.\n")
    write(one, "guias/b.md", "# B\n\nTexto.\n")
    write(other, "c.md", "# C\n\nTexto.\n")
    return one, other


def test_every_imported_page_keeps_its_origin(store: Any, trees: tuple[Path, Path]) -> None:
    """The tree and the file's path, beside the page: not in its front matter, not moved
    by an edit, and absent for a page written through the API."""
    one, other = trees
    _import(one, store)
    _import(other, store)
    create_validated(
        "guide—api",
        parse_front_matter({"title": "API", "type": "guide"}),
        "x",
        store,
        HashingEmbedder(),
        actor="api",
    )
    assert store.pages.origins(tree_name(one)) == {"a": "a.md", "guias—b": "guias/b.md"}
    assert store.pages.origins(tree_name(other)) == {"c": "c.md"}
    assert "origin" not in store.pages.get("a").front_matter
    write(one, "a.md", "# A\n\nOtro texto.\n")
    assert _import(one, store).updated == 1
    assert store.pages.origins(tree_name(one))["a"] == "a.md"
    store.pages.set_origins({"nadie": Origin("t", "x.md")})  # a page that is gone: skipped
    assert store.pages.origins("t") == {}


def test_sync_archives_only_this_trees_pages_whose_file_is_gone(
    store: Any, trees: tuple[Path, Path]
) -> None:
    one, other = trees
    _import(one, store)
    _import(other, store)
    create_validated(
        "guide—api",
        parse_front_matter({"title": "API", "type": "guide"}),
        "x",
        store,
        HashingEmbedder(),
        actor="api",
    )
    (one / "guias" / "b.md").unlink()
    (other / "c.md").unlink()

    assert _import(one, store).retired == 0  # without --sync nothing leaves
    assert _status(store, "guias—b") == "active"

    report = _import(one, store, sync=True)
    assert (report.retired, report.as_dict()["retired"]) == (1, 1)
    assert _status(store, "guias—b") == "archived"
    assert store.pages.get("guias—b") is not None  # unpublished, never deleted
    assert (_status(store, "a"), _status(store, "c"), _status(store, "guide—api")) == (
        "active",
        "active",
        "active",
    )
    assert _import(one, store, sync=True).retired == 0  # retired once


def test_two_repositories_checked_out_as_website_never_retire_each_others_pages(
    store: Any, tmp_path: Path
) -> None:
    """``a/website`` and ``b/website``, two remotes, ``--sync`` into one store in turn:
    every page of both stays active (the tree is its repository, not its folder's name);
    ``--tree`` names a tree explicitly."""
    for owner in ("a", "b"):
        checkout = tmp_path / owner / "website"
        write(
            checkout, ".git/config", f'[remote "origin"]\n\turl = git@github.com:{owner}/site.git\n'
        )
        write(checkout, f"docs/{owner}.md", f"# {owner.upper()}\n\nTexto.\n")
    first, second = tmp_path / "a" / "website" / "docs", tmp_path / "b" / "website" / "docs"
    _import(first, store, sync=True)
    report = _import(second, store, sync=True)
    assert report.retired == 0
    assert (_status(store, "a"), _status(store, "b")) == ("active", "active")
    assert store.pages.origins("github.com/a/site/docs") == {"a": "a.md"}
    assert _import(first, store, sync=True).retired == 0
    assert _status(store, "b") == "active"
    named = _import(second, store, sync=True, tree_label="equipo-b")
    assert named.retired == 0
    assert store.pages.origins("equipo-b") == {"b": "b.md"}


class Recording:
    """A publisher that remembers what each publication wrote."""

    def __init__(self, inner: SitePublisher) -> None:
        self.inner = inner
        self.written: list[list[str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def publish(self, publication: Publication) -> None:
        self.written.append([o.path for o in publication.writes])
        self.inner.publish(publication)


def test_linked_files_are_stored_published_and_republished_only_when_changed(
    store: Any, tmp_path: Path
) -> None:
    """A relative image, a site-absolute one from --assets, a download: taken into the
    store, published under their content's address; a missing one is an asset entry of
    broken_links; a rebuild writes an asset again only when its bytes changed."""
    docs, public = tmp_path / "site-src" / "docs", tmp_path / "site-src" / "public"
    write(docs, "img/a.png", PNG)
    write(public, "logos/l.png", PNG + b"logo")
    write(public, "files/guia.pdf", b"%PDF-1.4")
    write(
        docs,
        "guia.md",
        '# Guía\n\n![A](img/a.png) ![L](/logos/l.png) <img src="/logos/l.png" alt="otra">\n\n'
        "[PDF](/files/guia.pdf) y ![falta](/logos/nada.png) y `![código](img/a.png)`\n",
    )
    report = _import(docs, store, assets=[public])
    assert report.assets == 3
    content = store.pages.get("guia").content
    assert "](../_assets/" in content
    assert "`![código](img/a.png)`" in content

    publisher = Recording(LocalPublisher(get_settings().site_location))
    built = rebuild(get_settings(), publisher=publisher)
    site = Path(get_settings().site_location)
    assets = sorted(p for p in publisher.written[-1] if p.startswith("_assets/"))
    assert len(assets) == 3
    assert (site / assets[0]).read_bytes() in (PNG, PNG + b"logo", b"%PDF-1.4")
    assert [b for b in built.broken_links if b["kind"] == "asset"] == [
        {"slug": "guia", "target": "logos/nada.png", "kind": "asset"}
    ]
    assert len(crawl(site).kinds("asset")) == 1

    write(docs, "guia.md", (docs / "guia.md").read_text() + "\nMás texto.\n")
    _import(docs, store, assets=[public])
    rebuild(get_settings(), publisher=publisher)
    assert not [p for p in publisher.written[-1] if p.startswith("_assets/")]  # unchanged bytes

    write(docs, "img/a.png", PNG + b"nuevo")
    _import(docs, store, assets=[public])
    rebuild(get_settings(), publisher=publisher)
    again = [p for p in publisher.written[-1] if p.startswith("_assets/")]
    assert len(again) == 1
    assert (site / again[0]).read_bytes() == PNG + b"nuevo"
    assert not (site / next(a for a in assets if a.endswith("a.png"))).exists()  # the old one left
