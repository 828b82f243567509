"""Imported pages keep their generator's addresses: links written against the site's
routes resolve, each old address is a redirect page that keeps the anchor, llms.txt
lists the canonical address, and the site is named as its generator names it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from shared.config import get_settings
from shared.services.importer import import_directory
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.files import write
from tests.fixtures.wiring import rebuild


def _store() -> Any:
    from shared.bootstrap import open_store

    return open_store(get_settings())


def test_a_react_dev_route_is_a_redirect_page_to_the_page(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``reference/react/useState.md``: ``/reference/react/useState/index.html`` exists and
    leads to the page (its hash kept); llms.txt lists the page's own address only."""
    docs = tmp_path / "src" / "content"
    write(docs, "index.md", "# Inicio\n\nVer [useState](/reference/react/useState#uso).\n")
    write(docs, "reference/react/useState.md", "# useState\n\n## Uso\n\nTexto.\n")
    store = _store()
    report = import_directory(docs, store, HashingEmbedder())
    assert report.failed == []
    assert rebuild(get_settings(), True).status == "ok"
    site = Path(get_settings().site_location)
    redirect = site / "reference" / "react" / "useState" / "index.html"
    html = redirect.read_text(encoding="utf-8")
    assert "../../../reference%E2%80%94react%E2%80%94usestate/" in html
    assert "location.hash" in html
    page = site / "reference%E2%80%94react%E2%80%94usestate" / "index.html"
    assert page.is_file() or (site / "reference—react—usestate" / "index.html").is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert "reference/react/useState" not in llms
    assert "reference%E2%80%94react%E2%80%94usestate" in llms or "reference—react—usestate" in llms
    assert "useState" in home


def test_docusaurus_ids_resolve_links_and_redirect_and_name_the_site(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``guias/Timeouts.md`` with ``id: limites``: a link to ``/docs/guias/limites`` is no
    broken link and ``docs/guias/limites/`` leads to the page; the header says the
    config's ``title`` (BIBLIOTECA_SITE_NAME unset), and no warning names ``id``."""
    website = tmp_path / "website"
    write(website, "docusaurus.config.js", "export default { title: 'Docs de Prueba' }")
    docs = website / "docs"
    write(docs, "intro.md", "---\nslug: /\n---\n# Intro\n\n[Límites](/docs/guias/limites#tope).\n")
    write(
        docs,
        "guias/Timeouts.md",
        "---\nid: limites\nsidebar_label: Límites\n---\n# Límites\n\n## Tope\n",
    )
    store = _store()
    report = import_directory(docs, store, HashingEmbedder())
    assert (report.failed, report.warnings) == ([], [])
    intro = store.pages.get("intro")
    assert "[[guias—timeouts#tope" in intro.content
    built = rebuild(get_settings(), True)
    assert built.status == "ok"
    assert [b for b in built.broken_links if b.get("slug") == "intro"] == []
    site = Path(get_settings().site_location)
    html = (site / "docs" / "guias" / "limites" / "index.html").read_text(encoding="utf-8")
    assert "guias%E2%80%94timeouts/" in html
    page = next(
        Path(folder) / "index.html"
        for folder, _, names in os.walk(site, followlinks=True)
        if "timeouts" in folder and "index.html" in names
    )
    assert "Docs de Prueba" in page.read_text(encoding="utf-8")


def test_imported_docs_pages_show_no_wiki_metadata(env: dict[str, str], tmp_path: Path) -> None:
    """An imported page (it has a kind) shows no "Tipo:"/"Estado:" line; a wiki page
    written without a kind still does."""
    from shared.schema import parse_front_matter
    from shared.services.wiki import create_validated

    docs = tmp_path / "docs"
    write(docs, "guia.md", "# Guía importada\n\nTexto de la guía.\n")
    store = _store()
    import_directory(docs, store, HashingEmbedder())
    front_matter = parse_front_matter({"title": "Decisión", "type": "decision"})
    create_validated("decision—x", front_matter, "Texto.", store, HashingEmbedder(), actor="t")
    assert rebuild(get_settings(), True).status == "ok"
    site = Path(get_settings().site_location)
    imported = (site / "guia" / "index.html").read_text(encoding="utf-8")
    wiki = (site / "decision—x" / "index.html").read_text(encoding="utf-8")
    assert "Tipo:" not in imported
    assert "Estado:" not in imported
    assert "Tipo:" in wiki
