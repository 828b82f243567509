"""The textual-en corpus (MkDocs Material, mkdocstrings, split config) imported and built as
its team would: what a reader sees on the built site.

Imported once per session (``built_corpus``), with ``--repo`` at the repository so the API
pages are rendered from ``src/textual`` by griffe.
"""

from __future__ import annotations

import html as html_module
import os
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.fixtures.raw_syntax import raw_pages, site_pages

pytestmark = pytest.mark.slow

# Source typos a reader of the real site sees too (a bracket too many or too few): the
# scanner finds them as brackets, and they are not the import's to repair.
TYPO_KINDS = frozenset({"autoref"})


class _Ids(HTMLParser):
    """Ids and links of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.hrefs.append(str(values["href"]))


def parsed(html: str) -> _Ids:
    parser = _Ids()
    parser.feed(html)
    return parser


def test_no_built_page_shows_raw_source_syntax(built_corpus: Any) -> None:
    """The scanner finds no directive, macro, comment, tag, attr list or block fence on
    any page; at most a handful of pages keep a bracket typo of their source."""
    corpus = built_corpus("textual-en")
    raw = raw_pages(corpus.site)
    beyond_typos = {
        page: [f for f in found if f.kind not in TYPO_KINDS] for page, found in raw.items()
    }
    assert {page: found for page, found in beyond_typos.items() if found} == {}
    assert len(raw) <= 3, sorted(raw)


def test_the_import_reports_each_mkdocs_construct(built_corpus: Any) -> None:
    """mkdocstrings rendered from the source, autorefs mapped, comments dropped: counted."""
    counts = built_corpus("textual-en").import_report.constructs.as_dict()
    assert counts["mkdocstrings"]["rendered"] >= 150
    assert counts["autoref"]["mapped"] >= 600
    assert counts["html-comment"]["dropped"] > 0
    assert counts["snippet"]["mapped"] > 0
    assert counts["fence:textual"]["mapped"] > 0
    assert built_corpus("textual-en").import_report.failed == []


def test_the_app_api_page_shows_the_class_signature_and_methods(built_corpus: Any) -> None:
    """api/app.md (``::: textual.app``) documents App from src/textual: signature, methods
    as headings with their dotted ids, the docstring's parameters as a table."""
    html = built_corpus("textual-en").page_html("api—app")
    ids = parsed(html).ids
    assert "textual.app.App" in ids
    assert {"textual.app.App.run", "textual.app.App.exit", "textual.app.App.push_screen"} <= ids
    code = html_module.unescape(re.sub(r"<[^>]+>", "", html))  # the text, highlighted or not
    assert "class App(" in code
    assert "def run(" in code
    assert "<th>Name</th>" in html
    assert not any(i.startswith("textual.app.App._") for i in ids)  # filters: "!^_"


def test_autorefs_resolve_to_the_page_and_anchor_documenting_the_id(built_corpus: Any) -> None:
    """``[`run()`][textual.app.App.run]`` in a guide links to api—app#textual.app.App.run,
    and that anchor exists there."""
    corpus = built_corpus("textual-en")
    hrefs = parsed(corpus.page_html("guide—testing")).hrefs
    target = [h for h in hrefs if h.endswith("#textual.app.App.run")]
    assert target
    assert "api%E2%80%94app/index.html" in target[0]
    assert "textual.app.App.run" in parsed(corpus.page_html("api—app")).ids


def test_every_link_to_an_anchor_of_the_site_finds_its_id(built_corpus: Any) -> None:
    """Autorefs, heading ids, docstring headings' ids and HTML anchors: every ``#anchor``
    of an internal link names an id of the page it leads to."""
    site = built_corpus("textual-en").site
    pages = {p.parent: parsed(p.read_text(encoding="utf-8")) for p in site_pages(site)}
    dead = []
    checked = 0
    for folder, page in pages.items():
        for href in page.hrefs:
            link = urlsplit(href)
            if link.scheme or not link.fragment:
                continue
            target = folder if not link.path else (folder / unquote(link.path)).parent
            found = pages.get(type(folder)(os.path.normpath(target)))
            if found is None:
                continue
            checked += 1
            if unquote(link.fragment) not in found.ids:
                dead.append((folder.name, href))
    assert checked > 500  # the autorefs alone are hundreds
    assert dead == []


def test_the_split_config_gives_the_nav(built_corpus: Any) -> None:
    """mkdocs-online.yml INHERITs mkdocs-common.yml; the nav sits in mkdocs-nav.yml."""
    report = built_corpus("textual-en").import_report
    assert report.nav is not None
    assert report.nav >= 200


def test_fastapi_es_stays_clean(built_corpus: Any) -> None:
    """The other MkDocs corpus: no raw syntax on any built page."""
    assert raw_pages(built_corpus("fastapi-es").site) == {}
