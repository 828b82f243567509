"""No silent loss on the five real corpora: every built page a crawl finds keeping under
98 % of its source's prose words is named in the import's ``fidelity.lossy``, and every
one showing source syntax in ``fidelity.raw``.

The crawl reads the published ``index.html`` files (the article's heading and content,
code included), never the import report nor the importer's own render; the source's
words are the file's body read by ``shared.text.prose``. Each corpus's counts (pages,
lossy, raw, unknown, and the crawl's figures) are recorded as test properties, which
the closing table of the import issue quotes. A corpus that is absent skips.
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import pytest

from shared.services.fidelity import LOSSY_BELOW, kept_share
from shared.services.importer import split_front_matter, tree_name
from shared.text.prose import source_words, words_of
from tests.fixtures.corpora import CORPUS_SPECS, BuiltCorpus
from tests.fixtures.raw_syntax import raw_pages

_SKIPPED = frozenset({"script", "style", "template"})


class _Article(HTMLParser):
    """The text of a built page's own content: its ``<h1>`` and ``div.content``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open divs inside div.content (0: outside it)
        self.in_h1 = False
        self.skipped = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipped += 1
        elif tag == "div" and (self.depth or ("class", "content") in attrs):
            self.depth += 1
        elif tag == "h1" and not self.depth:
            self.in_h1 = True
        self.text.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED and self.skipped:
            self.skipped -= 1
        elif tag == "div" and self.depth:
            self.depth -= 1
        elif tag == "h1":
            self.in_h1 = False
        self.text.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skipped and (self.depth or self.in_h1):
            self.text.append(data)


def article_text(html: str) -> str:
    parser = _Article()
    parser.feed(html)
    parser.close()
    return "".join(parser.text)


def crawled_kept(built: BuiltCorpus) -> dict[str, float]:
    """Each source file's share of prose words its built page shows, by file."""
    origins = built.store.pages.origins(tree_name(built.spec.docs_dir))
    out: dict[str, float] = {}
    for slug, file in origins.items():
        page = built.site / slug / "index.html"
        if not page.is_file():
            out[file] = 0.0  # imported but not published: everything lost
            continue
        text = (built.spec.docs_dir / file).read_text(encoding="utf-8-sig")
        wanted = source_words(split_front_matter(text)[1])
        out[file] = kept_share(wanted, words_of(article_text(page.read_text(encoding="utf-8"))))
    return out


@pytest.mark.parametrize("name", list(CORPUS_SPECS))
def test_every_page_the_crawl_finds_lossy_is_named_in_the_report(
    name: str,
    built_corpus: Callable[[str], BuiltCorpus],
    record_property: Callable[[str, object], None],
) -> None:
    """The crawl's lossy pages are a subset of ``fidelity.lossy``: no silent loss."""
    built = built_corpus(name)
    fidelity = built.import_report.fidelity
    kept = crawled_kept(built)
    crawl_lossy = {file for file, share in kept.items() if share < LOSSY_BELOW}
    reported = {entry["file"] for entry in fidelity.lossy}
    crawl_raw = raw_pages(built.site)
    figures = {
        "pages": fidelity.pages,
        "lossy": len(reported),
        "raw": len(fidelity.raw_files()),
        "unknown": sum(fidelity.unknown.values()),
        "crawl_lossy": len(crawl_lossy),
        "crawl_raw": len(crawl_raw),
    }
    for key, value in figures.items():
        record_property(f"{name}:{key}", value)
    print(name, figures)  # shown with -s: the figures of the closing table
    assert fidelity.pages == len(kept)
    silent = {file: round(kept[file], 3) for file in crawl_lossy - reported}
    assert silent == {}, f"{name}: pages that lost words without a line in the report"


@pytest.mark.parametrize("name", list(CORPUS_SPECS))
def test_every_page_the_crawl_finds_raw_is_named_in_the_report(
    name: str, built_corpus: Callable[[str], BuiltCorpus]
) -> None:
    """A built page of an imported file showing source syntax is in ``fidelity.raw``
    (the home page and listings show other pages' titles: those pages are named)."""
    built = built_corpus(name)
    origins = built.store.pages.origins(tree_name(built.spec.docs_dir))
    named = set(built.import_report.fidelity.raw_files())
    silent = {
        origins[page]: [f.kind for f in found]
        for page, found in raw_pages(built.site).items()
        if page in origins and origins[page] not in named
    }
    assert silent == {}, f"{name}: pages showing source syntax without a line in the report"
