"""POST /rebuild with MkDocs-flavoured pages: blocks, .md links, the per-page time budget."""

from __future__ import annotations

import re
from typing import Any

import pytest

from shared.services.site_build import bodies
from tests.functions.test_rebuild import Client, edit, put, rebuild, report_body, site

RAW = ("{*", "///", "!!!", "&lt;dfn", "&lt;abbr", '=== "')


def page_html(slug: str) -> str:
    return (site() / slug / "index.html").read_text(encoding="utf-8")


def test_a_page_past_its_render_budget_fails_alone(
    client: Client, auth: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pathological page goes to failed (field content) and the others are published."""
    monkeypatch.setattr(bodies, "RENDER_BUDGET_SECONDS", 0.3)
    put(store, "concept—uno", "Ver [[concept—lenta]].")
    put(store, "concept—lenta", "[" * 400_000 + "]")
    reply = rebuild(client, auth)
    body = report_body(reply)
    assert reply.status_code == 500
    assert body["status"] == "failed"
    assert [(f["slug"], f["field"]) for f in body["failed"]] == [("concept—lenta", "content")]
    assert "to render" in body["failed"][0]["error"]
    assert (site() / "concept—uno" / "index.html").is_file()
    assert not (site() / "concept—lenta").exists()
    assert body["broken_links"] == [
        {"slug": "concept—uno", "target": "concept—lenta", "kind": "page"}
    ]


def test_pages_written_with_mkdocs_syntax_build_without_raw_directives(
    client: Client, auth: Any, store: Any
) -> None:
    """Admonitions, tabs, includes and <abbr>/<dfn> from an API page show no raw markup."""
    put(
        store,
        "guide—mkdocs",
        '!!! note "Nota"\n    Texto.\n\n/// tip | Consejo\n\nMás.\n\n///\n\n'
        '=== "A"\n    uno\n\n=== "B"\n    dos\n\n{* ../../docs_src/app/main.py hl[3] *}\n\n'
        '<abbr title="x">API</abbr> y <dfn title="y">término</dfn>.\n',
        type="guide",
    )
    assert rebuild(client, auth).status_code == 200
    html = page_html("guide—mkdocs")
    assert not [raw for raw in RAW if raw in html]
    assert '<div class="admonition note">' in html
    assert 'class="tabbed-set"' in html
    assert re.search(r"Ejemplo: <code>docs_src/app/main\.py</code>", html)


def test_plain_md_links_resolve_or_are_reported_broken(
    client: Client, auth: Any, store: Any
) -> None:
    """[x](otra.md#a) from tutorial—uno links to tutorial—otra; a missing file is reported."""
    put(store, "tutorial—uno", "[Otra](otra.md#a), [nada](nada.md) y [[tutorial—otra#b|wiki]].")
    put(store, "tutorial—otra", "## A { #a }\n\n## B { #b }\n")
    body = report_body(rebuild(client, auth))
    assert body["broken_links"] == [
        {"slug": "tutorial—uno", "target": "tutorial—nada", "kind": "page"}
    ]
    html = page_html("tutorial—uno")
    assert 'href="../tutorial%E2%80%94otra/index.html#a">Otra</a>' in html
    assert 'href="../tutorial%E2%80%94otra/index.html#b">wiki</a>' in html
    assert '<a class="wikilink broken" href="../tutorial%E2%80%94nada/index.html">nada</a>' in html
    own = html.replace('href="index.md"', "")  # the page's own Markdown (llms/agents)
    assert ".md" not in re.sub(r"<pre>.*?</pre>", "", own, flags=re.S)


def test_the_stored_nav_orders_the_index_and_folders_make_sections(
    client: Client, auth: Any, store: Any
) -> None:
    """mkdocs.yml's nav (SiteState.save_nav) orders the index; unlisted pages follow in
    sections from their folders, sorted the Spanish way."""
    put(store, "index", "Inicio.", title="Inicio")
    put(store, "tutorial—b", title="Bravo")
    put(store, "tutorial—a", title="Alfa")
    put(store, "extra—index", title="Extras")
    put(store, "extra—n", title="Nube")
    put(store, "extra—enye", title="Ñandú")
    put(store, "extra—i", title="Índice")
    store.site.save_nav(
        {"items": [{"slug": "index"}, {"title": "Tutorial", "items": [{"slug": "tutorial—b"}]}]}
    )
    assert rebuild(client, auth).status_code == 200
    index = (site() / "index.html").read_text(encoding="utf-8")
    order = ["Inicio", "Tutorial", "Bravo", "Extras", "Índice", "Nube", "Ñandú", "Alfa"]
    positions = [index.index(f">{title}") for title in order]
    assert positions == sorted(positions)


def test_a_new_page_re_renders_only_its_neighbours_in_the_reading_order(
    client: Client, auth: Any, store: Any
) -> None:
    """Previous/next and breadcrumbs are baked into pages; the sidebar is nav.js (and a
    frame per section without script). A new page re-renders itself and its two
    neighbours; renaming a section's index page
    re-renders the pages under it (their breadcrumbs)."""
    put(store, "t—index", title="Tema")
    for slug, title in (("t—a", "A"), ("t—c", "C"), ("t—e", "E"), ("u—x", "X"), ("u—y", "Y")):
        put(store, slug, title=title)
    assert report_body(rebuild(client, auth))["built"] == 6
    put(store, "t—d", title="D")
    body = report_body(rebuild(client, auth))
    assert (body["built"], body["unchanged"]) == (3, 4)
    assert "../t%E2%80%94d/index.html" in page_html("t—c")
    assert "../t%E2%80%94d/index.html" in page_html("t—e")
    assert '"s":"t—d"' in (site() / "nav.js").read_text(encoding="utf-8")
    edit(store, "t—index", title="Tema nuevo")
    body = report_body(rebuild(client, auth))
    # the index page itself, its next page (t—a shows it as previous), and t—a, c, d, e
    # under it (breadcrumbs): five pages, not the u— section.
    assert (body["built"], body["unchanged"]) == (5, 2)
    assert "Tema nuevo" in page_html("t—e")


def test_search_shards_are_kept_when_no_word_changed(
    client: Client, auth: Any, store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit that changes no word (markup only) keeps the shards, not even built again;
    a new word in the body rebuilds them from the manifest (the other pages not read)."""
    from shared.site import renderer

    builds: list[int] = []
    real = renderer.render_search_shards
    monkeypatch.setattr(renderer, "render_search_shards", lambda *a: builds.append(1) or real(*a))
    put(
        store,
        "guide—alta",
        "## Requisitos\n\nTexto del alta.",
        title="Alta de usuarios",
        type="guide",
    )
    put(store, "guide—baja", "## Pasos\n\nCerrar la cuenta.", title="Baja", type="guide")
    assert rebuild(client, auth).status_code == 200
    shard = site() / "search" / "req.js"
    assert '"guide—alta"' in shard.read_text(encoding="utf-8")
    before = shard.stat().st_ino
    edit(store, "guide—alta", content="## Requisitos\n\n*Texto* del **alta**.")
    assert report_body(rebuild(client, auth))["built"] == 1
    assert (site() / "search" / "req.js").stat().st_ino == before  # the same file, linked
    assert len(builds) == 1  # only the first build made shards
    edit(store, "guide—alta", content="## Requisitos\n\nTexto del alta, con permisos.")
    assert report_body(rebuild(client, auth))["built"] == 1
    assert '"permisos"' in (site() / "search" / "per.js").read_text(encoding="utf-8")
    assert '"cerrar"' in (site() / "search" / "cer.js").read_text(encoding="utf-8")  # kept page
    passages = (site() / "guide—alta" / "search.js").read_text(encoding="utf-8")
    assert '["requisitos","Requisitos","Texto del alta, con permisos."]' in passages
    assert len(builds) == 2
