"""The renderer: pages, listings and machine files from plain values, always escaped."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any
from xml.etree import ElementTree

import pytest

from shared.schema import Page, parse_front_matter
from shared.site import renderer
from shared.site.entries import SiteView, entry_of, summary
from shared.site.links import outgoing
from shared.site.markdown import render_body
from shared.text.code_paths import code_href

PAYLOAD = "<script>alert(1)</script><img src=x onerror=alert(1)>\"'"
WHEN = datetime(2026, 3, 4, 5, 6, tzinfo=UTC)


def page(slug: str, content: str = "Texto de la página.", **front_matter: Any) -> Page:
    fm = {"title": slug.title(), "type": "concept", **front_matter}
    return Page(
        slug=slug,
        front_matter=parse_front_matter(fm),
        content=content,
        version=3,
        created_at=WHEN,
        updated_at=WHEN,
    )


def site_of(*pages: Page) -> SiteView:
    bodies = {p.slug: render_body(p.content) for p in pages}
    return SiteView(
        entries={p.slug: entry_of(p) for p in pages},
        links={p.slug: outgoing(bodies[p.slug].targets(), p.front_matter.related) for p in pages},
    )


def rendered(target: Page, *others: Page, config: renderer.SiteConfig | None = None) -> str:
    site = site_of(target, *others)
    body = render_body(target.content)
    return renderer.render_page(target, body, site, config or renderer.SiteConfig())


def assert_inert(html: str) -> None:
    """None of PAYLOAD's markup survives; its escaped text does."""
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_hostile_title_is_escaped_everywhere_it_appears() -> None:
    """A title with tags is text in <title>, <h1>, links, listings and the search index."""
    evil = page("concept—evil", title=PAYLOAD)
    other = page(
        "guide—other", content="Ver [[concept—evil]].", type="guide", related=["concept—evil"]
    )
    site = site_of(evil, other)
    config = renderer.SiteConfig()
    assert_inert(rendered(evil, other))
    assert_inert(renderer.render_page(other, render_body(other.content), site, config))
    assert_inert(renderer.render_index(site, config))
    assert_inert(renderer.render_listing("concept", site, config))
    search = renderer.render_search_index(site)
    assert "<" not in search
    assert json.loads(search)["pages"][0]["title"] == PAYLOAD


@pytest.mark.parametrize(
    "field",
    [
        {"tags": [PAYLOAD]},
        {"category": PAYLOAD},
        {"sources": [PAYLOAD]},
        {"sources": [{"type": "doc", "ref": PAYLOAD}]},
        {"sources": [{"type": "code", "ref": f"repo:{PAYLOAD}"}]},
        {"generated": {"by": PAYLOAD, "at": "2026-01-01T00:00:00Z"}},
    ],
    ids=["tags", "category", "code-source", "doc-source", "linked-code-source", "generated"],
)
def test_every_front_matter_value_is_escaped(field: dict[str, Any]) -> None:
    """Tags, category, source refs and provenance never reach the page as markup."""
    config = renderer.SiteConfig(code_url="https://git.example/{repo}/blob/main/{path}")
    assert_inert(rendered(page("concept—x", **field), config=config))


def test_hostile_wiki_link_targets_and_texts_stay_text() -> None:
    """[[...]] with quotes or tags renders as an inert broken-link mark."""
    content = (
        '[[a" onclick="alert(1)]] [[x|<img src=x onerror=alert(1)>]] [[<script>alert(1)</script>]]'
    )
    html = rendered(page("concept—x", content=content))
    assert re.search(r"<[^>]*\son\w+\s*=", html) is None  # no event handler in any tag
    assert "<img src=x" not in html
    assert "<script>alert" not in html
    assert html.count('class="wikilink broken"') == 3


def test_wiki_links_resolve_to_relative_urls_with_the_target_title() -> None:
    """[[slug]] shows the target's title, [[slug|text]] the text; both link ../<slug>/."""
    target = page("guide—instalación", title="Instalación", type="guide")
    source = page("concept—x", content="[[guide—instalación]] o [[guide—instalación|aquí]]")
    html = rendered(source, target)
    href = "../guide%E2%80%94instalaci%C3%B3n/index.html"
    assert f'<a class="wikilink" href="{href}">Instalación</a>' in html
    assert f'<a class="wikilink" href="{href}">aquí</a>' in html


def test_unknown_wiki_link_and_related_targets_stay_links_marked_broken() -> None:
    """[[nadie]] and a related page not published link where the page would be, marked
    broken: the dead address is what the build's scan (``site.refs``) reports."""
    source = page("concept—x", content="[[nadie]] [[concept—y]]", related=["tampoco"])
    html = rendered(source, page("concept—y"))
    assert '<a class="wikilink broken" href="../nadie/index.html">nadie</a>' in html
    assert '<a class="wikilink broken" href="../tampoco/index.html">tampoco</a>' in html
    assert '<a class="wikilink" href="../concept%E2%80%94y/index.html">' in html


def test_related_pages_and_backlinks_are_shown() -> None:
    """A page lists its related pages and the pages linking to it (by wiki link or related)."""
    hub = page("concept—hub", title="Hub", related=["concept—a"])
    a = page("concept—a", title="Página A", content="Vuelve al [[concept—hub]].")
    b = page("concept—b", title="Página B", related=["concept—hub"])
    html = rendered(hub, a, b)
    related = html.split('class="pages related"')[1].split("</ul>")[0]
    backlinks = html.split('class="pages backlinks"')[1].split("</ul>")[0]
    assert "Página A" in related
    assert "Página A" in backlinks
    assert "Página B" in backlinks
    assert "Hub" not in backlinks


def test_page_shows_type_status_and_sources() -> None:
    """The metadata line names the type (linked to its listing) and the status."""
    html = rendered(page("concept—x", sources=["app/main.py", {"type": "doc", "ref": "Manual"}]))
    assert '<a href="../type/concept/index.html">Concepto</a>' in html
    assert "Estado: activa" in html
    assert "<code>app/main.py</code>" in html
    assert "<code>Manual</code>" in html


def test_code_sources_are_linked_when_a_url_template_is_configured() -> None:
    """A code ref becomes a link through BIBLIOTECA_CODE_URL; other refs stay text."""
    config = renderer.SiteConfig(code_url="https://github.com/org/app/blob/main/{path}")
    html = rendered(
        page("concept—x", sources=["src/app main.py#L10", {"type": "doc", "ref": "src/x.py"}]),
        config=config,
    )
    assert 'href="https://github.com/org/app/blob/main/src/app%20main.py#L10"' in html
    assert "<code>src/x.py</code>" in html


@pytest.mark.parametrize(
    ("ref", "template", "expected"),
    [
        ("app/main.py", "https://h/{path}", "https://h/app/main.py"),
        ("web:src/a.ts", "https://h/{repo}/blob/{path}", "https://h/web/blob/src/a.ts"),
        ("./app/x.py", "https://h/{path}", "https://h/app/x.py"),
        ("app/main.py", "https://h/{repo}/{path}", None),  # the template needs a repo
        ("../../etc/passwd", "https://h/{path}", None),
        ("https://evil/x", "https://h/{path}", None),
        ("app/main.py", "javascript:alert('{path}')", None),
        ("app/main.py", None, None),
    ],
)
def test_code_href(ref: str, template: str | None, expected: str | None) -> None:
    """Code refs fill the template's {repo}/{path}; anything odd is not linked."""
    assert code_href(ref, template) == expected


def widget_tags(html: str) -> tuple[str, str]:
    link = re.search(r'<link rel="stylesheet" href="([^"]*)static/widget\.css">', html)
    script = re.search(
        r'<script src="([^"]*)static/widget\.js" defer data-ask-url="([^"]*)" '
        r'data-lang="(es|en)"></script>',
        html,
    )
    assert link is not None
    assert script is not None
    assert link.group(1) == script.group(1)
    return link.group(1), script.group(2)


def test_every_kind_of_page_includes_the_widget_with_its_root() -> None:
    """Index, listings and pages load static/widget.* relative to the site root."""
    p = page("concept—x")
    site = site_of(p)
    config = renderer.SiteConfig(ask_url="https://api.example/ask")
    assert widget_tags(renderer.render_index(site, config)) == ("", "https://api.example/ask")
    assert widget_tags(renderer.render_listing("concept", site, config))[0] == "../../"
    assert widget_tags(renderer.render_page(p, render_body(p.content), site, config))[0] == "../"


def test_the_ask_url_is_attribute_escaped() -> None:
    """A hostile BIBLIOTECA_ASK_URL cannot break out of the data attribute."""
    p = page("concept—x")
    html = renderer.render_index(site_of(p), renderer.SiteConfig(ask_url='"><script>x</script>'))
    assert "<script>x" not in html
    assert 'data-ask-url="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in html


def test_page_language_follows_its_text() -> None:
    """An English page gets lang="en" and English labels; Spanish is the default."""
    english = page("concept—en", content="This is how the cache works and what you should do.")
    spanish = page("concept—es", content="Así es como funciona la caché y lo que se debe hacer.")
    html_en = rendered(english, spanish)
    html_es = rendered(spanish, english)
    assert '<html lang="en">' in html_en
    assert 'data-lang="en"' in html_en
    assert "Type:" in html_en
    assert '<html lang="es">' in html_es
    assert "Tipo:" in html_es


def test_leading_title_heading_is_not_repeated() -> None:
    """A body opening with '# <title>' shows the title once."""
    html = rendered(page("concept—x", title="Caché", content="# Caché { #cache }\n\nTexto."))
    assert html.count("<h1") == 1


def test_index_shows_sections_with_their_pages_in_spanish_order() -> None:
    """index.html: one section per type here (derived slugs), pages by title (accents
    ignored), and a line linking each type's listing."""
    site = site_of(
        page("guide—b", title="Beta", type="guide"),
        page("concept—z", title="zeta"),
        page("concept—i", title="Índice"),
        page("concept—a", title="Alfa"),
        page("tutorial—index", title="Tutorial"),
        page("tutorial—uno", title="Uno"),
    )
    html = renderer.render_index(site, renderer.SiteConfig())
    sections = re.findall(r'<section class="nav-section"><h2>(.*?) <span', html)
    assert sections == [
        "Conceptos",
        "Guías",
        '<a href="tutorial%E2%80%94index/index.html">Tutorial</a>',
    ]
    assert html.index("Alfa") < html.index("Índice") < html.index("zeta") < html.index("Beta")
    assert 'href="type/concept/index.html">Conceptos</a> <span class="muted">(5)</span>' in html
    assert renderer.listing_types(site) == ["concept", "guide"]


def test_sitemap_is_valid_xml_with_absolute_urls_when_the_base_is_known() -> None:
    """sitemap.xml parses and lists every page and listing under the base URL."""
    site = site_of(page("concept—a&b"), page("guide—c", type="guide"))
    config = renderer.SiteConfig(base_url="https://storage.googleapis.com/b/site/")
    root = ElementTree.fromstring(renderer.render_sitemap(site, config))
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in root.findall("s:url/s:loc", ns)]
    assert "https://storage.googleapis.com/b/site/concept%E2%80%94a%26b/index.html" in locs
    assert "https://storage.googleapis.com/b/site/type/guide/index.html" in locs
    assert all(loc and loc.startswith("https://") for loc in locs)


def test_search_index_has_the_contract_fields() -> None:
    """search-index.json: slug, title, type, tags and a short text per page."""
    p = page(
        "concept—x",
        content="# T\n\n```\ncódigo\n```\nTexto **útil** con [enlace](http://x).",
        tags=["Uno"],
    )
    data = json.loads(renderer.render_search_index(site_of(p)))
    assert data["pages"] == [
        {
            "slug": "concept—x",
            "title": "Concept—X",
            "type": "concept",
            "tags": ["uno"],
            "text": "Texto útil con enlace.",
            "url": "concept%E2%80%94x/index.html",
        }
    ]


def test_summary_is_short_and_plain() -> None:
    """A summary drops code, headings and markup and is cut on a word boundary."""
    text = summary("# Título\n\n" + "palabra " * 100)
    assert len(text) <= 201
    assert text.endswith("…")
    assert "#" not in text


def test_report_escapes_what_it_shows() -> None:
    """The curator report is private but still escapes slugs, titles and errors."""
    html, text = renderer.render_report(
        {
            "build_id": "b",
            "built_at": "t",
            "status": "failed",
            "built": 0,
            "unchanged": 0,
            "removed": 0,
            "published": 0,
            "failed": [{"slug": "x", "field": "title", "error": PAYLOAD}],
            "broken_links": [{"slug": "x", "target": PAYLOAD}],
            "drafts": [
                {
                    "slug": "d",
                    "title": PAYLOAD,
                    "updated_at": "",
                    "generated_by": None,
                    "problem": None,
                }
            ],
        }
    )
    assert_inert(html)
    assert json.loads(text)["failed"][0]["error"] == PAYLOAD


def test_config_key_changes_with_what_changes_the_output() -> None:
    """The manifest's render key differs when the ask URL or the code URL template differ."""
    base = renderer.SiteConfig().key()
    assert renderer.SiteConfig(ask_url="/other").key() != base
    assert renderer.SiteConfig(code_url="https://h/{path}").key() != base
    assert renderer.SiteConfig().key() == base


def test_a_summary_leaves_out_style_and_script_blocks() -> None:
    text = "<style>\n.md h1 { display: none; }\n</style>\n\nFastAPI es rápido.\n"
    assert summary(text) == "FastAPI es rápido."


def test_wiki_and_url_sources_are_links_the_rest_text() -> None:
    """An archived answer cites wiki pages: on the site they link to them by title (or
    by slug where the page is not published)."""
    target = page(
        "concept—respuesta",
        sources=[
            {"type": "wiki", "ref": "guide—alta"},
            {"type": "wiki", "ref": "guide—borrada"},
            {"type": "doc", "ref": "https://example.org/spec"},
            {"type": "doc", "ref": "manual interno"},
        ],
    )
    html = rendered(target, page("guide—alta", title="Alta de usuarios", type="guide"))
    listed = html.split('<ul class="sources">')[1].split("</ul>")[0]
    alta = '<a href="../guide%E2%80%94alta/index.html" rel="noopener">Alta de usuarios</a>'
    assert alta in listed
    # a page not published stays a link, dead, which broken_links reports
    assert (
        '<a href="../guide%E2%80%94borrada/index.html" rel="noopener">guide—borrada</a>' in listed
    )
    spec = "https://example.org/spec"
    assert f'<a href="{spec}" rel="noopener">{spec}</a>' in listed
    assert "<code>manual interno</code>" in listed


def test_links_find_the_heading_an_anchor_means_in_another_generators_spelling() -> None:
    """#páginas-html (a generator that keeps accents) links to the id this site gave
    the heading, on another page and on the same one."""
    target = page("guide—rutas", content="## Páginas HTML\n\nTexto.", type="guide")
    source = page(
        "concept—x",
        content="[[guide—rutas#páginas-html|ver]] y [aquí](#sección-uno)\n\n## Sección uno",
    )
    site = site_of(source, target)
    site = SiteView(
        site.entries,
        site.links,
        anchors={"guide—rutas": {"paginas-html"}, "concept—x": {"seccion-uno"}},
    )
    html = renderer.render_page(source, render_body(source.content), site, renderer.SiteConfig())
    assert 'href="../guide%E2%80%94rutas/index.html#paginas-html">ver</a>' in html
    assert 'href="#seccion-uno"' in html
