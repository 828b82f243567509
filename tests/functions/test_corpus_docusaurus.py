"""The Docusaurus corpus (docusaurus-en: Docusaurus 3's own MDX docs) imported and built:
nothing raw, partials put in place, the dialect named from ``docusaurus.config.ts``."""

from __future__ import annotations

import re
from typing import Any

from shared.services.importer import PARTIAL, markdown_files
from tests.fixtures.raw_syntax import raw_pages


def docusaurus(built_corpus: Any) -> Any:
    return built_corpus("docusaurus-en")


def test_no_built_page_shows_raw_syntax(built_corpus: Any) -> None:
    corpus = docusaurus(built_corpus)
    assert corpus.import_report.failed == []
    assert raw_pages(corpus.site) == {}


def test_the_dialect_is_named_with_the_file_that_decided(built_corpus: Any) -> None:
    corpus = docusaurus(built_corpus)
    assert corpus.import_report.dialect == {
        "name": "docusaurus",
        "why": "../docusaurus.config.ts",
    }


def test_every_file_but_the_partials_is_a_page_and_admonitions_tabs_and_partials_are_counted(
    built_corpus: Any,
) -> None:
    """Docusaurus makes no page of a ``_``-prefixed file (its default ``exclude``): the
    import names each such partial in a warning and puts its text where a page imports it."""
    corpus = docusaurus(built_corpus)
    files = markdown_files(corpus.spec.docs_dir)
    partials = sorted(
        p.relative_to(corpus.spec.docs_dir).as_posix() for p in files if p.name.startswith("_")
    )
    assert len(partials) == 2  # the corpus README: 87 pages and 2 partials
    assert corpus.import_report.created == len(files) - len(partials)
    warned = sorted(w["file"] for w in corpus.import_report.warnings if w["warning"] == PARTIAL)
    assert warned == partials
    counts = corpus.import_report.constructs.as_dict()
    assert counts["directive:tip"]["mapped"] >= 50
    assert counts["mdx-component:TabItem"]["mapped"] >= 50
    assert counts["mdx-partial"]["mapped"] >= 1


def test_magic_comments_are_applied_not_shown(built_corpus: Any) -> None:
    """``// highlight-next-line`` comments become highlighted lines: the page that uses
    them (and only quotes their names in prose) shows none as a comment in its code."""
    corpus = docusaurus(built_corpus)
    counts = corpus.import_report.constructs.as_dict()
    assert counts["fence:magic-comment"]["mapped"] >= 100
    code = [
        re.sub(r"<[^>]+>", "", block)
        for path in corpus.built_pages()
        for lang, block in re.findall(
            r'<pre><code class="language-([\w-]+)[^"]*">(.*?)</pre>', path.read_text(), re.S
        )
        if lang not in ("md", "markdown", "mdx")
    ]
    assert code
    assert not any("// highlight-next-line" in block for block in code)
