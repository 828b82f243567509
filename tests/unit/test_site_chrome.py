"""Page chrome from data: table of contents, breadcrumbs, previous/next, nav.js."""

from __future__ import annotations

import json
import re

from shared.site import chrome, renderer
from shared.site.markdown import render_body
from tests.unit.test_site_renderer import PAYLOAD, page, rendered, site_of


def test_toc_lists_h2_and_h3_with_the_renderer_ids_as_plain_text() -> None:
    body = render_body(
        "# T\n\n## Uno `code` y [[x|enlace]]\n\n### Dos { #dos }\n\n#### Tres\n\n## Uno\n"
    )
    assert [(t.level, t.anchor, t.text) for t in chrome.toc(body.headings)] == [
        (2, "uno-code-y", "Uno code y"),
        (3, "dos", "Dos"),
        (2, "uno", "Uno"),
    ]


def test_a_page_shows_breadcrumbs_toc_and_previous_next() -> None:
    html = rendered(
        page("tutorial—b", title="Bravo", content="## Primera parte\n\nTexto.\n\n### Detalle\n"),
        page("tutorial—index", title="Tutorial"),
        page("tutorial—a", title="Alfa"),
        page("tutorial—c", title="Charlie"),
    )
    crumbs = re.search(r'<nav class="crumbs".*?</nav>', html, re.S)
    assert crumbs is not None
    assert re.findall(r">([^<>]+)</(?:a|span)>", crumbs.group(0)) == ["Inicio", "Tutorial", "Bravo"]
    assert 'href="../tutorial%E2%80%94index/index.html">Tutorial</a>' in crumbs.group(0)
    assert '<li class="toc-2"><a href="#primera-parte">Primera parte</a></li>' in html
    assert '<li class="toc-3"><a href="#detalle">Detalle</a></li>' in html
    assert re.search(r'rel="prev" href="../tutorial%E2%80%94a/index.html">.*Alfa', html)
    assert re.search(r'rel="next" href="../tutorial%E2%80%94c/index.html">.*Charlie', html)
    # The whole tree is nav.js; without script the sidebar is a frame of the section's
    # file: a new page changes that file, not its section's pages.
    assert 'src="../nav.js"' in html
    sidebar = html.split('<nav class="sidebar"')[1].split("</nav>")[0]
    assert "Charlie" not in sidebar
    frame = re.search(r'<noscript><iframe class="section-frame" src="([^"]+)"', sidebar)
    assert frame is not None
    site = site_of(
        page("tutorial—b", title="Bravo"),
        page("tutorial—index", title="Tutorial"),
        page("tutorial—a", title="Alfa"),
        page("tutorial—c", title="Charlie"),
    )
    files = renderer.render_section_files(site, renderer.SiteConfig())
    path = frame.group(1).removeprefix("../")
    links = re.findall(r'<a href="([^"]+)" target="_top">([^<]+)</a>', files[path])
    assert links == [
        ("../tutorial%E2%80%94index/index.html", "Tutorial"),
        ("../tutorial%E2%80%94a/index.html", "Alfa"),
        ("../tutorial%E2%80%94b/index.html", "Bravo"),
        ("../tutorial%E2%80%94c/index.html", "Charlie"),
    ]
    assert set(files) == {"sections/top.html", path}


def test_hostile_titles_in_chrome_and_nav_script_stay_inert() -> None:
    evil = page("tutorial—evil", title=PAYLOAD, content=f"## {PAYLOAD}\n")
    other = page("tutorial—z", title="Z")
    html = rendered(other, evil)
    assert "<script>alert" not in html
    site = site_of(evil, other)
    script = renderer.render_nav_script(site)
    assert "<" not in script
    assert ">" not in script
    data = json.loads(script.split("\n")[0].removeprefix("window.BIBLIOTECA_NAV=").rstrip(";"))
    assert data[0]["c"][0]["t"] == PAYLOAD
    assert "<script>alert" not in rendered(evil, other)


def test_toc_keeps_a_headings_code_as_code_and_escapes_the_rest() -> None:
    """``### `<Image />` `` is code in the TOC too, never text that reads as a tag."""
    body = render_body("## El componente `<Image />` & <b>más</b>\n")
    (entry,) = chrome.toc(body.headings)
    assert entry.text == "El componente <Image /> & <b>más</b>"
    assert str(entry.markup) == (
        "El componente <code>&lt;Image /&gt;</code> &amp; &lt;b&gt;más&lt;/b&gt;"
    )


def test_the_toc_shows_a_heading_as_the_page_does() -> None:
    """From the parser's tokens: an allowlisted tag is markup (its text shown, not the tag),
    a tag the page shows as text is text in the TOC too."""
    body = render_body("## Pulsa <kbd>Ctrl</kbd> y <Badge>nuevo</Badge>\n")
    (entry,) = chrome.toc(body.headings)
    assert entry.text == "Pulsa Ctrl y <Badge>nuevo</Badge>"
    assert "<kbd>" in body.html
