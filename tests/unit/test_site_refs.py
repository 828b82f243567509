"""The scan of built HTML and the dead addresses it finds, against the test crawler."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.site.refs import Refs, broken, matching_anchor, scan, target_of
from tests.fixtures.crawl import Dead, crawl

PAGE_A = """<!doctype html><html><head><link rel="stylesheet" href="../static/site.css"></head>
<body><h2 id="uno">Uno</h2><a href="#uno">aquí</a> <a href="#nada">roto</a>
<a href="../b/index.html#dos">B dos</a> <a href="../b/index.html#tres">B tres</a>
<a href="../c/index.html">C</a> <a href="/b/">B absoluta</a> <img src="../img/x.png" alt="">
<img src="../img/falta.png" alt=""> <a href="https://example.com/x">fuera</a>
<a href="mailto:a@b.c">correo</a> <a href="../docs/manual.pdf">pdf</a>
<pre><code>&lt;a href="../nada/index.html"&gt;</code></pre></body></html>"""
PAGE_B = '<html><body><h2 id="dos">Dos</h2><a href="../a/index.html">A</a></body></html>'


def test_scan_reads_internal_addresses_and_ids_of_tags_only() -> None:
    refs = scan(PAGE_A)
    assert refs.ids == frozenset({"uno"})
    assert ("href", "https://example.com/x") not in refs.links
    assert ("href", "mailto:a@b.c") not in refs.links
    assert ("href", "../nada/index.html") not in refs.links  # escaped code is text
    assert ("src", "../img/x.png") in refs.links
    assert Refs.from_json(refs.to_json()) == refs


@pytest.mark.parametrize(
    ("source", "url", "target"),
    [
        ("a/index.html", "../b/index.html#x", ("b/index.html", "x")),
        ("a/index.html", "#x", ("a/index.html", "x")),
        ("a/index.html", "/b/", ("b/index.html", "")),
        ("a/index.html", "../", ("index.html", "")),
        ("index.html", "a/index.html?q=1", ("a/index.html", "")),
        ("a/index.html", "../../fuera", ("", "")),
        ("a/index.html", "../gu%C3%ADa/index.html", ("guía/index.html", "")),
    ],
)
def test_addresses_resolve_against_the_files_own_url(
    source: str, url: str, target: tuple[str, str]
) -> None:
    assert target_of(source, url) == target


def test_broken_names_missing_pages_anchors_and_assets_by_slug() -> None:
    scanned = {"a/index.html": scan(PAGE_A), "b/index.html": scan(PAGE_B)}
    files = {"a/index.html", "b/index.html", "static/site.css", "img/x.png"}
    slugs = {"a/index.html": "a", "b/index.html": "b"}
    assert broken(scanned, files, slugs) == [
        {"slug": "a", "target": "a#nada", "kind": "anchor"},
        {"slug": "a", "target": "b#tres", "kind": "anchor"},
        {"slug": "a", "target": "c", "kind": "page"},
        {"slug": "a", "target": "docs/manual.pdf", "kind": "asset"},
        {"slug": "a", "target": "img/falta.png", "kind": "asset"},
    ]


def test_the_crawler_finds_what_the_scan_reports(tmp_path: Path) -> None:
    """Two independent readings of one built folder agree, kind by kind."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "static").mkdir()
    (tmp_path / "img").mkdir()
    (tmp_path / "a" / "index.html").write_text(PAGE_A)
    (tmp_path / "b" / "index.html").write_text(PAGE_B)
    (tmp_path / "static" / "site.css").write_text("")
    (tmp_path / "img" / "x.png").write_bytes(b"png")
    found = crawl(tmp_path)
    assert found.pages == 2
    assert found.dead == {
        Dead("a/index.html", "a/index.html#nada", "anchor"),
        Dead("a/index.html", "b/index.html#tres", "anchor"),
        Dead("a/index.html", "c/index.html", "page"),
        Dead("a/index.html", "docs/manual.pdf", "asset"),
        Dead("a/index.html", "img/falta.png", "asset"),
    }
    files = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    scanned = {f: scan((tmp_path / f).read_text()) for f in files if f.endswith(".html")}
    assert len(broken(scanned, files, {})) == len(found.dead)


@pytest.mark.parametrize(
    ("anchor", "ids", "found"),
    [
        ("páginas-de-astro", {"paginas-de-astro", "otra"}, "paginas-de-astro"),  # github-slugger
        ("astroafter-swap", {"astro-after-swap"}, "astro-after-swap"),
        ("image-", {"image", "picture"}, "image"),
        ("textual.app.App.suspend", {"textual.app.App.suspend"}, "textual.app.App.suspend"),
        ("nada", {"otra"}, "nada"),  # no match: left for the report
        ("a-b", {"ab", "a-b-"}, "a-b"),  # ambiguous: never guessed
    ],
)
def test_an_anchor_spelled_by_another_generator_finds_the_id_it_means(
    anchor: str, ids: set[str], found: str
) -> None:
    assert matching_anchor(anchor, ids) == found
