"""`biblioteca import` of a small Docusaurus tree written for the tests, then a full build.

tests/fixtures/trees/docusaurus holds sidebar positions and labels, a category file,
``:::note``, ``<Tabs>``, ``{#id}`` and ``{/*id*/}``, a code group and a route slug: the
kinds of thing held-out Docusaurus trees have, on pages nobody tuned the import to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.raw_syntax import raw_pages, site_pages

TREE = Path(__file__).resolve().parents[1] / "fixtures" / "trees" / "docusaurus" / "docs"


@dataclass
class Built:
    report: Any
    store: Any
    site: Path

    def html(self, slug: str) -> str:
        return (self.site / slug / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    from shared.config import Settings
    from shared.publish.local import LocalPublisher
    from shared.publish.report import CuratorReport
    from shared.services.importer import import_directory
    from shared.services.site_build import build_site
    from shared.store.sqlite import SqliteStore
    from tests.fixtures.embedder import HashingEmbedder

    work = tmp_path_factory.mktemp("docusaurus")
    store = SqliteStore(work / "data")
    report = import_directory(TREE, store, HashingEmbedder(), default_type="guide")
    settings = Settings(
        data_dir=work / "data", site_dir=str(work / "site"), report_dir=str(work / "report")
    )
    build_site(
        settings,
        True,
        store=store,
        publisher=LocalPublisher(str(work / "site")),
        curator_report=CuratorReport(str(work / "report"), str(work / "site")),
    )
    return Built(report, store, (work / "site").resolve())


def test_every_file_is_imported_and_the_generators_keys_are_never_warned(built: Built) -> None:
    """``keywords`` and a route ``slug: /`` are Docusaurus' own: read or dropped quietly."""
    assert (built.report.created, built.report.failed) == (5, [])
    assert built.report.warnings == []


def test_titles_come_from_the_front_matter_else_the_first_heading(built: Built) -> None:
    titles = {r.slug: r.front_matter["title"] for r in built.store.pages.list()}
    assert titles == {
        "intro": "Introducción a Cometa",
        "guias—instalar": "Instalar Cometa",
        "guias—configurar": "Configurar colas",
        "api—index": "Referencia de la API",
        "api—cliente": "El cliente",  # its {#cliente} is the heading's id, not its title
    }


def test_the_nav_follows_positions_labels_the_category_and_index_pages(built: Built) -> None:
    assert built.store.site.load_nav() == {
        "items": [
            {"slug": "intro"},
            {
                "title": "Guías prácticas",
                "items": [
                    {"slug": "guias—configurar"},
                    {"slug": "guias—instalar", "title": "Instalar"},
                ],
            },
            {
                "title": "Referencia de la API",
                "items": [{"slug": "api—index"}, {"slug": "api—cliente"}],
            },
        ]
    }
    html = built.html("guias—instalar")
    assert "Guías prácticas" in html  # its breadcrumb


def test_no_page_shows_raw_syntax(built: Built) -> None:
    assert len(site_pages(built.site)) == 5 + 2  # the pages, the home page, one listing
    assert raw_pages(built.site) == {}


def test_constructs_render_as_the_sites_own_blocks(built: Built) -> None:
    intro = built.html("intro")
    assert '<div class="admonition note">' in intro
    assert '<h2 id="conceptos">Conceptos básicos</h2>' in intro
    assert (
        '<meta name="description" content="Qué es Cometa y para qué sirve, en dos frases.">'
        in intro
    )
    install = built.html("guias—instalar")
    assert install.count('class="tab"') == 2
    assert '<h2 id="comprobar">' in install
    configure = built.html("guias—configurar")
    assert '<h2 id="declarar">' in configure
    assert '<p class="admonition-title">Un consejo</p>' in configure
    assert '<div class="admonition caution">' in configure
    client = built.html("api—cliente")
    assert '<p class="code-title"><code>cliente.py</code></p>' in client
    assert "secreto" not in client  # the code group's hidden file
    assert "<summary>Opciones avanzadas</summary>" in client


def test_the_report_counts_each_construct(built: Built) -> None:
    counts = built.report.constructs.as_dict()
    assert counts["mdx-import"]["dropped"] == 2
    assert counts["mdx-component:TabItem"]["mapped"] == 2
    assert counts["directive:note"]["mapped"] == 1
    assert counts["heading-id"]["mapped"] == 4
    assert counts["mdx-comment"]["dropped"] == 1
    assert counts["mdx-expression"]["dropped"] == 1
    assert counts["code-file:hidden"]["dropped"] == 1


def test_llms_txt_lists_a_page_by_its_description(built: Built) -> None:
    llms = (built.site / "llms.txt").read_text(encoding="utf-8")
    assert "Cómo se declara una cola y cuántos reintentos tiene." in llms
