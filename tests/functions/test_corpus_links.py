"""Links, anchors and assets of the three real corpora, built: the report is the crawl.

Each corpus is imported and built once (``built_corpus``); a crawler of the built folder
(``tests/fixtures/crawl.py``, html.parser, no code shared with the build) lists every
dead internal address, and ``broken_links`` must list exactly those. An incremental
rebuild after a page loses its anchors and another leaves the site keeps both equal.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.corpora import build_corpus
from tests.fixtures.crawl import Crawl, Dead, crawl

CORPORA = ["fastapi-es", "textual-en", "astro-es"]
_WIKI_ANCHOR = re.compile(r"\[\[([^\[\]#|\n]+)#([^\[\]|\n]+)")


def as_reported(dead: Dead) -> tuple[str, str, str]:
    """A crawl's dead address named as the report names it (a page file by its slug)."""

    def name(path: str) -> str:
        return path.removesuffix("/index.html")

    return (name(dead.source), name(dead.target.replace("/index.html#", "#")), dead.kind)


def reported(report: Any) -> set[tuple[str, str, str]]:
    return {(b["slug"], b["target"], b["kind"]) for b in report.broken_links}


def crawled(site: Path) -> tuple[Crawl, set[tuple[str, str, str]]]:
    found = crawl(site)
    return found, {as_reported(d) for d in found.dead}


@pytest.mark.parametrize("name", CORPORA)
def test_broken_links_are_exactly_the_dead_addresses_a_crawler_finds(
    built_corpus: Any, name: str
) -> None:
    corpus = built_corpus(name)
    assert corpus.import_report.created > 0
    found, dead = crawled(corpus.site)
    assert found.pages > corpus.import_report.created  # every page and the index
    assert reported(corpus.build_report) == dead
    assert len(corpus.build_report.broken_links) == len(found.dead)


def in_source(docs: Path, target: str) -> bool:
    """Whether the docs tree has a page file for a dead page target (its route, with or
    without a first segment that is the locale; a slug's folders joined with '—')."""
    route = target.removesuffix("/index.html").replace("—", "/")
    routes = [route, route.partition("/")[2]]
    return any(
        (docs / f"{r}{ext}").is_file() or (docs / r / f"index{ext}").is_file()
        for r in routes
        if r
        for ext in (".md", ".mdx")
    )


@pytest.mark.parametrize("name", CORPORA)
def test_every_dead_page_is_missing_from_the_source_tree_too(built_corpus: Any, name: str) -> None:
    """What stays dead is a real dead link of the docs (the corpora are parts of their
    repositories), never a page the import failed to place."""
    corpus = built_corpus(name)
    found = crawl(corpus.site)
    assert [d for d in found.kinds("page") if in_source(corpus.spec.docs_dir, d.target)] == []


@pytest.mark.parametrize("name", CORPORA)
def test_no_image_is_missing_and_no_page_is_falsely_stale(built_corpus: Any, name: str) -> None:
    """Every image a built page shows is published unless its file is in no folder of the
    corpus (fastapi-es's Spanish pages link /img/… of the English docs, which the tree does
    not hold: those are reported as dead assets, not hidden), and no page says it may be
    outdated: the code index never lost a path these docs cite (examples are not citations)."""
    corpus = built_corpus(name)
    names_in_tree = {p.name for p in corpus.spec.root.rglob("*") if p.is_file()}
    missing = crawl(corpus.site).missing_src
    assert {d.target.rsplit("/", 1)[-1] for d in missing}.isdisjoint(names_in_tree)
    reported_assets = {
        b["target"] for b in corpus.build_report.broken_links if b["kind"] == "asset"
    }
    assert {d.target for d in missing} <= reported_assets
    states = [r.freshness.state for r in corpus.store.pages.list() if r.freshness is not None]
    assert states
    assert "stale" not in states


@pytest.mark.parametrize("name", CORPORA)
def test_an_incremental_rebuild_keeps_the_report_equal_to_the_crawl(
    name: str, tmp_path: Path
) -> None:
    """A page that loses its anchors breaks the links into them, an archived page the
    links to it; the pages linking to them are not edited, yet the report knows."""
    corpus = build_corpus(name, tmp_path)
    records = corpus.store.pages.list()
    anchored = [m.groups() for r in records for m in _WIKI_ANCHOR.finditer(r.content)]
    published = {r.slug for r in records}
    target, anchor = next((t, a) for t, a in anchored if t in published)
    gone = next(t for t, _ in anchored if t in published and t != target)
    edit(corpus.store, target, content="Sin secciones.")
    edit(corpus.store, gone, status="archived")
    report = corpus.rebuild()
    assert not report.full
    _, dead = crawled(corpus.site)
    assert reported(report) == dead
    assert any(t == f"{target}#{anchor}" and k == "anchor" for _, t, k in dead)
    assert any(t == gone and k == "page" for _, t, k in dead)


def edit(store: Any, slug: str, content: str | None = None, **front_matter: Any) -> None:
    record = store.pages.get(slug)
    store.pages.update(
        dataclasses.replace(
            record,
            front_matter={**record.front_matter, **front_matter},
            content=record.content if content is None else content,
            version=record.version + 1,
            updated_at=datetime.now(UTC),
        ),
        None,
        expected_version=record.version,
    )
