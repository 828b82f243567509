"""The VitePress corpus (vitepress-en: VitePress's own docs) imported and built: nothing raw,
no word swallowed, the dialect named from its ``.vitepress/config.ts``."""

from __future__ import annotations

import re
from typing import Any

from shared.services.importer import markdown_files
from tests.fixtures.raw_syntax import raw_pages, visible_text


def vitepress(built_corpus: Any) -> Any:
    return built_corpus("vitepress-en")


def test_no_built_page_shows_raw_syntax(built_corpus: Any) -> None:
    """Containers in every spelling, code groups, badges in headings and titles, math,
    ``<script setup>``: the independent scanner finds nothing on any built page."""
    corpus = vitepress(built_corpus)
    assert corpus.import_report.failed == []
    assert raw_pages(corpus.site) == {}


def test_the_dialect_is_named_with_the_file_that_decided(built_corpus: Any) -> None:
    corpus = vitepress(built_corpus)
    assert corpus.import_report.dialect == {
        "name": "vitepress",
        "why": "../.vitepress/config.ts",
    }


def test_every_file_is_a_page_and_containers_are_counted(built_corpus: Any) -> None:
    corpus = vitepress(built_corpus)
    assert corpus.import_report.created == len(markdown_files(corpus.spec.docs_dir))
    counts = corpus.import_report.constructs.as_dict()
    assert counts["directive:tip"]["mapped"] >= 10
    assert counts["directive:code-group"]["mapped"] >= 5
    assert counts["script-block"]["dropped"] >= 1


def test_code_group_tabs_and_fence_titles_reach_the_page(built_corpus: Any) -> None:
    """``::: code-group`` fences are tabs labelled by their ``[title]``; a titled fence
    shows its title; no twoslash cut is left and the ``[!!code`` escape shows as the
    notation it stands for (the pages about the notation quote it in prose)."""
    corpus = vitepress(built_corpus)
    html = corpus.page_html("guide—getting-started")
    assert 'class="tabbed-set' in html or "tabbed" in html
    pages = [p.read_text(encoding="utf-8") for p in corpus.built_pages()]
    assert any('class="code-title"' in page for page in pages)
    assert not any("[!!code" in page or "---cut---" in page for page in pages)


def test_the_text_after_a_script_setup_block_is_kept(built_corpus: Any) -> None:
    """Issue 30 item 12: a page with ``<script setup>`` keeps its text after it."""
    corpus = vitepress(built_corpus)
    for path in markdown_files(corpus.spec.docs_dir):
        source = path.read_text(encoding="utf-8")
        if "<script setup>" not in source:
            continue
        heading = source.rsplit("\n## ", 1)[-1].split("\n", 1)[0]
        words = re.sub(r"`[^`]*`|<[^>]*>|\{[^}]*\}", " ", heading).split()
        slug = path.relative_to(corpus.spec.docs_dir).with_suffix("").as_posix()
        page = visible_text(corpus.page_html(slug.replace("/", "—")))
        assert all(word in page for word in words), (slug, heading)
