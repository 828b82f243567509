"""Pages for machines (issue 13 item 3): llms.txt, <slug>/index.md, absolute sitemap URLs."""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml

from shared.config import get_settings
from tests.functions.test_rebuild import Client, edit, put, rebuild, report_body, site


@pytest.fixture
def site_url(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("BIBLIOTECA_SITE_URL", "https://docs.example.org/wiki/")
    get_settings.cache_clear()
    return "https://docs.example.org/wiki"


def test_every_page_has_its_markdown_with_front_matter_and_links_it(
    client: Client, auth: Any, store: Any
) -> None:
    put(store, "tutorial—body", "# Cuerpo\n\nTexto con `código`.\n", title="Cuerpo", tags=["api"])
    assert rebuild(client, auth).status_code == 200
    text = (site() / "tutorial—body" / "index.md").read_text(encoding="utf-8")
    front, _, body = text.removeprefix("---\n").partition("---\n")
    meta = yaml.safe_load(front)
    assert (meta["slug"], meta["title"], meta["tags"], meta["version"]) == (
        "tutorial—body",
        "Cuerpo",
        ["api"],
        1,
    )
    assert body == "\n# Cuerpo\n\nTexto con `código`.\n"
    html = (site() / "tutorial—body" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="alternate" type="text/markdown" href="index.md">' in html
    assert '<a href="index.md" type="text/markdown">' in html
    # The page folder is still one pooled folder (HTML and Markdown), linked from the site.
    assert os.path.islink(site() / "tutorial—body")


def test_an_edit_rewrites_the_markdown_and_a_removed_page_takes_it_away(
    client: Client, auth: Any, store: Any
) -> None:
    put(store, "concept—a", "Uno.")
    put(store, "concept—b", "Dos.")
    assert rebuild(client, auth).status_code == 200
    edit(store, "concept—a", content="Uno, editado.")
    assert report_body(rebuild(client, auth))["built"] == 1
    assert "Uno, editado." in (site() / "concept—a" / "index.md").read_text(encoding="utf-8")
    edit(store, "concept—b", status="archived")
    assert report_body(rebuild(client, auth))["removed"] == 1
    assert not (site() / "concept—b").exists()


def test_llms_txt_lists_sections_and_pages_with_absolute_urls(
    client: Client, auth: Any, store: Any, site_url: str
) -> None:
    put(store, "index", "Bienvenida a la documentación del proyecto.", title="Inicio")
    put(store, "tutorial—index", "Empieza aquí.", title="Tutorial")
    put(store, "tutorial—body", "El cuerpo de la petición.", title="Cuerpo [JSON]")
    assert rebuild(client, auth).status_code == 200
    lines = (site() / "llms.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Biblioteca"
    assert lines[2].startswith("> ")
    assert (
        f"- [Inicio]({site_url}/index/index.md): Bienvenida a la documentación del proyecto."
        in lines
    )
    section = lines.index("## Tutorial")
    assert (
        lines[section + 2]
        == f"- [Tutorial]({site_url}/tutorial%E2%80%94index/index.md): Empieza aquí."
    )
    assert lines[section + 3].startswith(
        f"- [Cuerpo (JSON)]({site_url}/tutorial%E2%80%94body/index.md)"
    )


def test_the_sitemap_is_absolute_when_the_site_url_is_set(
    client: Client, auth: Any, store: Any, site_url: str
) -> None:
    put(store, "concept—a")
    assert rebuild(client, auth).status_code == 200
    sitemap = (site() / "sitemap.xml").read_text(encoding="utf-8")
    assert f"<loc>{site_url}/</loc>" in sitemap
    assert f"<loc>{site_url}/concept%E2%80%94a/index.html</loc>" in sitemap


def test_without_a_site_url_llms_txt_and_the_sitemap_are_relative(
    client: Client, auth: Any, store: Any
) -> None:
    put(store, "concept—a", title="A")
    assert rebuild(client, auth).status_code == 200
    assert "- [A](concept%E2%80%94a/index.md)" in (site() / "llms.txt").read_text(encoding="utf-8")
    assert "<loc>concept%E2%80%94a/index.html</loc>" in (site() / "sitemap.xml").read_text()


def test_a_promoted_archived_answer_links_its_wiki_sources_and_follows_renames(
    client: Client, auth: Any, store: Any
) -> None:
    """An archived answer cites pages as wiki sources: links by title, re-rendered when
    the cited page is renamed; a cited page that is not published is a broken link."""
    put(store, "guide—alta", title="Alta")
    sources = [{"type": "wiki", "ref": "guide—alta"}, {"type": "wiki", "ref": "guide—nada"}]
    put(store, "concept—respuesta", "Respuesta archivada.", sources=sources)
    body = report_body(rebuild(client, auth))
    assert body["broken_links"] == [
        {"slug": "concept—respuesta", "target": "guide—nada", "kind": "page"}
    ]
    html = (site() / "concept—respuesta" / "index.html").read_text(encoding="utf-8")
    assert '<a href="../guide%E2%80%94alta/index.html" rel="noopener">Alta</a>' in html
    edit(store, "guide—alta", title="Alta de usuarios")
    assert report_body(rebuild(client, auth))["built"] >= 2
    html = (site() / "concept—respuesta" / "index.html").read_text(encoding="utf-8")
    assert ">Alta de usuarios</a>" in html
