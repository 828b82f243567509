"""The demo wiki (shared/demo/pages): imports cleanly, links resolve, `make run` loads it once."""

from __future__ import annotations

import re
from pathlib import Path

from shared.bootstrap import build_embedder, open_store
from shared.config import get_settings
from shared.demo import DEMO_DIR, load_demo_if_empty
from shared.schema import parse_front_matter
from shared.services.importer import import_directory, markdown_files, parse_file
from shared.site.markdown import render_body

ENGLISH = re.compile(r"\b(?:the|and|is|with|when|of)\b")
SPANISH = re.compile(r"\b(?:el|la|los|las|que|una|con|cuando|del)\b")


def demo_pages() -> dict[str, tuple[dict[str, object], str]]:
    """slug -> (validated front matter, body) of every demo file."""
    pages = {}
    for path in markdown_files(DEMO_DIR):
        parsed = parse_file(path, DEMO_DIR)
        pages[parsed.slug] = (parse_front_matter(parsed.metadata, "").dump(), parsed.content)
    return pages


def test_demo_pages_are_active_sourced_and_short() -> None:
    """Each page is active, has tags and sources, and 150 to 500 words of body."""
    for slug, (front_matter, body) in demo_pages().items():
        assert front_matter["status"] == "active", slug
        assert front_matter["sources"], slug
        assert front_matter["tags"], slug
        words = len(body.split())
        assert 150 <= words <= 500, (slug, words)


def test_demo_links_and_related_slugs_all_exist() -> None:
    """related entries and [[slug]] links point at demo pages, so the site has no broken link."""
    pages = demo_pages()
    for slug, (front_matter, body) in pages.items():
        # the site's own Markdown renderer finds the [[links]] (not those in code spans)
        links = {link.target for link in render_body(body).links}
        targets = set(front_matter["related"]) | links  # type: ignore[arg-type]
        assert targets, f"{slug} links to nothing"
        assert targets <= set(pages), (slug, targets - set(pages))
        assert slug not in targets


def test_the_demo_covers_the_page_types_and_both_languages() -> None:
    """Concepts, decisions, features, runbooks, a guide and references; Spanish and English."""
    pages = demo_pages()
    types = {str(fm["type"]) for fm, _ in pages.values()}
    assert {"concept", "decision", "feature", "runbook", "guide", "reference"} <= types
    english = [
        s
        for s, (_, body) in pages.items()
        if len(ENGLISH.findall(body)) > len(SPANISH.findall(body))
    ]
    assert 2 <= len(english) < len(pages) / 2  # mostly Spanish, some English
    runbooks = {s for s in pages if s.startswith("runbook—")}
    assert {
        "runbook—reindexar-tras-cambiar-de-embedder",
        "runbook—promover-un-borrador",
        "runbook—rebuild-failed",
    } <= runbooks


def test_code_sources_of_the_demo_exist_in_this_repository() -> None:
    """Every code source the demo cites is a file of the checkout: the pages stay true."""
    root = Path(__file__).resolve().parents[2]
    for slug, (front_matter, _) in demo_pages().items():
        for source in front_matter["sources"]:  # type: ignore[attr-defined]
            if source["type"] == "code":
                assert (root / source["ref"]).is_file(), (slug, source["ref"])


def test_the_demo_loads_once_with_no_failure_and_no_warning(env: dict[str, str]) -> None:
    """`make run`'s loader fills an empty store, searchable; then adds nothing; a re-import of
    the folder reports every page unchanged, zero failures and zero warnings (no unknown key)."""
    settings = get_settings()
    store = open_store(settings)
    created = load_demo_if_empty(store, build_embedder(settings))
    assert 12 <= created <= 16
    assert created == len(demo_pages())
    assert load_demo_if_empty(store, build_embedder(settings)) == 0
    assert len(store.pages.list(status="active")) == created
    assert all(store.chunks.vectors_for(record.slug) for record in store.pages.list())
    report = import_directory(DEMO_DIR, store, build_embedder(settings))
    assert (report.created, report.updated, report.unchanged) == (0, 0, created)
    assert (report.failed, report.warnings) == ([], [])
